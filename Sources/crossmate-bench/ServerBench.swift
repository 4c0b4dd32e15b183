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

    enum Transport: String, ExpressibleByArgument, CaseIterable {
        case socket, http
    }

    @Option(help: "How devices push moves: over their WebSocket (socket) or POST /v1/games/{id}/moves on a keep-alive connection (http).")
    var transport = Transport.socket

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
        let cursors = sessions.map { _ in ZoneCursor() }
        let links = sessions.map { _ in SocketLink() }
        for (index, session) in sessions.enumerated() {
            await sockets.open(port: server.port, session: session, gameID: gameOf[index], cursor: cursors[index], link: links[index], api: api, stats: stats)
        }
        await sockets.waitUntilSubscribed(count: sessions.count)
        var connections: [LeanConnection] = []
        if transport == .http {
            for _ in sessions { connections.append(try await LeanConnection.connect(host: "127.0.0.1", port: server.port)) }
        }
        let transport = transport
        let rssAfter = server.residentKilobytes()

        // Typing: every device on its own schedule, moves pushed as they are made.
        let start = ContinuousClock.now
        let end = start + .seconds(seconds)
        let cpuBefore = server.cpuSeconds()
        let benchCPUBefore = BenchServer.cpuSeconds(pid: ProcessInfo.processInfo.processIdentifier)
        let games = gameOf
        let keysPerSecond = keysPerSecond
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, session) in sessions.enumerated() {
                let gameID = games[index]
                let cursor = cursors[index]
                let connection = connections.isEmpty ? nil : connections[index]
                let link = links[index]
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
                            let answer: JSONScan
                            if transport == .http, let connection {
                                let body = ByteBuffer(bytes: try JSONEncoder().encode(PushMovesRequest(moves: moves.map(MoveRecord.init))))
                                let response = try await connection.send(.POST, "/v1/games/\(gameID)/moves", token: session.token, body: body)
                                guard response.status == 200 else { throw BenchFailure("push: \(response.status) \(String(buffer: response.body))") }
                                answer = JSONScan(response.body)
                            } else {
                                answer = try await link.push(gameID: gameID, moves: moves.map(MoveRecord.init))
                            }
                            // Only saved results carry a zone sequence.
                            let saved = answer.integers("sequence")
                            cursor.ownSaved(saved)
                            stats.acknowledged(saved.count, roundTrip: ContinuousClock.now - pushStart)
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
        let benchCores = (BenchServer.cpuSeconds(pid: ProcessInfo.processInfo.processIdentifier) - benchCPUBefore) / measured
        for connection in connections { await connection.close() }
        await sockets.closeAll()
        try await http.shutdown()

        let totals = stats.snapshot
        let latencies = totals.latencies.sorted()
        var report = Report(title: "crossmate-bench server: \(devices) devices in games of 4, \(keysPerSecond) keys/s each, \(seconds) s, \(postgres == nil ? "SQLite" : "PostgreSQL"), pushes over \(transport == .socket ? "the WebSocket" : "HTTP")")
        report.add("acksPerSecond", "acknowledged moves per second", Double(totals.acknowledged) / measured, "moves/s")
        report.add("latencyP50Millis", "keystroke to peer, p50", percentile(latencies, 0.50), "ms")
        report.add("latencyP99Millis", "keystroke to peer, p99", percentile(latencies, 0.99), "ms")
        report.add("latencyMaxMillis", "keystroke to peer, max", latencies.last ?? 0, "ms")
        let pushes = totals.pushes.sorted()
        report.add("pushRoundTripP50Millis", "push round trip, p50", percentile(pushes, 0.50), "ms")
        report.add("pushRoundTripP99Millis", "push round trip, p99", percentile(pushes, 0.99), "ms")
        let pokes = Double(max(1, totals.inlinePokes + totals.fetches))
        report.add("inlineShare", "pokes taken inline (no fetch)", Double(totals.inlinePokes) / pokes, "")
        report.add("memoryPerConnectionKB", "server memory per connected device", Double(max(0, rssAfter - rssBefore)) / Double(max(1, devices)), "KB")
        report.add("serverCoresBusy", "server CPU use while typing (cores of 2)", serverCores, "cores")
        report.add("loadGeneratorCoresBusy", "load generator CPU use (same 2 cores)", benchCores, "cores")
        report.add("failedPushes", "failed pushes", Double(totals.failed), "")
        report.print(json: json, extra: ["devices": devices, "storage": postgres == nil ? "sqlite" : "postgres",
                                         "latencySamples": latencies.count, "keysPerSecond": keysPerSecond, "seconds": seconds,
                                         "fetches": totals.fetches, "inlinePokes": totals.inlinePokes, "transport": transport.rawValue])
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

/// Just the parts of a changes page or poke a device needs, so the load generator spends as
/// little of the shared CPU as it can on decoding.
struct LeanChange: Decodable {
    struct Record: Decodable {
        var replicaID: String?
        var seq: Int?
    }
    var sequence: Int64
    var type: String
    var record: Record
}

struct LeanPage: Decodable {
    var changes: [LeanChange]
    var token: ChangeToken
    var moreComing: Bool
}

/// Send times of moves, and what peers saw.
final class Stats: Sendable {
    private let state = Mutex(State())
    struct State {
        var sentAt: [MoveID: ContinuousClock.Instant] = [:]
        var latencies: [Double] = []
        var acknowledged = 0
        var failed = 0
        var pushes: [Double] = []
        var inlinePokes = 0
        var fetches = 0
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
    func fetched() { state.withLock { $0.fetches += 1 } }
    func appliedInline() { state.withLock { $0.inlinePokes += 1 } }
    /// A peer now has the move: the time since it was sent.
    func seen(_ id: MoveID) {
        let now = ContinuousClock.now
        state.withLock {
            guard let sent = $0.sentAt[id] else { return }
            let elapsed = now - sent
            $0.latencies.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
    }
    var snapshot: State { state.withLock { $0 } }
}

/// What one device knows of its game's zone: the token it has read through, and the sequences
/// its own saved moves took (from push results), which it need not read again.
final class ZoneCursor: Sendable {
    private let state = Mutex((token: Int64(0), own: Set<Int64>()))

    func ownSaved(_ sequences: some Sequence<Int64>) { state.withLock { $0.own.formUnion(sequences) } }

    /// Takes inline changes that start where this device's reading ends (skipping over its own
    /// moves), returning the token it had; `nil` when there is a gap to fetch.
    func takeInline(after: Int64, through token: Int64) -> Int64? {
        state.withLock { state in
            while state.own.remove(state.token + 1) != nil { state.token += 1 }
            guard state.token >= after else { return nil }
            let had = state.token
            state.token = max(state.token, token)
            return had
        }
    }

    func isBehind(_ token: Int64) -> Bool { state.withLock { $0.token < token } }
    var token: Int64 { state.withLock { $0.token } }
    func read(through token: Int64) { state.withLock { $0.token = max($0.token, token) } }
}

/// Every device's WebSocket: a poke whose inline changes follow on from what the device has is
/// applied as it is; otherwise the device fetches the changes after its token. Each move from
/// another device is reported as seen when it arrives either way.
actor SocketFleet {
    private var tasks: [Task<Void, Never>] = []
    private var subscribed = 0
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []
    private var closers: [AsyncStream<Void>.Continuation] = []

    func open(port: Int, session: DeviceSession, gameID: String, cursor: ZoneCursor, link: SocketLink, api: API, stats: Stats) {
        let (closed, closer) = AsyncStream.makeStream(of: Void.self)
        closers.append(closer)
        let deviceID = session.deviceID
        @Sendable func report(_ changes: [LeanChange]) {
            for change in changes where change.type == "move" {
                if let replica = change.record.replicaID, let seq = change.record.seq, replica != deviceID {
                    stats.seen(MoveID(replicaID: replica, seq: seq))
                }
            }
        }
        @Sendable func fetch() async {
            while true {
                stats.fetched()
                let since = ChangeToken(zone: gameID, sequence: cursor.token).encoded
                guard let page: LeanPage = try? await api.call(.GET, "/v1/games/\(gameID)/changes?since=\(since)", token: session.token) else { return }
                report(page.changes)
                cursor.read(through: page.token.sequence)
                if !page.moreComing { return }
            }
        }
        tasks.append(Task {
            _ = try? await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/v1/socket?token=\(session.token)", logger: Logger(label: "bench")) { inbound, outbound, _ in
                link.attach(outbound)
                defer { link.detach() }
                let subscribe = try JSONEncoder().encode(ClientSocketMessage.subscribe(games: [gameID]))
                try await outbound.write(.text(String(decoding: subscribe, as: UTF8.self)))
                try await outbound.write(.text(#"{"type":"ping"}"#))
                await fetch()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await _ in closed {}
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case let .text(text) = message else { continue }
                        let scan = JSONScan(text)
                        if scan.contains(#""type":"pushed""#) || scan.contains(#""type":"pushFailed""#) {
                            if let id = scan.integers("id").first { link.answered(Int(id), scan) }
                            continue
                        }
                        if scan.contains(#""type":"pong""#) {
                            await self.didSubscribe()
                            continue
                        }
                        guard scan.contains(#""type":"poke""#),
                              let token = scan.strings("token").first.flatMap(ChangeToken.init(encoded:))?.sequence else { continue }
                        if let after = scan.strings("after").first.flatMap(ChangeToken.init(encoded:))?.sequence,
                           let had = cursor.takeInline(after: after, through: token) {
                            stats.appliedInline()
                            let changes = zip(scan.integers("sequence"), zip(scan.strings("replicaID"), scan.integers("seq"))).map {
                                LeanChange(sequence: $0, type: "move", record: .init(replicaID: $1.0, seq: Int($1.1)))
                            }
                            report(changes.filter { $0.sequence > had })
                        } else if cursor.isBehind(token) {
                            await fetch()
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

/// A device's pushes over its WebSocket: each goes out with an id and waits for the `pushed`
/// (or `pushFailed`) that names it.
final class SocketLink: Sendable {
    private struct State {
        var outbound: WebSocketOutboundWriter?
        var nextID = 0
        var waiting: [Int: CheckedContinuation<JSONScan, any Error>] = [:]
        /// Answers that arrived before their push started waiting.
        var early: [Int: JSONScan] = [:]
    }
    private let state = Mutex(State())

    func attach(_ outbound: WebSocketOutboundWriter) { state.withLock { $0.outbound = outbound } }

    func detach() {
        let waiting = state.withLock { state in
            state.outbound = nil
            defer { state.waiting = [:] }
            return state.waiting
        }
        for continuation in waiting.values { continuation.resume(throwing: BenchFailure("the socket closed")) }
    }

    func push(gameID: String, moves: [MoveRecord]) async throws -> JSONScan {
        let (outbound, id) = state.withLock { state in
            state.nextID += 1
            return (state.outbound, state.nextID)
        }
        guard let outbound else { throw BenchFailure("the socket is not open") }
        let text = String(decoding: try JSONEncoder().encode(ClientSocketMessage.push(gameID: gameID, id: id, moves: moves)), as: UTF8.self)
        try await outbound.write(.text(text))
        let answer = try await withCheckedThrowingContinuation { continuation in
            state.withLock { state in
                if let early = state.early.removeValue(forKey: id) {
                    continuation.resume(returning: early)
                } else {
                    state.waiting[id] = continuation
                }
            }
        }
        guard answer.contains(#""type":"pushed""#) else { throw BenchFailure("push refused: \(String(decoding: answer.bytes, as: UTF8.self))") }
        return answer
    }

    func answered(_ id: Int, _ answer: JSONScan) {
        state.withLock { state in
            if let waiting = state.waiting.removeValue(forKey: id) {
                waiting.resume(returning: answer)
            } else {
                state.early[id] = answer
            }
        }
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
    func cpuSeconds() -> Double { Self.cpuSeconds(pid: process.processIdentifier) }

    static func cpuSeconds(pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
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
