import CrossmateTestSupport
import Foundation
import NIOCore
import NIOPosix
import Testing

/// What an operator meets starting `crossmate serve` on PostgreSQL: a database that cannot be
/// used is one sentence naming the cause within seconds (not a minute of retries and a pool's
/// error type), and a stop while it waits for the database is honoured at once.
@Suite(.startsProcesses) struct OperatorTests {
    static let postgres = ProcessInfo.processInfo.environment["CROSSMATE_TEST_POSTGRES_URL"]

    /// The test database's URL with another database name or user.
    static func variant(database: String? = nil, user: String? = nil) -> String {
        var url = postgres!
        if let database { url = String(url[..<url.lastIndex(of: "/")!]) + "/" + database }
        if let user { url = url.replacingOccurrences(of: "://postgres@", with: "://\(user)@") }
        return url
    }

    @Test(.enabled(if: postgres != nil))
    func aDatabaseThatCannotBeUsedIsOneSentenceWithinSeconds() throws {
        let cases: [(url: String, says: String)] = [
            (Self.variant(database: "no_such_database"), "\"no_such_database\" does not exist: create it"),
            (Self.variant(user: "nobody_here"), "refused the login"),
            ("postgres://postgres@127.0.0.1:1/crossmate", "refuses connections at that address"),
        ]
        for (url, says) in cases {
            let started = ContinuousClock.now
            let (status, message) = try ServerProcess.refusal(["--port", "0", "--postgres", url])
            let took = ContinuousClock.now - started
            #expect(status == 1, "\(url)")
            #expect(took < .seconds(8), "\(url) took \(took)")
            let errors = message.split(separator: "\n").filter { $0.hasPrefix("Error:") }
            #expect(errors.count == 1 && errors[0].contains(says), "\(url): \(message)")
            #expect(!message.contains("Generic description") && !message.contains("ConnectionPoolError"), "\(message)")
            // Nothing but its start, its question, its stop and the one error: no retries, no pool.
            let expected = ["starting:", "asking PostgreSQL", "stopping:", "stopped:", "Error:"]
            let others = message.split(separator: "\n").filter { line in !expected.contains { line.contains($0) } }
            #expect(others.isEmpty, "\(url) said more than its start, its stop and one error: \(others)")
        }
    }

    @Test func aStopWhileWaitingForTheDatabaseIsHonouredAtOnce() async throws {
        // A "database" that takes the connection and never says a word.
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { _ in MultiThreadedEventLoopGroup.singleton.any().makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { silent.close(promise: nil) }
        let port = silent.localAddress!.port!
        let process = Process()
        process.executableURL = ServerProcess.executable
        process.arguments = ["serve", "--port", "0", "--postgres", "postgres://postgres@127.0.0.1:\(port)/crossmate", "--log-level", "info"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // It says when it starts waiting for the database (its signal handlers are in place by then).
        var said = ""
        while !said.contains("asking PostgreSQL") {
            let data = errors.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            said += String(decoding: data, as: UTF8.self)
        }
        let stopping = ContinuousClock.now
        process.terminate()
        process.waitUntilExit()
        let rest = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(ContinuousClock.now - stopping < .seconds(2), "SIGTERM took \(ContinuousClock.now - stopping)")
        #expect(process.terminationStatus == 0, "\(said)\(rest)")
        #expect(rest.contains("stopped before serving"), "\(rest)")
    }
}
