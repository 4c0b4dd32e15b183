import ArgumentParser
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import Foundation

/// `crossmate-bench engine`: merge throughput, replay, seeks and snapshots on a 15×15 grid.
struct EngineBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "Measure the pure engine: merge, replay, seek and snapshots of a 100,000-move game."
    )

    @Option(help: "Moves in the synthetic game.")
    var moves = 100_000

    @Option(help: "Random seeks to time.")
    var seeks = 20_000

    @Option(help: "Moves already in one player's journal when their gestures are timed.")
    var journal = 2_000

    @Option(help: "Seed for the synthetic game.")
    var seed: UInt64 = 42

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() throws {
        let side = 15
        let game = Self.syntheticGame(moves: moves, side: side, seed: seed)
        var report = Report(title: "crossmate-bench engine: \(moves) moves, 15×15 grid, 8 devices of 4 players (seed \(seed))")

        // Merge: apply every move into a fresh grid, in timeline order and shuffled.
        var sink = 0
        let rounds = 10
        let ordered = measure {
            for _ in 0..<rounds {
                var grid = GameGrid(width: side, height: side)
                grid.apply(game)
                sink &+= grid.cells.count
            }
        }
        var generator = SeededRandomNumberGenerator(seed: seed &+ 1)
        let shuffled = game.shuffled(using: &generator)
        let random = measure {
            for _ in 0..<rounds {
                var grid = GameGrid(width: side, height: side)
                grid.apply(shuffled)
                sink &+= grid.cells.count
            }
        }
        report.add("mergeMovesPerSecond", "merge, moves applied per second (timeline order)", Double(moves * rounds) / ordered, "moves/s")
        report.add("mergeShuffledMovesPerSecond", "merge, moves applied per second (shuffled)", Double(moves * rounds) / random, "moves/s")

        // Replay: build the timeline (sort and checkpoints) and play it to the end.
        var timeline: ReplayTimeline!
        let full = measure {
            timeline = ReplayTimeline(width: side, height: side, moves: shuffled)
            sink &+= timeline.state(through: timeline.count).cells.count
        }
        report.add("replayFullMillis", "full replay of the game", full * 1000, "ms")

        var seekTimes: [Double] = []
        seekTimes.reserveCapacity(seeks)
        for _ in 0..<seeks {
            let step = Int.random(in: 0...timeline.count, using: &generator)
            seekTimes.append(measure { sink &+= timeline.state(through: step).cells.count } * 1e6)
        }
        seekTimes.sort()
        report.add("replaySeekMicrosP50", "seek to a random step, p50", percentile(seekTimes, 0.50), "µs")
        report.add("replaySeekMicrosP99", "seek to a random step, p99", percentile(seekTimes, 0.99), "µs")

        // Snapshots: fold all but the last 200 moves, store as JSON; load = decode + replay the rest.
        let head = Array(game.dropLast(200))
        var snapshot: Snapshot!
        let build = measure { snapshot = Snapshot.build(width: side, height: side, moves: head) }
        report.add("snapshotBuildMillis", "snapshot build from \(head.count) moves", build * 1000, "ms")
        // Storing it: the text the store keeps (keys sorted), by JSONEncoder and by hand.
        var text = ""
        let writes = 20
        let byEncoder = measure { for _ in 0..<writes { text = JSONText.sorted(snapshot) } } / Double(writes)
        let byHand = measure { for _ in 0..<writes { text = snapshot.sortedJSON } } / Double(writes)
        precondition(text == JSONText.sorted(snapshot), "the hand-written snapshot differs from the encoder's")
        report.add(
            "snapshotEncodeMillis", "snapshot stored as text by JSONEncoder (\(text.utf8.count / 1024) KB, keys sorted)", byEncoder * 1000, "ms")
        report.add("snapshotWriteMillis", "the same text written by hand (Snapshot.sortedJSON)", byHand * 1000, "ms")
        let stored = try JSONEncoder().encode(snapshot)
        var loaded: GameGrid!
        let load = measure {
            let decoded = try! JSONDecoder().decode(Snapshot.self, from: stored)
            loaded = decoded.replay(game.suffix(200))
        }
        report.add("snapshotLoadMillis", "snapshot load (decode \(stored.count / 1024) KB + replay the rest)", load * 1000, "ms")
        precondition(loaded == timeline.state(through: timeline.count), "snapshot replay disagrees with the timeline")

        // A gesture late in a long game: one player's replica with `journal` moves of its own
        // performs a letter and is asked whether undo and redo are possible, as a hosted
        // browser replica is for every key (Daybreak).
        let puzzle = try BundledPuzzles.puzzle("daybreak")
        var replica = GameReplica(puzzle: puzzle, gameID: "bench", replicaID: "phone", authorID: "ann")
        let squares = puzzle.letterPositions
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ").map(String.init)
        var wall: Int64 = 0
        func gesture() {
            wall += 1
            let square = squares.randomElement(using: &generator)!
            _ = try? replica.perform(.setLetter(square, letters.randomElement(using: &generator)!), wallMillis: wall)
            sink &+= (replica.canUndo ? 1 : 0) + (replica.canRedo ? 1 : 0)
        }
        while replica.journal.count < journal { gesture() }
        let gestures = 2_000
        let late = measure { for _ in 0..<gestures { gesture() } }
        report.add(
            "gestureMicrosLateInAGame", "a letter plus can-undo and can-redo, \(journal) moves in the journal",
            late / Double(gestures) * 1e6, "µs")

        report.print(json: json, extra: ["moves": moves, "grid": "15x15", "seed": Int(seed), "journal": journal])
        if sink == 42 { Swift.print("") }  // keeps the measured work from being optimised away
    }

    /// A long game: 8 devices of 4 players typing over a 15×15 grid, timestamps rising with jitter.
    static func syntheticGame(moves count: Int, side: Int, seed: UInt64) -> [Move] {
        var random = SeededRandomNumberGenerator(seed: seed)
        var seqs = [Int](repeating: 0, count: 8)
        var wall: Int64 = 1_700_000_000_000
        let letters = (65...90).map { String(UnicodeScalar(UInt8($0))) } + [""]
        return (0..<count).map { _ in
            let device = Int.random(in: 0..<8, using: &random)
            seqs[device] += 1
            wall += Int64.random(in: 0...3, using: &random)
            let letter = letters.randomElement(using: &random)!
            return Move(
                gameID: "bench", replicaID: "device-\(device)", authorID: "player-\(device % 4)", seq: seqs[device],
                timestamp: HLCTimestamp(
                    wallMillis: wall - Int64.random(in: 0...2, using: &random), counter: UInt16.random(in: 0...1, using: &random)),
                position: GridPosition(row: Int.random(in: 0..<side, using: &random), col: Int.random(in: 0..<side, using: &random)),
                letter: letter, cellAuthorID: letter.isEmpty ? "" : "player-\(device % 4)", kind: .input,
                batchID: "device-\(device):\(seqs[device])")
        }
    }
}
