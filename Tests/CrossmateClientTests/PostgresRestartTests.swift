import CrossmateClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import CrossmateTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Two real `crossmate serve` instances on one PostgreSQL, players pushing to both, and the
/// database restarted under them (`pg_ctl restart -m fast`) again and again: after each restart
/// every instance takes moves again within seconds, every acknowledged move is stored once, and
/// letters and cursors cross between the instances again.
/// (An instance used to stop acknowledging moves for good after about half the restarts.)
/// Restarting the cluster would break every other test using it at the time, so this runs on
/// its own, after the rest (scripts/test-all.sh sets CROSSMATE_TEST_POSTGRES_RESTART=1 then).
@Suite(.startsProcesses, .serialized) struct PostgresRestartTests {
    static let environment = ProcessInfo.processInfo.environment

    @Test(
        .enabled(
            if: environment["CROSSMATE_TEST_POSTGRES_RESTART"] == "1" && environment["CROSSMATE_TEST_POSTGRES_CTL"] != nil
                && environment["CROSSMATE_TEST_POSTGRES_URL"] != nil))
    func bothInstancesTakeMovesAgainAfterEveryRestart() async throws {
        let url = Self.environment["CROSSMATE_TEST_POSTGRES_URL"]!
        let directory = try TemporaryDirectory("crossmate-pg-restart")
        defer { directory.remove() }
        let servers = try (0..<2).map { index in
            try ServerProcess(
                dataDirectory: directory.path + "/\(index)", extraArguments: ["--postgres", url],
                errorLog: URL(fileURLWithPath: directory.path + "/server-\(index).log"))
        }
        defer { for server in servers { server.kill() } }
        let greenLight = try BundledPuzzles.puzzle("green-light")

        var typists: [Typist] = []
        for index in 0..<6 { typists.append(try await Typist(servers[index % 2].baseURL, name: "P\(index)", puzzle: greenLight)) }
        let stop = StopFlag()
        let typing = Typist.typing(typists, until: stop)
        let ctl = Self.environment["CROSSMATE_TEST_POSTGRES_CTL"]!
        for round in 1...4 {
            try await eventually("everyone types before restart \(round)", within: .seconds(30)) {
                typists.allSatisfy { !$0.acknowledged.withLock(\.isEmpty) }
            }
            let before = typists.map { $0.acknowledged.withLock(\.count) }
            let restarted = ContinuousClock.now
            // Not Foundation's Process: the postmaster pg_ctl starts would hold it open for good.
            let status = try runDetached(["/bin/sh", "-c", "\(ctl) restart -m fast -w"])
            #expect(status == 0, "pg_ctl restart failed")
            // Every player, on either instance, has a move acknowledged again soon after. How
            // long each waited is printed for BENCHMARKS.md (the outage a typing player sees).
            var back: [Int: Duration] = [:]
            try await eventually("every instance takes moves again after restart \(round)", within: .seconds(60)) {
                for (index, (typist, count)) in zip(typists, before).enumerated() where back[index] == nil {
                    if typist.acknowledged.withLock(\.count) > count { back[index] = ContinuousClock.now - restarted }
                }
                return back.count == typists.count
            }
            let waits = back.values.sorted().map { String(format: "%.2f", Double($0.components.attoseconds) / 1e18 + Double($0.components.seconds)) }
            print("restart \(round): seconds until each typist's next letter was acknowledged: \(waits.joined(separator: ", "))")
        }
        stop.raised.store(true, ordering: .relaxed)
        for task in typing { await task.value }
        // Each instance listens again: a letter and a cursor from a player on one reach a player
        // on the other live (cursors travel only by NOTIFY, never by a fetch).
        let ann = try await TestPlayer.login("Ann", server: servers[0].baseURL, in: directory)
        let bob = try await TestPlayer.login("Bob", server: servers[1].baseURL, in: directory)
        let shared = try await ann.engine.createGame(CreateGameRequest(bundled: "green-light"))
        #expect(try await bob.engine.join(try await ann.engine.invite(shared)) == shared)
        await ann.engine.start()
        await bob.engine.start()
        let annSession = try await ann.engine.open(shared)
        let bobSession = try await bob.engine.open(shared)
        var row = 2
        try await eventually("Ann's cursor reaches Bob on the other instance", within: .seconds(30)) {
            row = 5 - row
            await annSession.moveCursor(to: GridPosition(row: row, col: 1), direction: .down)
            return await bob.engine.peerCursors(shared).contains { $0.authorID == ann.identity.authorID && $0.position.row == row }
        }
        try await type("GREEN", at: GridPosition(row: 1, col: 0), in: annSession)
        try await eventually("Ann's letters reach Bob on the other instance", within: .seconds(30)) {
            (try? await bobSession.view().grid.letters[5..<10]) == ["G", "R", "E", "E", "N"]
        }
        await ann.engine.stop()
        await bob.engine.stop()
        // Every acknowledged move is stored, once.
        for typist in typists {
            let stored = try await typist.stored(on: typist.api)
            #expect(Set(stored) == Set(typist.acknowledged.withLock { $0 }), "acknowledged moves missing")
            #expect(stored.count == Set(stored).count, "a move stored twice")
        }

        // PostgreSQL stopped for good: /healthz says why in a sentence, the log says it once (not
        // a line per reconnect or per try of the pool), and SIGTERM still stops both instances
        // within 5 s.
        let logged = servers.indices.map { (try? String(contentsOfFile: directory.path + "/server-\($0).log", encoding: .utf8)) ?? "" }
        // Not started again: this cluster is this test's alone (scripts/with-postgres.sh removes it).
        #expect(try runDetached(["/bin/sh", "-c", "\(ctl) stop -m fast -w"]) == 0, "pg_ctl stop failed")
        let outageStarted = ContinuousClock.now
        var reasons: [String] = []
        // Looks five times a second for four seconds: the outage's length is what is measured.
        while ContinuousClock.now - outageStarted < .seconds(4) {
            if let (body, response) = try? await URLSession.shared.data(from: URL(string: servers[0].baseURL + "/healthz")!),
                (response as? HTTPURLResponse)?.statusCode == 503
            {
                reasons.append(String(decoding: body, as: UTF8.self))
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(!reasons.isEmpty, "/healthz never answered 503 while PostgreSQL was stopped")
        #expect(reasons.allSatisfy { $0.contains("PostgreSQL") && !$0.contains("Generic description") }, "\(Set(reasons))")
        for (index, server) in servers.enumerated() {
            let log = (try? String(contentsOfFile: directory.path + "/server-\(index).log", encoding: .utf8)) ?? ""
            let during = log.dropFirst(logged[index].count).split(separator: "\n")
            #expect(during.count <= 6, "instance \(index) logged \(during.count) lines in a 4 s outage:\n\(during.joined(separator: "\n"))")
            let stopping = ContinuousClock.now
            _ = server.terminate()
            #expect(ContinuousClock.now - stopping < .seconds(5), "instance \(index) took \(ContinuousClock.now - stopping) to stop")
        }
    }
}
