import ArgumentParser
import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

/// `crossmate-bench client`: the native client engine against a real `crossmate serve`: catching
/// up after peers made many moves offline, a cold open of a long game (snapshot plus tail), and
/// local keystroke to screen (command to the UI's event).
struct ClientBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Measure the client engine: catch-up, cold open of a long game, keystroke to event."
    )

    @Option(help: "Moves peers make while the measured device is offline.")
    var catchUpMoves = 10_000

    @Option(help: "Moves in the game a new device opens cold.")
    var coldMoves = 100_000

    @Option(help: "Keystrokes timed from command to event.")
    var keystrokes = 2_000

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crossmate-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The moves are pushed as fast as the engine can: lift the per-device request limit.
        let server = try BenchServer(
            dataDirectory: directory + "/server", postgres: nil,
            environment: ["CROSSMATE_RATE_LIMIT_BURST": "1000000", "CROSSMATE_RATE_LIMIT_PER_SECOND": "1000000"])
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        var report = Report(
            title: "crossmate-bench client: catch-up after \(catchUpMoves) moves, cold open of \(coldMoves), \(keystrokes) keystrokes")

        func device(_ name: String) async throws -> SyncEngine {
            let store = try ClientStore(path: directory + "/\(name)-\(UUID().uuidString).sqlite")
            let identity = try await DeviceSetup.login(store: store, serverURL: base, name: name)
            return try SyncEngine(store: store, identity: identity, seed: 7)
        }
        /// `count` moves typed by `engine` over the game's squares (A and B in turn), pushed.
        func typeMoves(_ count: Int, by engine: SyncEngine, in gameID: String) async throws {
            let squares = try await engine.view(gameID).puzzle.letterPositions
            var index = 0
            while index < count {
                let end = min(count, index + 2_000)
                for step in index..<end {
                    try await engine.perform(.setLetter(squares[step % squares.count], step / squares.count % 2 == 0 ? "A" : "B"), in: gameID)
                }
                _ = try await engine.syncOnce()
                index = end
            }
        }

        // Catch-up: Ann's device is offline while Bob makes the moves; then one sync.
        let ann = try await device("Ann")
        let bob = try await device("Bob")
        let gameID = try await ann.createGame(CreateGameRequest(bundled: "daybreak"))
        _ = try await bob.join(try await ann.invite(gameID))
        _ = try await ann.view(gameID)
        try await typeMoves(catchUpMoves, by: bob, in: gameID)
        let cpuBefore = BenchServer.cpuSeconds(pid: getpid())
        let started = ContinuousClock.now
        let report1 = try await ann.syncOnce()
        let catchUp = ContinuousClock.now - started
        let cpu = BenchServer.cpuSeconds(pid: getpid()) - cpuBefore
        guard report1.received >= catchUpMoves, try await ann.view(gameID).grid == bob.view(gameID).grid else {
            throw BenchFailure("catch-up did not converge (received \(report1.received))")
        }
        report.add("catchUpMillis", "catch-up after \(catchUpMoves) peer moves (fetch, store, merge)", catchUp.seconds * 1000, "ms")
        report.add("catchUpClientCPUMillis", "client CPU for that catch-up", cpu * 1000, "ms")

        // Cold open: a new device joins a game of coldMoves moves and opens it.
        let cold = try await device("Cold")
        let long = try await bob.createGame(CreateGameRequest(bundled: "daybreak"))
        try await typeMoves(coldMoves, by: bob, in: long)
        let invitation = try await bob.invite(long)
        let coldStart = ContinuousClock.now
        _ = try await cold.join(invitation)
        let session = try await cold.open(long)
        let coldView = try await session.view()
        let coldOpen = ContinuousClock.now - coldStart
        guard coldView.grid == (try await bob.view(long).grid) else { throw BenchFailure("the cold open disagrees with the game") }
        report.add("coldOpenMillis", "cold open of a \(coldMoves)-move game (join, snapshot + tail, open)", coldOpen.seconds * 1000, "ms")
        report.add("coldOpenMovesFetched", "moves the cold open fetched (the tail)", Double(try cold.store.moveCount(gameID: long)), "moves")

        // Keystroke to event: the engine live, a UI listening; time from the command to its event.
        await ann.start()
        let events = await ann.events()
        var iterator = events.makeAsyncIterator()
        let squares = try await ann.view(gameID).puzzle.letterPositions
        var latencies: [Double] = []
        for step in 0..<keystrokes {
            let letter = step % 2 == 0 ? "C" : "D"
            let pressed = ContinuousClock.now
            try await ann.perform(.setLetter(squares[step % squares.count], letter), in: gameID)
            while let event = await iterator.next() {
                if case .gridChanged(gameID, let squares) = event, !squares.isEmpty { break }
            }
            latencies.append((ContinuousClock.now - pressed).seconds * 1e6)
        }
        await ann.stop()
        latencies.sort()
        report.add("keystrokeToEventMicrosP50", "keystroke to event (stored, merged, emitted), p50", percentile(latencies, 0.50), "µs")
        report.add("keystrokeToEventMicrosP99", "keystroke to event, p99", percentile(latencies, 0.99), "µs")
        report.print(json: json, extra: ["catchUpMoves": catchUpMoves, "coldMoves": coldMoves, "keystrokes": keystrokes])
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
