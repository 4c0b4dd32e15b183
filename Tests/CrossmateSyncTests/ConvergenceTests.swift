import CrossmateCore
import CrossmateSync
import Testing

/// Seeded random schedules: replicas of a few accounts type, delete, check, reveal, clear, undo
/// and redo while messages are delayed, duplicated, reordered and partitioned. Once everything
/// is delivered, every replica must hold the same grid, equal to the merge of all moves.
@Suite struct ConvergenceTests {
    /// green-light with one square made unsolvable (its answer is never typed or revealed), so no
    /// schedule ends in a solve that would freeze some replicas' grids.
    static let puzzle: Puzzle = {
        let source = Puzzles.greenLight
        var cells = source.cells
        cells[source.index(of: unsolvable)].solution = "ZZZZZZZZ"
        return try! Puzzle(title: source.title, width: source.width, height: source.height, cells: cells,
                           across: source.across, down: source.down)
    }()
    static let unsolvable = GridPosition(row: 1, col: 0)

    struct Envelope {
        var from: Int
        var to: Int
        var due: Int
        var moves: [Move]
    }

    static func randomCommand(for replica: GameReplica, using random: inout SeededRandom) -> Command {
        let squares = puzzle.letterPositions
        let square = squares.randomElement(using: &random)!
        let direction: Direction = Bool.random(using: &random) ? .across : .down
        let scope: Scope = Bool.random(using: &random) ? .square(square) : .word(square, direction)
        let revealable = scope == .square(square) ? square != unsolvable
            : !(puzzle.clue(containing: square, direction)?.cells.contains(unsolvable) ?? true)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<40:
            let letter = Bool.random(using: &random)
                ? (puzzle.cell(at: square).solution ?? "A")
                : String("ABCDEGILNORSTU".randomElement(using: &random)!)
            return .setLetter(square, square == unsolvable ? "Q" : letter, pencil: Int.random(in: 0..<10, using: &random) == 0)
        case 40..<50: return .delete(square)
        case 50..<58: return .check(scope)
        case 58..<63: return revealable ? .reveal(scope) : .check(scope)
        case 63..<70: return .clear(scope)
        case 70..<88: return .undo
        default: return .redo
        }
    }

    /// Runs one schedule; returns a description of the first divergence, or nil.
    static func run(seed: UInt64) -> String? {
        var random = SeededRandom(seed: seed)
        let replicaCount = Int.random(in: 2...8, using: &random)
        let accounts = Int.random(in: 1...3, using: &random)
        var replicas = (0..<replicaCount).map { index in
            GameReplica(puzzle: puzzle, gameID: "g", replicaID: "device-\(index)", authorID: "account-\(index % accounts)")
        }
        let skew = (0..<replicaCount).map { _ in Int64.random(in: -90_000...90_000, using: &random) }
        var offline: Set<Int> = []
        var inFlight: [Envelope] = []
        var allMoves: [Move] = []
        var now: Int64 = 1_700_000_000_000

        func deliver(_ envelope: Envelope) {
            replicas[envelope.to].receive(envelope.moves)
        }

        for step in 0..<Int.random(in: 30...90, using: &random) {
            now += Int64.random(in: 0...40, using: &random)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<55:
                let index = Int.random(in: 0..<replicaCount, using: &random)
                let command = randomCommand(for: replicas[index], using: &random)
                guard let moves = try? replicas[index].perform(command, physicalMillis: now + skew[index]), !moves.isEmpty else { continue }
                // Every move the mutator makes is one a receiver believes.
                for move in moves {
                    do { try MoveTrust.check(move, puzzle: puzzle, isPlayer: { $0.hasPrefix("account-") }) } catch {
                        return "seed \(seed): the mutator made a move MoveTrust refuses (\(error)): \(move)"
                    }
                }
                allMoves += moves
                for other in 0..<replicaCount where other != index {
                    inFlight.append(Envelope(from: index, to: other, due: step + Int.random(in: 0...8, using: &random), moves: moves))
                    if Int.random(in: 0..<6, using: &random) == 0 {  // duplicated
                        inFlight.append(Envelope(from: index, to: other, due: step + Int.random(in: 0...20, using: &random), moves: moves))
                    }
                }
            case 55..<62:
                let index = Int.random(in: 0..<replicaCount, using: &random)
                if offline.contains(index) { offline.remove(index) } else { offline.insert(index) }
            default:
                inFlight.shuffle(using: &random)
                var waiting: [Envelope] = []
                for envelope in inFlight {
                    let reachable = !offline.contains(envelope.from) && !offline.contains(envelope.to)
                    if envelope.due <= step, reachable, Bool.random(using: &random) { deliver(envelope) } else { waiting.append(envelope) }
                }
                inFlight = waiting
            }
        }
        // Heal every partition and deliver what is left, in random order.
        for envelope in inFlight.shuffled(using: &random) { deliver(envelope) }
        // Then a final exchange, as on reconnect: each replica fetches everything.
        for index in replicas.indices { replicas[index].receive(allMoves.shuffled(using: &random)) }

        var expected = GameGrid(puzzle: puzzle)
        expected.apply(allMoves)
        for (index, replica) in replicas.enumerated() where replica.grid != expected {
            return "seed \(seed): device-\(index) diverged from the merge of all \(allMoves.count) moves"
        }
        if replicas.contains(where: { $0.isComplete }) { return "seed \(seed): an unsolvable game completed" }
        return nil
    }

    @Test(arguments: 0..<8)
    func everyReplicaConvergesToTheMergeOfAllMoves(block: UInt64) {
        // 8 blocks of 300 schedules: 2,400 schedules in all.
        for seed in (block * 300)..<((block + 1) * 300) {
            if let failure = Self.run(seed: seed) {
                Issue.record("\(failure) — rerun with ConvergenceTests.run(seed: \(seed))")
                return
            }
        }
    }
}
