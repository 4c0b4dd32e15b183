import CrossmateClient
import CrossmateProtocol
import CrossmateTestSupport
import Foundation
import Testing

/// "Who is here" across two real `crossmate serve` instances on one PostgreSQL: a player on each
/// sees the other arrive and leave, and a player on an instance killed with SIGKILL drops out by
/// itself once what that instance said lapses (each instance says its viewers every 300 ms here,
/// holding for 900 ms; 10 s and 30 s as shipped). The second instance reaches the database over
/// its Unix socket, the first over TCP.
@Suite(.startsProcesses) struct InstancesPresenceTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CROSSMATE_TEST_POSTGRES_URL"] != nil))
    func aPlayerOnEachInstanceSeesTheOtherHere() async throws {
        let environment = ProcessInfo.processInfo.environment
        let urls = [
            environment["CROSSMATE_TEST_POSTGRES_URL"]!,
            environment["CROSSMATE_TEST_POSTGRES_SOCKET_URL"] ?? environment["CROSSMATE_TEST_POSTGRES_URL"]!,
        ]
        let directory = try TemporaryDirectory("crossmate-presence")
        defer { directory.remove() }
        let servers = try (0..<2).map { index in
            try ServerProcess(
                dataDirectory: directory.path + "/\(index)", extraArguments: ["--postgres", urls[index], "--log-level", "notice"],
                environment: ["CROSSMATE_TEST_VIEWERS_EVERY_MS": "300"],
                errorLog: URL(fileURLWithPath: directory.path + "/server-\(index).log"))
        }
        defer { for server in servers { server.kill() } }
        if environment["CROSSMATE_TEST_POSTGRES_SOCKET_URL"] != nil {
            let log = try String(contentsOfFile: directory.path + "/server-1.log", encoding: .utf8)
            #expect(log.contains("starting: PostgreSQL at /") && log.contains(".s.PGSQL."), "the second instance is on the socket: \(log)")
        }
        let ann = try await TestPlayer.login("Ann", server: servers[0].baseURL, in: directory)
        let bob = try await TestPlayer.login("Bob", server: servers[1].baseURL, in: directory)
        let game = try await ann.engine.createGame(CreateGameRequest(bundled: "green-light"))
        #expect(try await bob.engine.join(try await ann.engine.invite(game)) == game)
        await ann.engine.start()
        await bob.engine.start()
        _ = try await ann.engine.open(game)
        _ = try await bob.engine.open(game)
        await ann.engine.viewing(game, true)
        await bob.engine.viewing(game, true)
        try await eventually("Ann, on one instance, sees Bob, on the other, here") {
            await ann.engine.playersHere(game) == [bob.identity.authorID]
        }
        try await eventually("and Bob sees Ann") { await bob.engine.playersHere(game) == [ann.identity.authorID] }

        // Bob puts the game away: Ann sees him go, at once (not when a hold lapses).
        await bob.engine.viewing(game, false)
        try await eventually("Ann sees Bob leave", within: .seconds(5)) { await ann.engine.playersHere(game).isEmpty }
        await bob.engine.viewing(game, true)
        try await eventually("Ann sees Bob come back") { await ann.engine.playersHere(game) == [bob.identity.authorID] }

        // Bob's instance dies: no one says he left, and he drops out all the same.
        servers[1].kill()
        try await eventually("Bob drops out once his dead instance's word lapses", within: .seconds(10)) {
            await ann.engine.playersHere(game).isEmpty
        }
        await ann.engine.stop()
        await bob.engine.stop()
    }
}
