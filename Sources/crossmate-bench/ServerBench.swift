import ArgumentParser
import AsyncHTTPClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
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

    @Option(help: "PostgreSQL URL; without it the server uses an SQLite file in a temporary directory.")
    var postgres: String?

    @Option(help: "Threads the simulated devices run on (they share these event loops; one keeps the load generator to one core).")
    var clientThreads = 1

    @Flag(help: "Devices take relays: other devices' moves once ordered, before their commit (as `crossmate play` does).")
    var relays = false

    @Flag(help: "Devices are browsers: each opens its game (the server hosts its replica) and types commands; peers see updates.")
    var browsers = false

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @Option(help: "Write each delivery as a line 'sent-ms latency-ms' (time since typing began) to this file, to see when the tail happens.")
    var latencyLog: String?

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
            let invite: InvitationResponse = try await api.call(
                .POST, "/v1/games/\(game.gameID)/invitations", token: owner.token, json: CreateInvitationRequest())
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
        let fleet = Fleet()
        let deviceLoops = MultiThreadedEventLoopGroup(numberOfThreads: max(1, clientThreads))
        var channels: [any Channel] = []
        let typed = TypedSquares()
        for (index, session) in sessions.enumerated() {
            let setup = DeviceHandler.Setup(
                session: session, gameID: gameOf[index], puzzle: puzzle, seed: UInt64(index) &+ 7,
                keysPerSecond: keysPerSecond, api: api, stats: stats, fleet: fleet, relays: relays)
            if browsers {
                channels.append(
                    try await DeviceConnection.open(host: "127.0.0.1", port: server.port, group: deviceLoops, token: session.token) {
                        BrowserDeviceHandler(setup, typed: typed)
                    })
            } else {
                channels.append(try await DeviceConnection.open(host: "127.0.0.1", port: server.port, group: deviceLoops, setup: setup))
            }
        }
        await fleet.waitUntilReady(sessions.count)
        let rssAfter = server.residentKilobytes()

        // Typing: every device on its own schedule until the end, then a moment for the last
        // pushes and pokes to land.
        let start = ContinuousClock.now
        let startWall = Date().timeIntervalSince1970
        stats.begin(at: start)
        let commitsBefore = try await api.commits()
        let cpuBefore = server.cpuSeconds()
        let benchCPUBefore = BenchServer.cpuSeconds(pid: ProcessInfo.processInfo.processIdentifier)
        fleet.start(until: .now() + .seconds(Int64(seconds)))
        try await Task.sleep(for: .seconds(seconds))
        let elapsed = ContinuousClock.now - start
        let measured = elapsed.inSeconds
        let serverCores = (server.cpuSeconds() - cpuBefore) / measured
        let benchCores = (BenchServer.cpuSeconds(pid: ProcessInfo.processInfo.processIdentifier) - benchCPUBefore) / measured
        let commits = try await api.commits() - commitsBefore
        try await Task.sleep(for: .seconds(2))
        for channel in channels { try? await channel.close() }
        try await http.shutdown()
        try await deviceLoops.shutdownGracefully()

        let totals = stats.snapshot
        if let latencyLog {
            let lines = zip(totals.sentMillis, totals.latencies).map { String(format: "%.3f %.3f\n", $0, $1) }
            try (String(format: "# typing began at %.3f (Unix seconds)\n", startWall) + lines.joined())
                .write(toFile: latencyLog, atomically: true, encoding: .utf8)
        }
        let latencies = totals.latencies.sorted()
        var report = Report(
            title:
                "crossmate-bench server: \(devices) devices in games of 4, \(keysPerSecond) keys/s each, \(seconds) s, \(postgres == nil ? "SQLite" : "PostgreSQL")\(relays ? ", relays" : "")\(browsers ? ", browsers" : "")"
        )
        report.add("acksPerSecond", "acknowledged moves per second", Double(totals.acknowledged) / measured, "moves/s")
        report.add("latencyP50Millis", "keystroke to peer, p50", percentile(latencies, 0.50), "ms")
        report.add("latencyP99Millis", "keystroke to peer, p99", percentile(latencies, 0.99), "ms")
        report.add("latencyMaxMillis", "keystroke to peer, max", latencies.last ?? 0, "ms")
        let pushes = totals.pushes.sorted()
        report.add("pushRoundTripP50Millis", "push round trip, p50", percentile(pushes, 0.50), "ms")
        report.add("pushRoundTripP99Millis", "push round trip, p99", percentile(pushes, 0.99), "ms")
        let pokes = Double(max(1, totals.inlinePokes + totals.fetches))
        report.add("inlineShare", "pokes taken inline (no fetch)", Double(totals.inlinePokes) / pokes, "")
        report.add(
            "memoryPerConnectionKB", "server memory per connected device", Double(max(0, rssAfter - rssBefore)) / Double(max(1, devices)), "KB")
        report.add("serverCoresBusy", "server CPU use while typing (cores of 2)", serverCores, "cores")
        report.add("loadGeneratorCoresBusy", "load generator CPU use (same 2 cores)", benchCores, "cores")
        // Server CPU per acknowledged keystroke, and per poke a peer received (a keystroke is
        // told to the game's other three devices).
        report.add(
            "serverMicrosPerKeystroke", "server CPU per keystroke", serverCores * 1_000_000 / max(1, Double(totals.acknowledged) / measured), "µs")
        report.add("serverMicrosPerDelivery", "server CPU per delivery to a peer", serverCores * 1_000_000 / (pokes / measured), "µs")
        // How the group commits went (the server's own `/metrics`): how often the disk was
        // synced for moves, and how many pushes each sync carried.
        report.add("commitsPerSecond", "group commits of moves a second", Double(commits.count) / measured, "/s")
        report.add("pushesPerCommit", "pushes a group commit carried, mean", commits.batches / Double(max(1, commits.count)), "")
        report.add("failedPushes", "failed pushes", Double(totals.failed), "")
        report.print(
            json: json,
            extra: [
                "devices": devices, "storage": postgres == nil ? "sqlite" : "postgres", "clientThreads": clientThreads,
                "latencySamples": latencies.count, "keysPerSecond": keysPerSecond, "seconds": seconds,
                "fetches": totals.fetches, "inlinePokes": totals.inlinePokes, "relays": relays, "browsers": browsers,
            ])
    }
}

/// The HTTP API through AsyncHTTPClient.
struct API: Sendable {
    let http: HTTPClient
    let base: String

    func call<T: Decodable>(
        _ method: HTTPMethod, _ path: String, token: String? = nil, json: (some Encodable)? = Optional<String>.none
    ) async throws -> T {
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

/// The server's group commits of moves so far, as its `/metrics` counts them.
struct CommitCounts {
    var count: Double
    var batches: Double

    static func - (after: CommitCounts, before: CommitCounts) -> CommitCounts {
        CommitCounts(count: after.count - before.count, batches: after.batches - before.batches)
    }
}

extension API {
    /// Reads the group commits of moves from `/metrics` (Prometheus text: the count and sum of
    /// `crossmate_commit_batches`, kept with either database).
    func commits() async throws -> CommitCounts {
        let response = try await http.execute(HTTPClientRequest(url: base + "/metrics"), timeout: .seconds(30))
        let text = String(buffer: try await response.body.collect(upTo: 4 << 20))
        func value(_ name: String) -> Double {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        }
        return CommitCounts(count: value("crossmate_commit_batches_count"), batches: value("crossmate_commit_batches_sum"))
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Just the parts of a changes page or poke a device needs, so the load generator spends as
/// little of the shared CPU as it can on decoding.
struct LeanChange: Decodable, Sendable {
    struct Record: Decodable, Sendable {
        var replicaID: String?
        var seq: Int?
    }
    var sequence: Int64
    var type: String
    var record: Record
}

struct LeanPage: Decodable, Sendable {
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
        /// When each of `latencies` was sent, in milliseconds since typing began.
        var sentMillis: [Double] = []
        var began: ContinuousClock.Instant?
        var acknowledged = 0
        var failed = 0
        var pushes: [Double] = []
        var inlinePokes = 0
        var fetches = 0
    }

    func begin(at instant: ContinuousClock.Instant) { state.withLock { $0.began = instant } }
    func sent(_ id: MoveID) { state.withLock { $0.sentAt[id] = .now } }
    func acknowledged(_ count: Int, roundTrip: Duration) {
        state.withLock {
            $0.acknowledged += count
            $0.pushes.append(roundTrip.inSeconds * 1000)
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
            $0.latencies.append((now - sent).inSeconds * 1000)
            $0.sentMillis.append($0.began.map { (sent - $0).inSeconds * 1000 } ?? 0)
        }
    }
    var snapshot: State { state.withLock { $0 } }
}

/// `crossmate serve` as a child process of the bench.
final class BenchServer: @unchecked Sendable {
    let process = Process()
    let port: Int

    init(dataDirectory: String, postgres: String?, environment: [String: String] = [:]) throws {
        // CROSSMATE_BIN runs another build's server under this bench (an older one, to compare).
        let executable =
            ProcessInfo.processInfo.environment["CROSSMATE_BIN"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("crossmate")
        guard FileManager.default.fileExists(atPath: executable.path) else {
            throw BenchFailure("build the server first: swift build -c release --product crossmate (looked for \(executable.path))")
        }
        process.executableURL = executable
        var arguments = ["serve", "--port", "0", "--data", dataDirectory, "--log-level", "error"]
        if let postgres { arguments += ["--postgres", postgres] }
        process.arguments = arguments
        // Every simulated device is a new account from 127.0.0.1: lift the per-address limit.
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["CROSSMATE_ACCOUNT_RATE_LIMIT_BURST": "1000000"].merging(environment) { $1 }
        ) { _, bench in bench }
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
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, utime 14 and stime 15 (1-based in proc(5)).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / 100
    }

    /// Resident memory of the server process, from /proc.
    func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    /// Stops the server: SIGTERM, and SIGKILL if it has not exited within five seconds (an
    /// older build under a flood could take minutes to drain what it had queued).
    func stop() {
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
