import CrossmateTestSupport
import Foundation
import Glibc
import Testing

/// The real server process over a raw socket: requests no HTTP client would send are answered
/// (400, 414, 431) and the connection closed; clients that send too slowly, or nothing, are
/// closed too. Before, each of these got no answer and held its connection open.
@Suite(.startsProcesses, .serialized) struct HTTPHygieneTests {
    /// One TCP connection to the server, written and read by hand.
    final class RawConnection {
        private let descriptor: Int32

        init(port: Int) throws {
            descriptor = try StalledSocket.connectLoopback(port: port, readTimeoutSeconds: 15)  // a safety net for reads
        }

        deinit { close(descriptor) }

        /// Sends bytes; false once the server has closed the connection.
        @discardableResult
        func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            return sent == bytes.count
        }

        /// Everything the server sends until it closes the connection; nil if it is still open
        /// after the read timeout.
        func readUntilClosed() -> String? {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count == 0 || (count < 0 && errno == ECONNRESET) { return String(decoding: received, as: UTF8.self) }
                if count < 0 { return nil }
                received += buffer[0..<count]
            }
        }
    }

    static func withServer(_ body: (Int) async throws -> Void) async throws {
        let directory = try TemporaryDirectory("crossmate-http")
        defer { directory.remove() }
        let server = try ServerProcess(
            dataDirectory: directory.path,
            environment: ["CROSSMATE_REQUEST_TIMEOUT_SECONDS": "1", "CROSSMATE_IDLE_TIMEOUT_SECONDS": "2"])
        defer { server.kill() }
        try await body(server.port)
    }

    static func status(_ response: String) -> Int? {
        guard response.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(response.dropFirst(9).prefix(3))
    }

    @Test func malformedRequestsAreAnsweredAndClosed() async throws {
        let bigHeader = "X-Big: " + String(repeating: "a", count: 100 * 1024) + "\r\n"
        let manyHeaders = (0..<10_000).map { "X-H\($0): 1\r\n" }.joined()
        let cases: [(name: String, request: String, statuses: Set<Int>)] = [
            ("an unknown method", "FOO / HTTP/1.1\r\nHost: x\r\n\r\n", [400]),
            ("a length that is no number", "POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", [400]),
            ("a negative length", "POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", [400]),
            (
                "two different lengths", "POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
                [400]
            ),
            (
                "a length and chunked",
                "POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", [400]
            ),
            ("a 100 KB header", "GET /healthz HTTP/1.1\r\nHost: x\r\n\(bigHeader)\r\n", [431]),
            ("10,000 headers", "GET /healthz HTTP/1.1\r\nHost: x\r\n\(manyHeaders)\r\n", [431]),
            ("a 100 KB URL", "GET /healthz?\(String(repeating: "a", count: 100 * 1024)) HTTP/1.1\r\nHost: x\r\n\r\n", [414, 431]),
            ("a header name with a space", "GET /healthz HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n", [400]),
        ]
        try await Self.withServer { port in
            for (name, request, statuses) in cases {
                let connection = try RawConnection(port: port)
                connection.send(request)
                let response = try #require(connection.readUntilClosed(), "\(name): the connection stayed open")
                let status = try #require(Self.status(response), "\(name): no HTTP answer (\(response.prefix(80)))")
                #expect(statuses.contains(status), "\(name): answered \(status)")
                #expect(response.contains(#""error":"#), "\(name): the answer has no JSON error")
                #expect(response.utf8.count < 2_048, "\(name): the answer echoes the request")
            }
            // The server still answers well-formed requests.
            let healthy = try RawConnection(port: port)
            healthy.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(Self.status(healthy.readUntilClosed() ?? "") == 200)
        }
    }

    /// A connection reset before its first request (a phone losing its signal) is not a server
    /// error: HummingbirdWebSocket logged one error line per such connection, so anyone could
    /// fill the log. The server logs it at debug, and goes on serving.
    @Test func connectionsResetBeforeTheirRequestAreNotErrors() async throws {
        let directory = try TemporaryDirectory("crossmate-http")
        defer { directory.remove() }
        let log = URL(fileURLWithPath: directory.path).appendingPathComponent("serve.log")
        let server = try ServerProcess(
            dataDirectory: directory.path, extraArguments: ["--log-level", "debug"], errorLog: log)
        defer { server.kill() }
        let resets = 10
        for _ in 0..<resets {
            let descriptor = try StalledSocket.connectLoopback(port: server.port, readTimeoutSeconds: 5)
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)  // close sends a reset
            setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(descriptor)
        }
        let lines = { (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n") ?? [] }
        let dropped = { lines().filter { $0.contains("Error handling upgrade result") } }
        try await eventually("the server saw every reset (\(dropped().count) of \(resets))") { dropped().count >= resets }
        #expect(dropped().allSatisfy { $0.contains(" debug ") }, "a reset was logged above debug: \(dropped().first ?? "")")
        #expect(!lines().contains { $0.contains(" error ") }, "the log has errors: \(lines().filter { $0.contains(" error ") }.prefix(3))")
        let healthy = try RawConnection(port: server.port)
        healthy.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(Self.status(healthy.readUntilClosed() ?? "") == 200)
    }

    @Test func slowAndSilentClientsAreClosed() async throws {
        try await Self.withServer { port in
            // Silent: connects and sends nothing.
            let silent = try RawConnection(port: port)
            let silentAnswer = try #require(silent.readUntilClosed(), "a silent connection stayed open")
            #expect(silentAnswer.isEmpty || Self.status(silentAnswer) == 408)

            // A head trickled a line at a time, never finished.
            let trickle = try RawConnection(port: port)
            trickle.send("GET /healthz HTTP/1.1\r\n")
            let start = ContinuousClock.now
            var open = true
            for line in 0..<40 where open {
                try await Task.sleep(for: .milliseconds(200))  // the slow client's pace, not synchronisation
                open = trickle.send("X-Slow-\(line): 1\r\n")
            }
            #expect(!open || ContinuousClock.now - start < .seconds(8), "a trickled head kept its connection for 8 s")
            let trickled = trickle.readUntilClosed()
            #expect(trickled != nil, "a trickled head's connection stayed open")

            // A body trickled a byte at a time.
            let body = try RawConnection(port: port)
            body.send("POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
            let bodyAnswer = try #require(body.readUntilClosed(), "a trickled body's connection stayed open")
            #expect(bodyAnswer.isEmpty || Self.status(bodyAnswer) == 408)

            // Kept alive after an answer, then idle: closed after the idle timeout.
            let idle = try RawConnection(port: port)
            idle.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let idleAnswer = try #require(idle.readUntilClosed(), "an idle kept-alive connection stayed open")
            #expect(Self.status(idleAnswer) == 200)

            // Asking to upgrade where there is no WebSocket does not escape the timeouts.
            let pretend = try RawConnection(port: port)
            pretend.send("GET /healthz HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
            #expect(pretend.readUntilClosed() != nil, "a refused upgrade's connection stayed open")
        }
    }
}
