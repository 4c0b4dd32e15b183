import CrossmateTestSupport
import Foundation
import Testing

@testable import CrossmateServer

/// Behind a reverse proxy: the client's address comes from `X-Forwarded-For` only when the
/// proxy is trusted (`--trusted-proxy`), and invitation links carry the public address
/// (`--public-url`). The proxy itself (Caddy, with TLS) is in Tests/deploy.
@Suite(.startsProcesses, .serialized) struct ProxyTests {
    @Test func theClientAddressIsBelievedOnlyFromATrustedProxy() {
        let trusted: Set<String> = ["127.0.0.1", "10.0.0.9"]
        // Anyone else's header is theirs to write: ignored.
        #expect(ClientAddress.resolve(peer: "203.0.113.5", forwardedFor: ["1.2.3.4"], trusted: trusted) == "203.0.113.5")
        // The last hop no trusted proxy added is the client; what came before it is the client's own words.
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: ["6.6.6.6, 1.2.3.4, 10.0.0.9"], trusted: trusted) == "1.2.3.4")
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: ["6.6.6.6", "1.2.3.4"], trusted: trusted) == "1.2.3.4")
        // A trusted proxy that names nobody: the proxy.
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: [], trusted: trusted) == "127.0.0.1")
        // IPv6 clients are counted by their /64: a client cannot rotate through its addresses.
        #expect(ClientAddress.limitKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::/64")
        #expect(ClientAddress.limitKey("2001:0db8:0001:0002::1") == "2001:db8:1:2::/64")
        #expect(ClientAddress.limitKey("[2001:db8:1:3::9]") == "2001:db8:1:3::/64")
        #expect(ClientAddress.limitKey("::ffff:203.0.113.5") == "203.0.113.5")
        #expect(ClientAddress.limitKey("203.0.113.5") == "203.0.113.5")
        #expect(ClientAddress.limitKey("unknown") == "unknown")
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: [" , "], trusted: trusted) == "127.0.0.1")
        // What is kept per address stays short whatever the header holds.
        let long = String(repeating: "a", count: 10_000)
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: [long], trusted: trusted).count == 64)
    }

    @Test func aPublicURLIsAnOriginAndNothingElse() throws {
        #expect(try ServerConfiguration.validatedPublicURL("https://crossmate.example.org/") == "https://crossmate.example.org")
        #expect(try ServerConfiguration.validatedPublicURL("https://x.example:8443") == "https://x.example:8443")
        for bad in ["ftp://x.example", "crossmate.example.org", "https://x.example/app", "https://x.example/?a=1", "https://u:p@x.example", ""] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try ServerConfiguration.validatedPublicURL(bad) }
        }
    }

    /// A request over a fresh connection: status and body.
    static func call(
        _ port: Int, _ method: String, _ path: String, body: String = "{}", headers: [String: String] = [:]
    ) throws -> (status: Int, body: String) {
        let connection = try HTTPHygieneTests.RawConnection(port: port)
        let head = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
        connection.send(
            "\(method) \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\(head)\r\n\(body)")
        let response = try #require(connection.readUntilClosed())
        let parts = response.components(separatedBy: "\r\n\r\n")
        return (HTTPHygieneTests.status(response) ?? 0, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    static func withServer(_ environment: [String: String], _ body: (Int) throws -> Void) throws {
        let directory = try TemporaryDirectory("crossmate-proxy")
        defer { directory.remove() }
        let limits = ["CROSSMATE_ACCOUNT_RATE_LIMIT_BURST": "2", "CROSSMATE_ACCOUNT_RATE_LIMIT_PER_SECOND": "0.0001"]
        let server = try ServerProcess(dataDirectory: directory.path, environment: limits.merging(environment) { $1 })
        defer { server.kill() }
        try body(server.port)
    }

    @Test func behindATrustedProxyEachClientHasItsOwnLimitAndLinksArePublic() throws {
        let environment = ["CROSSMATE_TRUSTED_PROXIES": "127.0.0.1", "CROSSMATE_PUBLIC_URL": "https://crossmate.example.org/"]
        try Self.withServer(environment) { port in
            let account = #"{"displayName":"Ann"}"#
            let ann = ["X-Forwarded-For": "198.51.100.7"]
            let first = try Self.call(port, "POST", "/v1/accounts", body: account, headers: ann)
            #expect(first.status == 201, "\(first.body)")
            #expect(try Self.call(port, "POST", "/v1/accounts", body: account, headers: ann).status == 201)
            #expect(try Self.call(port, "POST", "/v1/accounts", body: account, headers: ann).status == 429)
            // Another client behind the same proxy is not held to Ann's limit.
            #expect(try Self.call(port, "POST", "/v1/accounts", body: account, headers: ["X-Forwarded-For": "198.51.100.8"]).status == 201)
            // An IPv6 client counts by its /64: other addresses of the same block share its limit.
            let block = (1...3).map {
                try? Self.call(port, "POST", "/v1/accounts", body: account, headers: ["X-Forwarded-For": "2001:db8:5:6::\($0)"]).status
            }
            #expect(block == [201, 201, 429], "\(block)")
            #expect(try Self.call(port, "POST", "/v1/accounts", body: account, headers: ["X-Forwarded-For": "2001:db8:5:7::1"]).status == 201)
            // The link names the public address, whatever address the request came in on.
            let token = try #require(first.body.firstMatch(of: #/"token":"([^"]+)"/#)?.1)
            let bearer = ["Authorization": "Bearer \(token)"]
            let game = try Self.call(port, "POST", "/v1/games", body: #"{"bundled":"green-light"}"#, headers: bearer)
            let gameID = try #require(game.body.firstMatch(of: #/"gameID":"([^"]+)"/#)?.1, "\(game.body)")
            let link = try Self.call(port, "POST", "/v1/games/\(gameID)/invitations", body: "{}", headers: bearer)
            #expect(link.status == 201, "\(link.body)")
            #expect(link.body.contains(#""url":"https://crossmate.example.org/join/"#), "\(link.body)")
        }
    }

    @Test func withoutATrustedProxyTheHeaderIsIgnored() throws {
        try Self.withServer([:]) { port in
            let account = #"{"displayName":"Ann"}"#
            #expect(try Self.call(port, "POST", "/v1/accounts", body: account, headers: ["X-Forwarded-For": "198.51.100.7"]).status == 201)
            #expect(try Self.call(port, "POST", "/v1/accounts", body: account, headers: ["X-Forwarded-For": "198.51.100.8"]).status == 201)
            // Writing another address does not buy a third account from one machine.
            let third = try Self.call(port, "POST", "/v1/accounts", body: account, headers: ["X-Forwarded-For": "198.51.100.9"])
            #expect(third.status == 429)
            #expect(!third.body.contains("198.51.100"), "the answer echoes the header")
        }
    }

    @Test func aBadPublicURLOrProxyStopsTheServerWithAReason() throws {
        for (arguments, words) in [
            (["--public-url", "crossmate.example.org"], "the public URL must be http:// or https://"),
            (["--trusted-proxy", "my-proxy"], "a trusted proxy is an IP address"),
        ] {
            let directory = try TemporaryDirectory("crossmate-proxy")
            defer { directory.remove() }
            let (status, _, said) = try runCrossmate(["serve", "--port", "0", "--data", directory.path] + arguments)
            #expect(status != 0)
            #expect(said.contains(words), "\(said)")
        }
    }

    /// A commit interval or window out of range (or not a number) stops the server, naming the
    /// variable, its range and what it was given.
    @Test func aBadCommitIntervalOrWindowStopsTheServerWithAReason() throws {
        for (name, value) in [("CROSSMATE_COMMIT_WINDOW_MS", "500"), ("CROSSMATE_COMMIT_INTERVAL_MS", "soon"), ("CROSSMATE_COMMIT_WINDOW_MS", "-1")] {
            let directory = try TemporaryDirectory("crossmate-commit")
            defer { directory.remove() }
            let (status, _, said) = try runCrossmate(["serve", "--port", "0", "--data", directory.path], environment: [name: value])
            #expect(status != 0)
            #expect(said.contains("\(name) must be 0 to 100 (milliseconds), not \(value)"), "\(said)")
        }
        let directory = try TemporaryDirectory("crossmate-commit")
        defer { directory.remove() }
        let (status, _, said) = try runCrossmate(
            ["serve", "--port", "0", "--data", directory.path], environment: ["CROSSMATE_COMMIT_WINDOW": "sometimes"])
        #expect(status != 0)
        #expect(said.contains("CROSSMATE_COMMIT_WINDOW is adaptive"), "\(said)")
        #expect(said.contains("or fixed"), "\(said)")
        #expect(said.contains("not sometimes"), "\(said)")
    }
}
