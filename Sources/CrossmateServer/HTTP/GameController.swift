import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Hummingbird

/// Games as zones: create, list, push moves, read changes and the joining snapshot, resign, seal.
struct GameController {
    let store: Store
    let writes: GameWrites
    let directory: GameDirectory
    /// Uploaded files are parsed here, off the task pool, a few at a time.
    let uploads: UploadParser
    /// Next puzzles together, per starting account.
    let nextGameLimiter: RateLimiter
    /// What a socket may have unsent (`ServerConfiguration.socketBufferBytes`): a puzzle whose
    /// opening would not fit is refused at upload.
    let socketBufferBytes: Int
    let clock: @Sendable () -> Int64

    /// This controller's routes, for the application's router.
    var routes: RouteCollection<CrossmateRequestContext> {
        let router = RouteCollection(context: CrossmateRequestContext.self)
        router.on(.createGame, use: create)
        router.on(.games, use: list)
        router.on(.pushMoves, use: pushMoves)
        router.on(.changes, answeredWith: changes)
        router.on(.snapshot, use: snapshot)
        router.on(.resign, use: resign)
        router.on(.seal, use: seal)
        router.on(.pause, use: pause)
        router.on(.presence, use: presence)
        router.on(.postMessage, use: postMessage)
        router.on(.postReaction, use: postReaction)
        router.on(.postFlag, use: postFlag)
        return router
    }

    @Sendable func create(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<CreateGameRequest>
    ) async throws -> EditedResponse<GameSummary> {
        let device = try context.requireDevice()
        // Base64 makes a file a third larger; the file itself is capped by PuzzleFile.maximumSize.
        let body = try await incoming.decode()
        // The next puzzle together: only a player of the game it follows takes its players along,
        // once that game is finished (it brings everyone into a new game and tells their
        // screens), and an account starts a few at most (`Limits.nextGame`).
        if let previous = body.with {
            let (game, _) = try await store.access(previous, for: device, write: true)
            guard game.completion != nil else {
                throw APIError(
                    .invalid, "the next puzzle together follows a finished game; game \(TextRule.quote(previous)) is still being solved")
            }
            try nextGameLimiter.admit(device.authorID, now: clock()) {
                "you started a next puzzle together a moment ago; you can start another in \($0) s"
            }
        }
        var puzzle: Puzzle
        do {
            if let bundled = body.bundled {
                puzzle = try BundledPuzzles.puzzle(bundled)
            } else if let encoded = body.fileBase64 {
                guard let data = Data(base64Encoded: encoded) else { throw APIError(.invalid, "fileBase64 is not base64") }
                puzzle = try await uploads.parse(Array(data), fileName: body.fileName ?? "upload", for: device.authorID)
            } else {
                throw APIError(
                    .invalid,
                    "say which puzzle: \"bundled\" (\(BundledPuzzles.identifiers.joined(separator: ", "))) or \"fileBase64\" with \"fileName\"")
            }
            // A locked .puz with its key becomes an unlocked game (its rebus answers included).
            if let key = body.unlockKey { puzzle = try puzzle.unlocked(withKey: key) }
            try FrameBudget.check(puzzle, socketBufferBytes: socketBufferBytes)
        } catch let error as PuzzleFileError {
            throw APIError(.invalid, "\(TextRule.quote(body.fileName ?? body.bundled ?? "the file")): \(error)")
        }
        let (game, sequence) = try await writes.create(puzzle, title: Self.listTitle(puzzle.title), by: device)
        let gameID = game.gameID
        var players = [device.displayName]
        if let previous = body.with {
            players += try await bringAlong(from: previous, to: game, title: Self.listTitle(puzzle.title), by: device)
        }
        let total = puzzle.letterPositions.count
        return EditedResponse(
            status: .created,
            response:
                GameSummary(
                    gameID: gameID, title: Self.listTitle(puzzle.title), width: puzzle.width, height: puzzle.height, ownerID: device.authorID,
                    role: .owner, readOnly: false, filled: 0, total: total, completion: nil,
                    token: ChangeToken(zone: gameID, sequence: sequence), serverTime: clock(), players: players))
    }

    /// The players of `previous` (still in it, not removed, not blocking the creator) join the
    /// new game at once, and their sockets hear of it (a device on the finished game goes
    /// straight in; the others find it first in their lists). Their names, in order.
    func bringAlong(from previous: String, to game: GameRecord, title: String, by device: StoredDevice) async throws -> [String] {
        let next = NextGameView(fromGameID: previous, gameID: game.gameID, title: title, byAuthor: device.authorID, byName: device.displayName)
        var names: [String] = []
        let previousPlayers = try await store.participants(gameID: previous).filter { !$0.hasLeft }
        let shown = PlayerNames.shown(previousPlayers.map { ($0.authorID, $0.displayName) })
        for player in previousPlayers.sorted(by: { $0.displayName < $1.displayName })
        where player.authorID != device.authorID && !player.revoked && names.count < ProtocolLimits.maximumPlayersPerGame - 1 {
            guard try await !AccountDecisions.blocked(by: player.authorID, store: store).contains(device.authorID) else { continue }
            try await writes.setParticipant(
                ParticipantRecord(gameID: game.gameID, authorID: player.authorID, displayName: player.displayName, role: .player), feedState: .active)
            writes.broughtAlong(player.authorID, into: next)
            names.append(shown[player.authorID] ?? player.displayName)
        }
        return names
    }

    /// The title the games list shows: at most 200 bytes of UTF-8, cut between characters (the
    /// full title stays in the puzzle).
    static func listTitle(_ title: String) -> String {
        title.prefix(bytes: 200)
    }

    /// One page of the account's games, newest first (`?limit=`, at most 100; `?after=` the
    /// previous page's `next`). A game's size, progress and picture come from the projection
    /// this instance holds, else from its stored summary (no grid is built for a list); only a
    /// game made before summaries were stored is loaded, once, to store its summary.
    @Sendable func list(_ request: Request, context: CrossmateRequestContext) async throws -> GameListResponse {
        let device = try context.requireDevice()
        let query = request.uri.queryParameters
        let limit = min(ProtocolLimits.maximumGamesPerPage, max(1, query["limit"].flatMap { Int(String($0)) } ?? ProtocolLimits.maximumGamesPerPage))
        var after: GameListCursor?
        if let raw = query["after"] {
            guard let cursor = GameListCursor(encoded: String(raw)) else {
                throw APIError(.invalid, "after is not a cursor from a game list's next")
            }
            after = cursor
        }
        let page = try await store.games(of: device.authorID, after: after.map { ($0.createdAt, $0.gameID) }, limit: limit + 1)
        var summaries: [GameSummary] = []
        for (game, participant, stored) in page.prefix(limit) {
            let shown: StoredGameSummary
            if let held = directory.held(game.gameID) {
                shown = await held.listSummary
            } else if let stored {
                shown = stored
            } else {
                let projection = try await directory.projection(for: game)
                shown = await projection.listSummary
                try await store.putSummary(gameID: game.gameID, shown)
            }
            summaries.append(try await summary(game, participant, shown))
        }
        let next = page.count > limit ? page.prefix(limit).last.map { GameListCursor(createdAt: $0.0.createdAt, gameID: $0.0.gameID) } : nil
        let unread = summaries.count { $0.unread == true || ($0.unreadMessages ?? 0) > 0 }
        return GameListResponse(
            games: summaries, next: next, serverTime: clock(), unreadCount: unread,
            restoredAt: try await store.serverValue("restored-at").flatMap { Int64($0) })
    }

    /// A game as one player's list shows it, from the game's projection.
    func summary(_ game: StoredGame, _ participant: StoredParticipant) async throws -> GameSummary {
        let projection = try await directory.projection(for: game)
        return try await summary(game, participant, await projection.listSummary)
    }

    /// A game as one player's list shows it, from its list summary (the completion comes from
    /// the game's row, the authority).
    func summary(_ game: StoredGame, _ participant: StoredParticipant, _ shown: StoredGameSummary) async throws -> GameSummary {
        let unread = try await unread(game.gameID, for: participant.authorID, added: participant.role == .player && game.completion == nil)
        return GameSummary(
            gameID: game.gameID, title: game.title, width: shown.width, height: shown.height, ownerID: game.ownerID,
            role: participant.role, readOnly: participant.revoked, filled: shown.filled, total: shown.total,
            completion: game.completion, token: ChangeToken(zone: game.gameID, sequence: game.zoneSeq),
            serverTime: clock(), picture: shown.picture, players: try await players(of: game.gameID),
            unread: unread.moves,
            // A finished game needs no help: its nudges are not listed.
            nudges: game.completion == nil ? try await nudges(game.gameID, for: participant.authorID) : [],
            lastActivity: max(game.createdAt, shown.activeAt), unreadMessages: unread.messages)
    }

    /// A chat message from this device.
    @Sendable func postMessage(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<PostMessageRequest>
    ) async throws -> EditedResponse<PostMessageResponse> {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let body = try await incoming.decode()
        return EditedResponse(status: .created, response: try await writes.chat(body, in: gameID, by: device))
    }

    /// A clue flagged (or its flag taken down) from this device.
    @Sendable func postFlag(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<PostFlagRequest>
    ) async throws -> EditedResponse<PostFlagResponse> {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let body = try await incoming.decode()
        return EditedResponse(status: .created, response: try await writes.flag(body, in: gameID, by: device))
    }

    /// An emoji reaction from this device.
    @Sendable func postReaction(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<PostReactionRequest>
    ) async throws -> EditedResponse<PostReactionResponse> {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let body = try await incoming.decode()
        return EditedResponse(status: .created, response: try await writes.react(body, in: gameID, by: device))
    }

    /// What is unread for the account while none of its devices is in the game (`Presence`):
    /// whether another player moved after its horizon, and how many chat messages others wrote
    /// after it (`Chat.unread`, none of an account it blocked; at most
    /// `GameSummary.maximumUnreadMessages`).
    func unread(_ gameID: String, for authorID: String, added: Bool = false) async throws -> (moves: Bool, messages: Int) {
        let devices = try await store.presence(gameID: gameID, authorID: authorID)
        let now = clock()
        if Presence.isHere(devices, now: now) { return (false, 0) }
        let horizon = Presence.horizon(of: devices, previous: try await store.horizon(gameID: gameID, authorID: authorID))
        let latest = try await store.latestMove(gameID: gameID, after: horizon, notBy: authorID)
        // A game another player put in this list (the next puzzle together) is news until one
        // of the account's devices shows it.
        let moves =
            Presence.isUnread(latestOtherMove: latest, horizon: horizon, devices: devices, now: now) || (added && horizon == 0 && devices.isEmpty)
        let recent = try await store.messages(gameID: gameID, after: horizon, limit: 4 * GameSummary.maximumUnreadMessages)
        guard recent.contains(where: { $0.message.authorID != authorID }) else { return (moves, 0) }
        let blocked = try await AccountDecisions.blocked(by: authorID, store: store)
        return (moves, min(GameSummary.maximumUnreadMessages, Chat.unread(recent, horizon: horizon, me: authorID, hiding: blocked)))
    }

    /// Nudges to `authorID` in the last day, never from an account it blocked.
    func nudges(_ gameID: String, for authorID: String) async throws -> [NudgeView] {
        let recent = try await store.nudges(gameID: gameID, since: clock() - SocialController.nudgeShownMillis)
            .filter { $0.fromAuthor != authorID }
        guard !recent.isEmpty else { return [] }
        let blocked = try await AccountDecisions.blocked(by: authorID, store: store)
        let names = Dictionary(
            try await store.participants(gameID: gameID).map { ($0.authorID, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        return recent.filter { !blocked.contains($0.fromAuthor) }.map {
            NudgeView(
                gameID: gameID, nudgeID: $0.nudgeID, fromAuthor: $0.fromAuthor,
                fromName: names[$0.fromAuthor] ?? PlayerColors.placeholderName($0.fromAuthor),
                message: $0.message, createdAt: $0.createdAt)
        }
    }

    /// A game's players for the list: names of those not removed, the owner first.
    func players(of gameID: String) async throws -> [String] {
        try await store.participants(gameID: gameID).filter { !$0.revoked && !$0.hasLeft }
            .sorted { ($0.role == .owner ? 0 : 1, $0.displayName) < ($1.role == .owner ? 0 : 1, $1.displayName) }.map(\.displayName)
    }

    @Sendable func pushMoves(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<PushMovesRequest>
    ) async throws -> PushMovesResponse {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let body = try await incoming.decode()
        return try await writes.ingest(body.moves, into: gameID, from: device)
    }

    @Sendable func changes(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        _ = try await store.access(gameID, for: device, write: false)
        var after: Int64 = 0
        if let since = request.uri.queryParameters["since"] {
            guard let token = ChangeToken(encoded: String(since)), token.zone == gameID else {
                throw APIError(.invalid, "since is not a change token of game \(TextRule.quote(gameID))")
            }
            after = token.sequence
        }
        let limit = min(ProtocolLimits.maximumChangesPerPage, max(1, request.uri.queryParameters["limit"].flatMap { Int(String($0)) } ?? 500))
        let stored = try await store.changes(gameID: gameID, after: after, limit: limit + 1)
        // At most `limit` records and about a megabyte: a page ends before the record that would
        // take it past the byte cap (but always holds one record, however large).
        var bytes = 0
        let page = stored.prefix(limit).enumerated().prefix { index, change in
            bytes += change.json.utf8.count
            return index == 0 || bytes <= ProtocolLimits.maximumChangesPageBytes
        }.map(\.element)
        let token = ChangeToken(zone: gameID, sequence: page.last?.sequence ?? after)
        // The stored bodies are already the records' JSON, so the page is assembled around them
        // instead of decoding and re-encoding every record. The shape is exactly
        // ChangesResponse's; the route and golden tests decode it as one.
        let json = ChangesResponse.json(changes: page, token: token, moreComing: stored.count > page.count, serverTime: clock())
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: json)))
    }

    @Sendable func snapshot(_ request: Request, context: CrossmateRequestContext) async throws -> SnapshotResponse {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let (game, _) = try await store.access(gameID, for: device, write: false)
        let projection = try await directory.projection(for: game)
        var record = projection.game
        record.completion = game.completion
        let stored = try await GameProjection.latestSnapshot(store: store, gameID: gameID)
        let through = stored?.zoneSeq ?? 0
        let keyed = try await store.keyedRecords(gameID: gameID, through: through)
        let records = try keyed.map { try $0.decoded(gameID: gameID) }
        return
            SnapshotResponse(
                game: record, snapshot: stored?.snapshot, records: records, token: ChangeToken(zone: gameID, sequence: through),
                serverTime: clock())
    }

    @Sendable func resign(_ request: Request, context: CrossmateRequestContext) async throws -> CompletionResponse {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let completion = try await writes.resign(gameID, by: device)
        return CompletionResponse(completion: completion, serverTime: clock())
    }

    @Sendable func seal(_ request: Request, context: CrossmateRequestContext, body incoming: Incoming<SealRequest>) async throws -> OKResponse {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let body = try await incoming.decode()
        try await writes.seal(gameID, through: body.lastSeq, by: device)
        return OKResponse(serverTime: clock())
    }

    @Sendable func pause(_ request: Request, context: CrossmateRequestContext) async throws -> PauseResponse {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        return PauseResponse(pause: try await writes.pause(gameID, by: device), serverTime: clock())
    }

    /// A native device enters, reads or leaves a game (a browser's hosted replica does the same
    /// for it). Reading cannot run ahead of the zone: a device only shows what exists.
    @Sendable func presence(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<PresenceRequest>
    ) async throws -> PresenceResponse {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let body = try await incoming.decode()
        return try await writes.presence(body, in: gameID, by: device)
    }
}
