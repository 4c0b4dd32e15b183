import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateServer
import CrossmateStore
import CrossmateSync
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// A migrated store on a fresh SQLite file, holding the account "ann" (device "phone") and a
/// `green-light` game of Ann's for each of `gameIDs`; the file goes when `body` ends.
func withAnnsGames<T>(
    _ gameIDs: [String], maximumMovesPerGame: Int = Limits.maximumMovesPerGame, _ body: (Store) async throws -> T
) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crossmate-store-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = Store(
        database: try SQLiteDatabase(path: directory.appendingPathComponent("db.sqlite").path), maximumMovesPerGame: maximumMovesPerGame)
    try await store.migrate(now: 1)
    try await store.createAccount(authorID: "ann", displayName: "Ann", deviceID: "phone", tokenHash: "h", now: 1)
    for id in gameIDs {
        _ = try await store.createGame(
            GameRecord(gameID: id, ownerID: "ann", createdAt: 1, puzzle: greenLight), title: "T",
            owner: ParticipantRecord(gameID: id, authorID: "ann", displayName: "Ann", role: .owner))
    }
    return try await body(store)
}

/// A clock the tests move by hand.
final class TestClock: Sendable {
    private let millis: Atomic<Int64>
    init(_ start: Int64 = 1_800_000_000_000) { millis = Atomic(start) }
    var now: Int64 { millis.load(ordering: .relaxed) }
    func advance(byMillis delta: Int64) { millis.add(delta, ordering: .relaxed) }
}

/// A server configuration on a fresh SQLite file (or the test PostgreSQL) with an injected clock.
struct TestServer {
    let clock = TestClock()
    let directory: URL
    var configuration: ServerConfiguration

    init(postgres: Bool = false, configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("crossmate-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let storage: ServerConfiguration.Storage =
            postgres
            ? .postgres(url: ProcessInfo.processInfo.environment["CROSSMATE_TEST_POSTGRES_URL"]!)
            : .sqlite(path: directory.appendingPathComponent("crossmate.sqlite").path)
        configuration = ServerConfiguration(storage: storage)
        configuration.port = 0
        configuration.logLevel = .warning
        let clock = clock
        configuration.clock = { clock.now }
        // Router tests have no client address, so every account comes from the same one.
        configuration.accountRateLimitBurst = 1_000
        configure(&configuration)
    }

    func application() throws -> some ApplicationProtocol { try buildApplication(configuration) }

    func removeFiles() { try? FileManager.default.removeItem(at: directory) }
}

/// Runs `test` against the application `crossmate serve` runs, in process, on a fresh
/// `TestServer` configured by `configure`; its files go afterwards.
func withServer(
    _ configure: (inout ServerConfiguration) -> Void = { _ in },
    _ test: @Sendable (any TestClientProtocol, TestServer) async throws -> Void
) async throws {
    let server = try TestServer(configure: configure)
    defer { server.removeFiles() }
    try await server.application().test(.router) { client in try await test(client, server) }
}

struct HTTPFailure: Error, CustomStringConvertible {
    var status: HTTPResponse.Status
    var body: String
    var description: String { "\(status.code) \(body)" }
}

extension TestClientProtocol {
    /// Sends JSON (or nothing) and returns the raw response.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, token: String? = nil, json: (some Encodable)? = Optional<String>.none,
        raw: String? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json { body = ByteBuffer(bytes: try JSONEncoder().encode(json)) }
        if let raw { body = ByteBuffer(string: raw) }
        return try await execute(uri: uri, method: method, headers: headers, body: body)
    }

    /// Sends and decodes a successful response.
    func call<T: Decodable>(
        _ method: HTTPRequest.Method, _ uri: String, token: String? = nil, json: (some Encodable)? = Optional<String>.none,
        as type: T.Type = T.self
    ) async throws -> T {
        let response = try await send(method, uri, token: token, json: json)
        guard (200..<300).contains(response.status.code) else {
            throw HTTPFailure(status: response.status, body: String(buffer: response.body))
        }
        return try JSONDecoder().decode(T.self, from: Data(buffer: response.body))
    }

    /// Sends and returns the error body of a failed response (or records an issue if it succeeded).
    func failure(
        _ method: HTTPRequest.Method, _ uri: String, token: String? = nil, json: (some Encodable)? = Optional<String>.none,
        raw: String? = nil
    ) async throws -> (HTTPResponse.Status, ErrorBody) {
        let response = try await send(method, uri, token: token, json: json, raw: raw)
        let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
        return (response.status, body)
    }

    func account(_ name: String) async throws -> DeviceSession {
        try await call(.post, "/v1/accounts", json: CreateAccountRequest(displayName: name))
    }

    /// Another device of `session`'s account, linked with a one-time code.
    func linkDevice(of session: DeviceSession) async throws -> DeviceSession {
        let code: LinkCodeResponse = try await call(.post, "/v1/devices/link-codes", token: session.token)
        return try await call(.post, "/v1/devices", json: LinkDeviceRequest(code: code.code))
    }

    func newGame(_ session: DeviceSession, bundled: String = "green-light") async throws -> GameSummary {
        try await call(.post, "/v1/games", token: session.token, json: CreateGameRequest(bundled: bundled))
    }

    /// `player` joins `owner`'s game through an invitation link, which is revoked afterwards
    /// (a game has at most `ProtocolLimits.liveInvitationsPerGame` working links).
    func join(_ player: DeviceSession, _ gameID: String, invitedBy owner: DeviceSession) async throws {
        let invite: InvitationResponse = try await call(.post, "/v1/games/\(gameID)/invitations", token: owner.token, json: CreateInvitationRequest())
        let _: GameSummary = try await call(.post, "/v1/invitations/\(invite.token)/accept", token: player.token)
        let _: OKResponse = try await call(.delete, "/v1/invitations/\(invite.token)", token: owner.token)
    }

    func push(_ session: DeviceSession, _ gameID: String, _ moves: [Move]) async throws -> PushMovesResponse {
        try await call(.post, "/v1/games/\(gameID)/moves", token: session.token, json: PushMovesRequest(moves: moves.map(MoveRecord.init)))
    }

    /// Every change of a game after `token`, following pages.
    func allChanges(_ session: DeviceSession, _ gameID: String, after token: ChangeToken? = nil) async throws -> ([ZoneChange], ChangeToken) {
        var changes: [ZoneChange] = []
        var cursor = token
        while true {
            let since = cursor.map { "?since=\($0.encoded)" } ?? ""
            let page: ChangesResponse = try await call(.get, "/v1/games/\(gameID)/changes\(since)", token: session.token)
            changes += page.changes
            cursor = page.token
            if !page.moreComing { return (changes, page.token) }
        }
    }
}

/// A device in a test: a replica of the engine plus its credentials, as a native client is.
struct TestDevice {
    var session: DeviceSession
    var replica: GameReplica

    init(_ session: DeviceSession, puzzle: Puzzle, gameID: String) {
        self.session = session
        replica = GameReplica(puzzle: puzzle, gameID: gameID, replicaID: session.deviceID, authorID: session.account.authorID)
    }

    /// Merges the moves among `changes` into this replica.
    mutating func receive(_ changes: [ZoneChange]) {
        let moves = changes.compactMap { change -> Move? in
            if case let .move(record) = change.record { return try? record.move() }
            return nil
        }
        replica.receive(moves)
    }
}

let greenLight = try! BundledPuzzles.puzzle("green-light")
let daybreak = try! BundledPuzzles.puzzle("daybreak")

func at(_ row: Int, _ col: Int) -> GridPosition { GridPosition(row: row, col: col) }
