import ArgumentParser
import CrossmateProtocol
import CrossmateServer
import CrossmateStore
import Foundation
import Hummingbird
import Logging
import NIOCore

/// `crossmate serve`: the sync server.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the Crossmate sync server.",
        discussion: """
            Stores data in an SQLite file under --data (default \(ServerConfiguration.defaultDataDirectory)), or in \
            PostgreSQL with --postgres. Every option can also come from the environment: CROSSMATE_HOST, \
            CROSSMATE_PORT, CROSSMATE_DATA, CROSSMATE_POSTGRES_URL, CROSSMATE_LOG_LEVEL, CROSSMATE_EVENT_LOOPS, CROSSMATE_PUBLIC_URL, \
            CROSSMATE_TRUSTED_PROXIES, CROSSMATE_SIGNUPS; and the per-device rate \
            limit by CROSSMATE_RATE_LIMIT_BURST (default 120 requests) and CROSSMATE_RATE_LIMIT_PER_SECOND (default 60); \
            new accounts and device links per client address by CROSSMATE_ACCOUNT_RATE_LIMIT_BURST (default 10) and \
            CROSSMATE_ACCOUNT_RATE_LIMIT_PER_SECOND (default 0.1); how long a request may take to arrive by \
            CROSSMATE_REQUEST_TIMEOUT_SECONDS (default 10) and an idle connection may stay open by \
            CROSSMATE_IDLE_TIMEOUT_SECONDS (default 75); the least time between two group commits of moves by \
            CROSSMATE_COMMIT_INTERVAL_MS (default 0: commit as soon as the last commit ends); and how long a group commit \
            waits for more pushes to share its fsync, with SQLite, at most, by CROSSMATE_COMMIT_WINDOW_MS (default 10; moves \
            are relayed to other screens before it, and only their acknowledgement waits), and whether it waits only while \
            more pushes are on their way, so that a lone keystroke commits at once (CROSSMATE_COMMIT_WINDOW=adaptive, the \
            default), or the whole window (fixed).
            """
    )

    @Option(help: "Address to listen on (env CROSSMATE_HOST).")
    var host: String?

    @Option(help: "Port to listen on, 0 for any free port (env CROSSMATE_PORT).")
    var port: Int?

    @Option(help: "Directory for the SQLite database (env CROSSMATE_DATA).")
    var data: String?

    @Option(help: "PostgreSQL URL, e.g. postgres://user:pass@localhost:5432/crossmate (env CROSSMATE_POSTGRES_URL).")
    var postgres: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error (env CROSSMATE_LOG_LEVEL).")
    var logLevel: String?

    @Option(help: "Threads for network I/O (env CROSSMATE_EVENT_LOOPS); default half the cores, at least one.")
    var eventLoops: Int?

    @Option(
        help: ArgumentHelp(
            "Where players reach this server, e.g. https://crossmate.example.org behind a reverse proxy; invitation links carry it (env CROSSMATE_PUBLIC_URL).",
            valueName: "url"))
    var publicURL: String?

    @Option(
        help: ArgumentHelp(
            "The address of a reverse proxy whose X-Forwarded-For names the client, for the limits kept per address; repeat for several (env CROSSMATE_TRUSTED_PROXIES, comma-separated).",
            valueName: "address"))
    var trustedProxy: [String] = []

    @Option(
        help: ArgumentHelp(
            "Who may make an account: open (anyone), invite (only through an invitation link; other devices join by a link code) or closed (no one new) (env CROSSMATE_SIGNUPS).",
            valueName: "open|invite|closed"))
    var signups: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        // Before anything starts the process's event loops. Swift's task pool already has a thread
        // per core; as many event loop threads again left two threads to a core, and on two cores
        // one event loop thread served 2,000 sockets with less CPU and a third less tail latency.
        if let loopsText = eventLoops.map(String.init) ?? environment["CROSSMATE_EVENT_LOOPS"] {
            guard let loops = Int(loopsText), (1...256).contains(loops) else {
                throw ValidationError("the number of event loops must be 1 to 256, not \(loopsText)")
            }
            NIOSingletons.groupLoopCountSuggestion = loops
        } else if environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] == nil {
            NIOSingletons.groupLoopCountSuggestion = max(1, System.coreCount / 2)
        }
        let postgresURL = postgres ?? environment["CROSSMATE_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        var configuration = ServerConfiguration(
            storage: postgresURL.map { .postgres(url: $0) } ?? .sqlite(path: ServerConfiguration.sqlitePath(dataDirectory: data)))
        configuration.host = host ?? environment["CROSSMATE_HOST"] ?? "127.0.0.1"
        let portText = port.map(String.init) ?? environment["CROSSMATE_PORT"] ?? "8080"
        guard let portNumber = Int(portText), (0...65535).contains(portNumber) else {
            throw ValidationError("the port must be 0 to 65535, not \(portText)")
        }
        configuration.port = portNumber
        if let text = publicURL ?? environment["CROSSMATE_PUBLIC_URL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            do { configuration.publicURL = try ServerConfiguration.validatedPublicURL(text) } catch { throw ValidationError(error.description) }
        }
        if let text = signups ?? environment["CROSSMATE_SIGNUPS"].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard let chosen = Signups(rawValue: text.lowercased()) else {
                throw ValidationError("sign-ups are open, invite or closed, not \(text)")
            }
            configuration.signups = chosen
        }
        let proxies = trustedProxy.isEmpty ? (environment["CROSSMATE_TRUSTED_PROXIES"] ?? "").split(separator: ",").map(String.init) : trustedProxy
        for proxy in proxies.map({ $0.trimmingCharacters(in: .whitespaces) }) where !proxy.isEmpty {
            guard (try? SocketAddress(ipAddress: proxy, port: 0)) != nil else {
                throw ValidationError("a trusted proxy is an IP address such as 127.0.0.1 or ::1, not \(proxy)")
            }
            configuration.trustedProxies.insert(proxy)
        }
        func positive(_ name: String) throws -> Double? {
            guard let text = environment[name] else { return nil }
            guard let value = Double(text), value > 0 else { throw ValidationError("\(name) must be a positive number, not \(text)") }
            return value
        }
        configuration.rateLimitBurst = try positive("CROSSMATE_RATE_LIMIT_BURST") ?? configuration.rateLimitBurst
        configuration.rateLimitPerSecond = try positive("CROSSMATE_RATE_LIMIT_PER_SECOND") ?? configuration.rateLimitPerSecond
        configuration.accountRateLimitBurst = try positive("CROSSMATE_ACCOUNT_RATE_LIMIT_BURST") ?? configuration.accountRateLimitBurst
        configuration.accountRateLimitPerSecond = try positive("CROSSMATE_ACCOUNT_RATE_LIMIT_PER_SECOND") ?? configuration.accountRateLimitPerSecond
        if let text = environment["CROSSMATE_BROWSER_REPLICA_GRACE_SECONDS"] {
            guard let seconds = Int64(text), (0...86_400).contains(seconds) else {
                throw ValidationError("CROSSMATE_BROWSER_REPLICA_GRACE_SECONDS must be 0 to 86400, not \(text)")
            }
            configuration.browserReplicaGraceMillis = seconds * 1000
        }
        func commitMilliseconds(_ name: String) throws -> Duration? {
            guard let text = environment[name] else { return nil }
            guard let millis = Double(text), (0...100).contains(millis) else {
                throw ValidationError("\(name) must be 0 to 100 (milliseconds), not \(text)")
            }
            return .microseconds(Int64(millis * 1000))
        }
        configuration.commitInterval = try commitMilliseconds("CROSSMATE_COMMIT_INTERVAL_MS") ?? configuration.commitInterval
        let windowMaximum = try commitMilliseconds("CROSSMATE_COMMIT_WINDOW_MS") ?? configuration.commitWindow.maximum
        switch environment["CROSSMATE_COMMIT_WINDOW"] ?? "adaptive" {
        case "adaptive": configuration.commitWindow = .adaptive(maximum: windowMaximum)
        case "fixed": configuration.commitWindow = .fixed(windowMaximum)
        case let other:
            throw ValidationError(
                "CROSSMATE_COMMIT_WINDOW is adaptive (a commit waits only while more pushes are on their way) or fixed (it waits the whole CROSSMATE_COMMIT_WINDOW_MS), not \(other)"
            )
        }
        // For crash tests, with SQLite (not listed in the help): see `ServerConfiguration.holdGroupCommit`.
        if let text = environment["CROSSMATE_TEST_HOLD_GROUP_COMMIT"] {
            guard let number = Int(text), number >= 1 else {
                throw ValidationError("CROSSMATE_TEST_HOLD_GROUP_COMMIT is a group commit's number, 1 or more, not \(text)")
            }
            configuration.holdGroupCommit = number
        }
        // For crash tests: see `ServerConfiguration.commitNotices`.
        if environment["CROSSMATE_TEST_NO_COMMIT_NOTICES"] == "1" { configuration.commitNotices = false }
        if environment["CROSSMATE_PUSH_ALLOW_LOOPBACK"] == "1" { configuration.pushAllowLoopback = true }
        // For tests (not listed in the help): see `ServerConfiguration.browserHiddenGraceMillis`.
        if let text = environment["CROSSMATE_TEST_BROWSER_HIDDEN_GRACE_MS"] {
            guard let millis = Int64(text), (0...600_000).contains(millis) else {
                throw ValidationError("CROSSMATE_TEST_BROWSER_HIDDEN_GRACE_MS is 0 to 600000 (milliseconds), not \(text)")
            }
            configuration.browserHiddenGraceMillis = millis
        }
        // For tests (not listed in the help): see `ServerConfiguration.snapshotInterval`.
        if let text = environment["CROSSMATE_TEST_SNAPSHOT_EVERY"] {
            guard let moves = Int(text), (1...10_000).contains(moves) else {
                throw ValidationError("CROSSMATE_TEST_SNAPSHOT_EVERY is 1 to 10000 (moves), not \(text)")
            }
            configuration.snapshotInterval = moves
        }
        // For tests (not listed in the help): see `ServerConfiguration.pushMovesWindowMillis`.
        if let text = environment["CROSSMATE_TEST_PUSH_MOVES_WINDOW_MS"] {
            guard let millis = Int64(text), (1...600_000).contains(millis) else {
                throw ValidationError("CROSSMATE_TEST_PUSH_MOVES_WINDOW_MS is 1 to 600000 (milliseconds), not \(text)")
            }
            configuration.pushMovesWindowMillis = millis
        }
        // For tests (not listed in the help): see `ServerConfiguration.viewersEvery`.
        if let text = environment["CROSSMATE_TEST_VIEWERS_EVERY_MS"] {
            guard let millis = Int64(text), (100...600_000).contains(millis) else {
                throw ValidationError("CROSSMATE_TEST_VIEWERS_EVERY_MS is 100 to 600000 (milliseconds), not \(text)")
            }
            configuration.viewersEvery = .milliseconds(millis)
        }
        // How long a client may take over a request's head and between requests (seconds).
        if let seconds = try positive("CROSSMATE_REQUEST_TIMEOUT_SECONDS") {
            configuration.httpLimits.headTimeout = .milliseconds(Int64(seconds * 1000))
            configuration.httpLimits.bodyTimeout = .milliseconds(Int64(seconds * 1000))
        }
        if let seconds = try positive("CROSSMATE_IDLE_TIMEOUT_SECONDS") {
            configuration.httpLimits.idleTimeout = .milliseconds(Int64(seconds * 1000))
        }
        if let level = logLevel ?? environment["CROSSMATE_LOG_LEVEL"] {
            guard let parsed = Logger.Level(rawValue: level) else { throw ValidationError("unknown log level \(level)") }
            configuration.logLevel = parsed
        }
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        do {
            let app = try buildApplication(configuration)
            try await app.runService()
        } catch let stopped as StoppedBeforeServing {
            FileHandle.standardError.write(Data("crossmate: \(stopped)\n".utf8))
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            FileHandle.standardError.write(
                Data(
                    "crossmate: cannot listen on \(configuration.host):\(configuration.port): the address is already in use; stop the other server or pick another --port\n"
                        .utf8))
            throw ExitCode(1)
        }
    }
}
