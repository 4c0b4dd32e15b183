import ArgumentParser
import AsyncHTTPClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// `crossmate-bench server`: a real `crossmate serve` process, N devices in games of four players
/// typing a few keys per second, each with its WebSocket; measures acknowledged moves per second,
/// keystroke-to-peer latency and server memory per connection.
struct ServerBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Load a real server with N devices in shared games of four and measure it."
    )

    @Option(help: "Connected devices (a multiple of 4 is best).")
    var devices = 100

    @Option(help: "Keys each device types per second.")
    var keysPerSecond = 2.0

    @Option(help: "Seconds of typing to measure (after everyone is connected).")
    var seconds = 20

    @Flag(help: "Every peer fetches on every poke (by default one observer per game fetches and measures; the others only receive pokes).")
    var allPeersFetch = false

    @Option(help: "PostgreSQL URL; without it the server uses an SQLite file in a temporary directory.")
    var postgres: String?

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crossmate-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try BenchServer(dataDirectory: directory, postgres: postgres)
        defer { server.stop() }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 512)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let api = API(http: http, base: "http://127.0.0.1:\(server.port)")
        let puzzle = try BundledPuzzles.puzzle("daybreak")

        // Accounts and games of four: the first of each four owns the game and invites the others.
        var sessions: [DeviceSession] = []
        var gameOf: [String] = []
        for start in stride(from: 0, to: devices, by: 4) {
            let owner: DeviceSession = try await api.call(.POST, "/v1/accounts", json: CreateAccountRequest(displayName: "Player \(start)"))
            let game: GameSummary = try await api.call(.POST, "/v1/games", token: owner.token, json: CreateGameRequest(bundled: "daybreak"))
            let invite: InvitationResponse = try await api.call(.POST, "/v1/games/\(game.gameID)/invitations", token: owner.token, json: CreateInvitationRequest())
            sessions.append(owner)
            gameOf.append(game.gameID)
            for index in (start + 1)..<min(start + 4, devices) {
                let player: DeviceSession = try await api.call(.POST, "/v1/accounts", json: CreateAccountRequest(displayName: "Player \(index)"))
                let _: GameSummary = try await api.call(.POST, "/v1/invitations/\(invite.token)/accept", token: player.token)
                sessions.append(player)
                gameOf.append(game.gameID)
            }
        }

        let rssBefore = server.residentKilobytes()
        let stats = Stats()
        let sockets = SocketFleet()
        for (index, session) in sessions.enumerated() {
            // The last device of each game of four is its observer.
            let observer = allPeersFetch || index % 4 == 3 || index == sessions.count - 1
            await sockets.open(port: server.port, session: session, gameID: gameOf[index], api: api, stats: stats, fetches: observer)
        }
        await sockets.waitUntilSubscribed(count: sessions.count)
        let rssAfter = server.residentKilobytes()

        // Typing: every device on its own schedule, moves pushed as they are made.
        let start = ContinuousClock.now
        let end = start + .seconds(seconds)
        let cpuBefore = server.cpuSeconds()
        let games = gameOf
        let keysPerSecond = keysPerSecond
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, session) in sessions.enumerated() {
                let gameID = games[index]
                group.addTask {
                    var replica = GameReplica(puzzle: puzzle, gameID: gameID, replicaID: session.deviceID, authorID: session.account.authorID)
                    var random = SeededRandomNumberGenerator(seed: UInt64(index) &+ 7)
                    let squares = puzzle.letterPositions
                    let interval = 1.0 / keysPerSecond
                    try await Task.sleep(for: .seconds(Double.random(in: 0..<interval, using: &random)))
                    while ContinuousClock.now < end {
                        let letter = String("ABCDEFGHIJKLMNOPRSTUWY".randomElement(using: &random)!)
                        let wall = Int64(Date().timeIntervalSince1970 * 1000)
                        guard let moves = try? replica.perform(.setLetter(squares.randomElement(using: &random)!, letter), physicalMillis: wall),
                              !moves.isEmpty else { continue }
                        for move in moves { stats.sent(move.id) }
                        let pushStart = ContinuousClock.now
                        do {
                            let response: PushMovesResponse = try await api.call(.POST, "/v1/games/\(gameID)/moves", token: session.token,
                                                                                 json: PushMovesRequest(moves: moves.map(MoveRecord.init)))
                            stats.acknowledged(response.results.filter { $0.status == .saved }.count, roundTrip: ContinuousClock.now - pushStart)
                        } catch {
                            stats.failed()
                        }
                        try await Task.sleep(for: .seconds(interval * Double.random(in: 0.5...1.5, using: &random)))
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - start
        let measured = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let serverCores = (server.cpuSeconds() - cpuBefore) / measured
        await sockets.closeAll()
        try await http.shutdown()

        let latencies = stats.latencies.sorted()
        var report = Report(title: "crossmate-bench server: \(devices) devices in games of 4, \(keysPerSecond) keys/s each, \(seconds) s, \(postgres == nil ? "SQLite" : "PostgreSQL"), \(allPeersFetch ? "every peer fetches" : "one observer per game fetches")")
        report.add("acksPerSecond", "acknowledged moves per second", Double(stats.acknowledgedCount) / measured, "moves/s")
        report.add("latencyP50Millis", "keystroke to peer, p50", percentile(latencies, 0.50), "ms")
        report.add("latencyP99Millis", "keystroke to peer, p99", percentile(latencies, 0.99), "ms")
        report.add("latencyMaxMillis", "keystroke to peer, max", latencies.last ?? 0, "ms")
        let pushes = stats.pushRoundTrips.sorted()
        report.add("pushRoundTripP50Millis", "push request round trip, p50", percentile(pushes, 0.50), "ms")
        report.add("pushRoundTripP99Millis", "push request round trip, p99", percentile(pushes, 0.99), "ms")
        report.add("memoryPerConnectionKB", "server memory per connected device", Double(max(0, rssAfter - rssBefore)) / Double(max(1, devices)), "KB")
        report.add("serverCoresBusy", "server CPU use while typing (cores of 2)", serverCores, "cores")
        report.add("failedPushes", "failed pushes", Double(stats.failedCount), "")
        report.print(json: json, extra: ["devices": devices, "storage": postgres == nil ? "sqlite" : "postgres",
                                         "latencySamples": latencies.count, "keysPerSecond": keysPerSecond, "seconds": seconds,
                                         "allPeersFetch": allPeersFetch])
    }
}

/// The HTTP API through AsyncHTTPClient.
struct API: Sendable {
    let http: HTTPClient
    let base: String

    func call<T: Decodable>(_ method: HTTPMethod, _ path: String, token: String? = nil, json: (some Encodable)? = Optional<String>.none) async throws -> T {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json { request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(json))) }
        let response = try await http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        guard (200..<300).contains(response.status.code) else {
            throw BenchFailure("\(method) \(path): \(response.status.code) \(String(buffer: body))")
        }
        return try JSONDecoder().decode(T.self, from: Data(buffer: body))
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Just the parts of a changes page the observer needs, so the load generator spends as little of
/// the shared CPU as it can on decoding.
struct ChangePage: Decodable {
    struct Change: Decodable {
        struct Record: Decodable {
            var replicaID: String?
            var seq: Int?
        }
        var type: String
        var record: Record
    }
    var changes: [Change]
    var token: ChangeToken
}

/// Send times of moves, and what peers saw.
final class Stats: Sendable {
    private let state = Mutex(State())
    struct State {
        var sentAt: [MoveID: ContinuousClock.Instant] = [:]
        var latencies: [Double] = []
        var acknowledged = 0
        var failed = 0
        var subscribed = 0
        var pushes: [Double] = []
    }

    func sent(_ id: MoveID) { state.withLock { $0.sentAt[id] = .now } }
    func acknowledged(_ count: Int, roundTrip: Duration) {
        let millis = Double(roundTrip.components.seconds) * 1000 + Double(roundTrip.components.attoseconds) / 1e15
        state.withLock {
            $0.acknowledged += count
            $0.pushes.append(millis)
        }
    }
    func failed() { state.withLock { $0.failed += 1 } }
    /// A peer now has the move: the time since it was sent.
    func seen(_ id: MoveID) {
        let now = ContinuousClock.now
        state.withLock {
            guard let sent = $0.sentAt[id] else { return }
            let elapsed = now - sent
            $0.latencies.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
    }
    var latencies: [Double] { state.withLock { $0.latencies } }
    var pushRoundTrips: [Double] { state.withLock { $0.pushes } }
    var acknowledgedCount: Int { state.withLock { $0.acknowledged } }
    var failedCount: Int { state.withLock { $0.failed } }
}

/// Every device's WebSocket: on a poke it fetches the game's changes and reports each move from
/// another device as seen.
actor SocketFleet {
    private var tasks: [Task<Void, Never>] = []
    private var subscribed = 0
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []
    private var closers: [AsyncStream<Void>.Continuation] = []

    func open(port: Int, session: DeviceSession, gameID: String, api: API, stats: Stats, fetches: Bool) {
        let (closed, closer) = AsyncStream.makeStream(of: Void.self)
        closers.append(closer)
        tasks.append(Task {
            _ = try? await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/v1/socket?token=\(session.token)", logger: Logger(label: "bench")) { inbound, outbound, _ in
                var token: ChangeToken?
                let subscribe = try JSONEncoder().encode(ClientSocketMessage.subscribe(games: [gameID]))
                try await outbound.write(.text(String(decoding: subscribe, as: UTF8.self)))
                try await outbound.write(.text(#"{"type":"ping"}"#))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await _ in closed {}
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case let .text(text) = message,
                              let parsed = try? JSONDecoder().decode(ServerSocketMessage.self, from: Data(text.utf8)) else { continue }
                        switch parsed {
                        case .pong:
                            await self.didSubscribe()
                        case let .poke(_, pokeToken) where fetches && pokeToken.sequence > (token?.sequence ?? 0):
                            // Fetch everything new; each move from another device is now with this peer.
                            let since = token.map { "?since=\($0.encoded)" } ?? ""
                            guard let page: ChangePage = try? await api.call(.GET, "/v1/games/\(gameID)/changes\(since)", token: session.token) else { continue }
                            token = page.token
                            for change in page.changes where change.type == "move" {
                                if let replica = change.record.replicaID, let seq = change.record.seq, replica != session.deviceID {
                                    stats.seen(MoveID(replicaID: replica, seq: seq))
                                }
                            }
                        default:
                            continue
                        }
                    }
                    group.cancelAll()
                }
            }
        })
    }

    private func didSubscribe() {
        subscribed += 1
        waiters.removeAll { count, continuation in
            guard subscribed >= count else { return false }
            continuation.resume()
            return true
        }
    }

    func waitUntilSubscribed(count: Int) async {
        if subscribed >= count { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }

    func closeAll() async {
        for closer in closers { closer.finish() }
        for task in tasks { await task.value }
    }
}

/// `crossmate serve` as a child process of the bench.
final class BenchServer: @unchecked Sendable {
    let process = Process()
    let port: Int

    init(dataDirectory: String, postgres: String?) throws {
        let executable = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("crossmate")
        guard FileManager.default.fileExists(atPath: executable.path) else {
            throw BenchFailure("build the server first: swift build -c release --product crossmate (looked for \(executable.path))")
        }
        process.executableURL = executable
        var arguments = ["serve", "--port", "0", "--data", dataDirectory, "--log-level", "error"]
        if let postgres { arguments += ["--postgres", postgres] }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var seen = ""
        while true {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw BenchFailure("the server exited: \(seen)") }
            seen += String(decoding: data, as: UTF8.self)
            if let range = seen.range(of: #"127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                port = Int(seen[range].dropFirst("127.0.0.1:".count).dropLast())!
                return
            }
        }
    }

    /// CPU seconds the server process has used (user + system), from /proc.
    func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, utime 14 and stime 15 (1-based in proc(5)).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / 100
    }

    /// Resident memory of the server process, from /proc.
    func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
