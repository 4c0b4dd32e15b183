import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import Foundation
import Hummingbird

/// Friends, the account zone's Decisions (block, colour pins) and Preferences (a preferred
/// colour), and nudges.
struct SocialController {
    let store: Store
    let writes: GameWrites
    /// Nudges, per sending account.
    let nudgeLimiter: RateLimiter
    /// How far ahead of the server's clock a decision's stamp may be (`ServerConfiguration.maximumSkewMillis`).
    let maximumSkewMillis: Int64
    let clock: @Sendable () -> Int64

    // Nudges' rate and size and the decisions an account holds: `Limits.nudge`, `Limits.decision`.
    /// How long a nudge shows in the games list.
    static let nudgeShownMillis: Int64 = 24 * 3_600_000

    /// This controller's routes, for the application's router.
    var routes: RouteCollection<CrossmateRequestContext> {
        let router = RouteCollection(context: CrossmateRequestContext.self)
        router.on(.friends, use: friends)
        router.on(.decide, use: decide)
        router.on(.preferences, use: preferences)
        router.on(.settings, use: settings)
        router.on(.putSetting, use: putSetting)
        router.on(.nudge, use: nudge)
        return router
    }

    @Sendable func friends(_ request: Request, context: CrossmateRequestContext) async throws -> FriendsResponse {
        let device = try context.requireDevice()
        return try await friendsResponse(for: device.authorID)
    }

    func friendsResponse(for authorID: String) async throws -> FriendsResponse {
        let stored = try await store.friends(of: authorID)
        let decisions = try await store.decisions(of: authorID)
        let preferred = try await store.preferredColor(of: authorID)
        let pins = AccountDecisions.pins(decisions)
        // As a game's roster would colour them: my colour first, pins, the rest.
        let colors = PlayerColors.assign(players: stored.map(\.authorID), local: authorID, preferred: preferred, pinned: pins)
        let blocked = Set(decisions.filter { $0.kind == DecisionKind.block.rawValue }.map(\.key))
        let friends = stored.map { friend in
            let index = colors[friend.authorID] ?? PlayerColors.stableColor(friend.authorID, reserved: [])
            return FriendView(
                authorID: friend.authorID, displayName: friend.displayName, color: PlayerColors.palette[index].hex, colorIndex: index,
                symbol: PlayerColors.avatarSymbol(friend.authorID), pinned: pins[friend.authorID],
                blocked: blocked.contains(friend.authorID), gamesTogether: friend.gamesTogether, lastPlayed: friend.lastPlayed)
        }
        return FriendsResponse(
            friends: friends,
            decisions: decisions.map { DecisionRecord(kind: $0.kind, key: $0.key, value: $0.value, writtenAt: $0.writtenAt) },
            preferredColor: preferred, serverTime: clock())
    }

    /// Sets or clears a Decision; the account's devices hear of it (their lists and open games
    /// redraw with the new colours or without the blocked player's nudges).
    @Sendable func decide(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<DecisionRequest>
    ) async throws -> FriendsResponse {
        let device = try context.requireDevice()
        let body = try await incoming.decode()
        guard let kind = DecisionKind(rawValue: body.kind), kind != .setting else {
            throw APIError(.invalid, "kind is block or color, not \(TextRule.quote(body.kind))")
        }
        guard !body.key.isEmpty, body.key.utf8.count <= 100, body.key != device.authorID else {
            throw APIError(.invalid, "key is another account's authorID")
        }
        let deleted = body.deleted ?? false
        var value = body.value ?? (kind == .block ? "1" : "")
        if deleted { value = "" }
        if kind == .color, !deleted {
            guard let index = Int(value), PlayerColors.palette.indices.contains(index) else {
                throw APIError(.invalid, "a colour pin's value is a palette index, 0 to \(PlayerColors.palette.count - 1)")
            }
            value = String(index)
        }
        try await put(kind: kind, key: body.key, value: value, deleted: deleted, writtenAt: body.writtenAt, by: device)
        return try await friendsResponse(for: device.authorID)
    }

    /// Stores one of the account's Decisions (a pin, a block, a setting) unless a later write
    /// holds; the account's devices hear of a change.
    private func put(kind: DecisionKind, key: String, value: String, deleted: Bool = false, writtenAt: Int64?, by device: StoredDevice) async throws {
        let now = clock()
        // A device's clock may be a little ahead; never further than the server allows moves.
        let decision = StoredDecision(
            authorID: device.authorID, kind: kind.rawValue, key: key, value: value,
            writtenAt: min(writtenAt ?? now, now + maximumSkewMillis),
            writtenBy: device.deviceID, deleted: deleted)
        let won: Bool
        do {
            won = try await store.putDecision(decision, maximumDecisions: Limits.maximumDecisions)
        } catch let refusal as StoreRefusal {
            throw refusal.apiError
        }
        if won { await writes.accountChanged(device.authorID) }
    }

    @Sendable func preferences(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<PreferencesRequest>
    ) async throws -> FriendsResponse {
        let device = try context.requireDevice()
        let body = try await incoming.decode()
        if let color = body.color, !PlayerColors.palette.indices.contains(color) {
            throw APIError(.invalid, "color is a palette index, 0 to \(PlayerColors.palette.count - 1), or null")
        }
        try await store.putPreferredColor(body.color, authorID: device.authorID, writtenAt: clock())
        await writes.accountChanged(device.authorID)
        return try await friendsResponse(for: device.authorID)
    }

    @Sendable func settings(_ request: Request, context: CrossmateRequestContext) async throws -> SettingsResponse {
        let device = try context.requireDevice()
        return SettingsResponse(try await AccountDecisions.settings(of: device.authorID, store: store), serverTime: clock())
    }

    @Sendable func putSetting(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<SettingRequest>
    ) async throws -> SettingsResponse {
        let device = try context.requireDevice()
        let body = try await incoming.decode()
        do {
            try SolverSettings.validate(name: body.name, value: body.value)
        } catch let refusal {
            throw APIError(.invalid, "\(refusal)")
        }
        try await put(kind: .setting, key: body.name, value: body.value, writtenAt: body.writtenAt, by: device)
        return SettingsResponse(try await AccountDecisions.settings(of: device.authorID, store: store), serverTime: clock())
    }

    /// A player nudges the game's other players: stored once, listed with the game for a day,
    /// and sent live to their sockets — except to players who blocked the sender.
    @Sendable func nudge(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<NudgeRequest>
    ) async throws -> EditedResponse<NudgeView> {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let body = try await incoming.decode()
        let message: String
        do {
            message = try TextRule.check(body.message ?? "", field: "a nudge's message", maximumBytes: Limits.nudgeMessageBytes, required: false)
        } catch let violation {
            if case .tooLong = violation { throw APIError(.limitExceeded, "\(violation)") }
            throw APIError(.invalid, "\(violation)")
        }
        _ = try await store.access(gameID, for: device, write: true)
        let now = clock()
        try nudgeLimiter.admit(device.authorID, now: now) { "you nudged a moment ago; you can nudge again in \($0) s" }
        let nudge = StoredNudge(
            gameID: gameID, nudgeID: Secrets.identifier(prefix: "nudge"), fromAuthor: device.authorID, message: message, createdAt: now)
        try await store.putNudge(nudge)
        let view = NudgeView(
            gameID: gameID, nudgeID: nudge.nudgeID, fromAuthor: device.authorID, fromName: device.displayName, message: message,
            createdAt: now)
        for participant in try await store.participants(gameID: gameID)
        where participant.authorID != device.authorID && !participant.hasLeft && !participant.revoked {
            guard try await !AccountDecisions.blocked(by: participant.authorID, store: store).contains(device.authorID) else { continue }
            await writes.nudged(participant.authorID, with: view, message: message)
        }
        return EditedResponse(status: .created, response: view)
    }
}
