import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import CrossmateTestSupport
import Foundation
import Synchronization
import Testing

/// One device in an engine test: its own local store and engine, talking to a real server.
struct TestPlayer {
    let store: ClientStore
    let engine: SyncEngine
    let path: String

    var identity: Identity { engine.identity }

    /// A new account on `server` with this device as its first.
    static func login(
        _ name: String, server: String, in directory: TemporaryDirectory, localNow: (@Sendable () -> Int64)? = nil
    )
        async throws -> TestPlayer
    {
        let path = directory.path + "/\(name)-\(UUID().uuidString.prefix(8)).sqlite"
        let store = try ClientStore(path: path)
        let identity = try await DeviceSetup.login(store: store, serverURL: server, name: name)
        return try TestPlayer(store: store, identity: identity, path: path, localNow: localNow)
    }

    /// A second device of `other`'s account, linked with a code.
    static func link(to other: TestPlayer, in directory: TemporaryDirectory) async throws -> TestPlayer {
        let code = try await other.engine.linkCode()
        let path = directory.path + "/linked-\(UUID().uuidString.prefix(8)).sqlite"
        let store = try ClientStore(path: path)
        let identity = try await DeviceSetup.link(store: store, serverURL: other.identity.serverURL, code: code.code)
        return try TestPlayer(store: store, identity: identity, path: path)
    }

    /// The same device after a restart: its store reopened, a new engine.
    func restarted(localNow: (@Sendable () -> Int64)? = nil) throws -> TestPlayer {
        let store = try ClientStore(path: path)
        return try TestPlayer(store: store, identity: try #require(try store.identity()), path: path, localNow: localNow)
    }

    init(store: ClientStore, identity: Identity, path: String, localNow: (@Sendable () -> Int64)? = nil) throws {
        self.store = store
        self.path = path
        let seed = UInt64(truncatingIfNeeded: identity.deviceID.hashValue)
        if let localNow {
            engine = try SyncEngine(store: store, identity: identity, seed: seed, localNow: localNow)
        } else {
            engine = try SyncEngine(store: store, identity: identity, seed: seed)
        }
    }

    func letters(_ gameID: String) async throws -> [String] {
        try await engine.view(gameID).grid.letters
    }
}

/// A server process for one test, in its own directory, stopped at the end.
func withLiveServer<T>(
    environment: [String: String] = [:], _ body: (ServerProcess, TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory("crossmate-engine")
    defer { directory.remove() }
    let server = try ServerProcess(dataDirectory: directory.path + "/server", environment: environment)
    // SIGKILL, not a graceful stop: a graceful stop waits for the engines' idle keep-alive
    // connections, and waiting for the process blocks one of the few cooperative threads.
    defer { server.kill() }
    return try await body(server, directory)
}

/// The zone sequences of a game's moves, as a server holds them (read page by page).
func storedMoveSequences(_ gameID: String, server: String, token: String) async throws -> Set<Int64> {
    let api = ServerAPI(baseURL: server, token: token)
    var sequences: Set<Int64> = []
    var since: ChangeToken?
    while true {
        let page = try await api.changes(gameID: gameID, since: since)
        for change in page.changes { if case .move = change.record { sequences.insert(change.sequence) } }
        since = page.token
        if !page.moreComing { return sequences }
    }
}

/// Whether every one of `players` has had all its moves acknowledged.
func allSent(_ players: TestPlayer...) async -> Bool {
    for player in players where await player.engine.status.unsent > 0 { return false }
    return true
}

/// Types `word` from `start` along `direction`, one command per letter.
func type(_ word: String, at start: GridPosition, _ direction: Direction = .across, in session: GameSession) async throws {
    for (offset, letter) in word.enumerated() {
        let position =
            direction == .across
            ? GridPosition(row: start.row, col: start.col + offset) : GridPosition(row: start.row + offset, col: start.col)
        try await session.type(String(letter), at: position)
    }
}

/// One player on a server, in a game of their own, typing over its squares through the HTTP API
/// as fast as the answers come back (the load of the restart and stop tests).
final class Typist: @unchecked Sendable {
    let api: ServerAPI
    let gameID: String
    var replica: GameReplica
    /// The sequence numbers the server said it holds (saved, or a duplicate of one it had).
    let acknowledged = Mutex<[Int]>([])
    private var unsent: [Move] = []

    init(_ base: String, name: String, puzzle: Puzzle) async throws {
        let session = try await ServerAPI(baseURL: base).createAccount(displayName: name)
        api = ServerAPI(baseURL: base, token: session.token, timeout: .seconds(60))
        gameID = try await api.createGame(CreateGameRequest(bundled: "green-light")).gameID
        replica = GameReplica(puzzle: puzzle, gameID: gameID, replicaID: session.deviceID, authorID: session.account.authorID)
    }

    /// Types one letter and sends it, with every move not yet acknowledged (a refused or failed
    /// push is sent again with the next); whether the server took them.
    func type(_ count: Int) async -> Bool {
        let squares = replica.puzzle.letterPositions
        let square = squares[count % squares.count]
        if let moves = try? replica.perform(
            .setLetter(square, count % 2 == 0 ? "A" : "B"), wallMillis: Int64(Date().timeIntervalSince1970 * 1000))
        {
            unsent += moves
        }
        guard let answer = try? await api.push(gameID: gameID, moves: unsent.map(MoveRecord.init)) else { return false }
        let saved = answer.results.filter { $0.status == .saved || $0.status == .duplicate }.map(\.seq)
        acknowledged.withLock { $0 += saved }
        unsent.removeAll { move in saved.contains(move.seq) }
        return unsent.isEmpty
    }

    /// The sequence numbers of this player's moves that `server` stores, each as often as stored.
    func stored(on server: ServerAPI) async throws -> [Int] {
        var stored: [Int] = []
        var token: ChangeToken?
        while true {
            let page = try await server.changes(gameID: gameID, since: token, limit: 1_000)
            for change in page.changes {
                if case let .move(move) = change.record, move.replicaID == replica.replicaID { stored.append(move.seq) }
            }
            token = page.token
            if !page.moreComing { return stored }
        }
    }

    /// Typists type until `stop` is raised.
    static func typing(_ typists: [Typist], until stop: StopFlag) -> [Task<Void, Never>] {
        typists.map { typist in
            Task {
                var count = 0
                while !stop.raised.load(ordering: .relaxed) {
                    _ = await typist.type(count)
                    count += 1
                }
            }
        }
    }
}

final class StopFlag: Sendable {
    let raised = Atomic(false)
}
