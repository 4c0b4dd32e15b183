import CrossmateProtocol
import CrossmateSync
import Foundation

/// Making this device known to a server: a new account, or a link to an existing one.
public enum DeviceSetup {
    /// Makes an account called `name` on `serverURL` with this device as its first. A server
    /// that makes accounts only through an invitation is shown `invitation` (a link or token).
    public static func login(
        store: ClientStore, serverURL: String, name: String, invitation: String? = nil
    ) async throws(ServerFailure)
        -> Identity
    {
        let token = invitation.map { SyncEngine.invitationToken($0) }
        let session = try await ServerAPI(baseURL: serverURL).createAccount(displayName: name, invitation: token)
        return try save(session, serverURL: serverURL, store: store)
    }

    /// Links this device to the account that showed `code` (from `crossmate link` on another
    /// device).
    public static func link(store: ClientStore, serverURL: String, code: String) async throws(ServerFailure) -> Identity {
        let session = try await ServerAPI(baseURL: serverURL).linkDevice(code: code)
        return try save(session, serverURL: serverURL, store: store)
    }

    private static func save(_ session: DeviceSession, serverURL: String, store: ClientStore) throws(ServerFailure) -> Identity {
        let identity = Identity(
            serverURL: ServerAPI(baseURL: serverURL).baseURL, authorID: session.account.authorID, deviceID: session.deviceID,
            token: session.token, displayName: session.account.displayName)
        do {
            try store.saveIdentity(identity)
            try store.setServerOffsetMillis(session.serverTime - Int64(Date().timeIntervalSince1970 * 1000))
        } catch {
            throw .unreadable("the local store failed: \(error)")
        }
        return identity
    }
}

extension SyncEngine {
    /// A code another device enters to join this account.
    public func linkCode() async throws(ServerFailure) -> LinkCodeResponse {
        try await serverAPI.createLinkCode()
    }

    /// Starts a game on the server and loads it here. Returns its id.
    public func createGame(_ request: CreateGameRequest) async throws(ServerFailure) -> String {
        let summary = try await serverAPI.createGame(request)
        try await fetch(summary.gameID)
        return summary.gameID
    }

    /// An invitation link for a game: on the server's public address when it has one
    /// (`--public-url`), else on the address this device reaches it at, and `/join/TOKEN`; with
    /// `expiresInSeconds`, it stops working then.
    public func invite(_ gameID: String, expiresInSeconds: Int? = nil) async throws(ServerFailure) -> String {
        let invitation = try await serverAPI.invite(gameID: gameID, expiresInSeconds: expiresInSeconds)
        return invitation.url ?? serverAPI.baseURL + invitation.path
    }

    /// A game (or, with nil, the account's latest games in a zip) as the server exports it:
    /// the file's name and bytes. `format` is puz, ipuz, jpz or xd; `fill` adds the grid's letters.
    public func export(_ gameID: String?, format: String, fill: Bool) async throws(ServerFailure) -> (name: String?, bytes: [UInt8]) {
        let query = "?format=\(format)" + (fill ? "&fill=1" : "")
        return try await serverAPI.download((gameID.map { APIRoute.exportGame.path($0) } ?? APIRoute.exportAll.path()) + query)
    }

    /// Makes an invitation link (or its bare token) stop working.
    public func revokeInvitation(_ link: String) async throws(ServerFailure) {
        _ = try await serverAPI.revokeInvitation(token: Self.invitationToken(link))
    }

    /// Leaves a game someone else owns: this account's letters stay, it plays no more.
    public func leave(_ gameID: String) async throws(ServerFailure) {
        _ = try await serverAPI.leave(gameID: gameID)
        _ = try await syncOnce()
    }

    /// The token of an invitation link (`…/join/TOKEN`) or the bare token.
    static func invitationToken(_ link: String) -> String {
        var token = link.trimmingCharacters(in: .whitespaces)
        if let range = token.range(of: "/join/") { token = String(token[range.upperBound...]) }
        return String(token.prefix { $0 != "?" && $0 != "#" && $0 != "/" })
    }

    /// Joins the game a link (or its bare token) invites to. Returns the game's id.
    public func join(_ link: String) async throws(ServerFailure) -> String {
        let summary = try await serverAPI.accept(invitation: Self.invitationToken(link))
        try await fetch(summary.gameID)
        return summary.gameID
    }

    /// Removes a player from a game this account owns.
    public func remove(_ authorID: String, from gameID: String) async throws(ServerFailure) {
        _ = try await serverAPI.removePlayer(gameID: gameID, authorID: authorID)
        try await fetch(gameID)
    }

    // MARK: Friends and nudges

    public func friends() async throws(ServerFailure) -> FriendsResponse {
        try await serverAPI.friends()
    }

    /// The account's settings (`SolverSettings`), as its other devices use them.
    public func settings() async throws(ServerFailure) -> SettingsResponse {
        try await serverAPI.settings()
    }

    /// The account's stats (`Stats`), its days counted in `timeZone`.
    public func stats(timeZone: String) async throws(ServerFailure) -> StatsResponse {
        try await serverAPI.stats(timeZone: timeZone)
    }

    /// Sets or clears a Decision about another account (a colour pin, a block), stamped with
    /// this device's corrected clock so the account's devices agree on the last writer.
    public func decide(kind: String, about authorID: String, value: String?) async throws(ServerFailure) -> FriendsResponse {
        try await serverAPI.decide(
            DecisionRequest(kind: kind, key: authorID, value: value, deleted: value == nil ? true : nil, writtenAt: clock.now))
    }

    public func setPreferredColor(_ color: Int?) async throws(ServerFailure) -> FriendsResponse {
        try await serverAPI.preferences(PreferencesRequest(color: color))
    }

    public func nudge(_ gameID: String, message: String?) async throws(ServerFailure) -> NudgeView {
        try await serverAPI.nudge(gameID: gameID, NudgeRequest(message: message))
    }

    /// Pauses this player's share of the shared clock (`SolvingTime`) until their next move.
    /// The server stamps it with its time; it is kept here at once, so this device's clock
    /// stops without waiting for the changes.
    public func pause(_ gameID: String) async throws(ServerFailure) -> Pause {
        let response = try await serverAPI.pause(gameID: gameID)
        try? store.savePause(response.pause)
        return response.pause
    }
}
