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
        return try! Puzzle(
            title: source.title, width: source.width, height: source.height, cells: cells,
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
        let revealable =
            scope == .square(square)
            ? square != unsolvable
            : !(puzzle.clue(containing: square, direction)?.cells.contains(unsolvable) ?? true)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<40:
            let letter =
                Bool.random(using: &random)
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
                guard let moves = try? replicas[index].perform(command, wallMillis: now + skew[index]), !moves.isEmpty else { continue }
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

    /// Schedules that run through completion, as with a server: devices push to one authority,
    /// which stores moves (refusing those stamped after a stored completion) and relays them; its
    /// replica notices the solve, or a device resigns, and the first completion stored is the
    /// authority, sent with its final grid. Devices that saw "solved" on their own, or applied
    /// moves the authority refused, must all end with the authority's completion and grid, and a
    /// device joining from the final snapshot and every stored move must too.
    static func runThroughCompletion(seed: UInt64) -> (failure: String?, completed: Bool) {
        var random = SeededRandom(seed: seed)
        let puzzle = Puzzles.greenLight
        let deviceCount = Int.random(in: 2...6, using: &random)
        var devices = (0..<deviceCount).map { index in
            GameReplica(puzzle: puzzle, gameID: "g", replicaID: "device-\(index)", authorID: "account-\(index % 2)")
        }
        var server = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "server", authorID: "server")
        var stored: [Move] = []
        var authority: (completion: Completion, grid: GameGrid)?
        var toServer: [(due: Int, moves: [Move])] = []
        var toDevices: [(due: Int, to: Int, moves: [Move])] = []
        var now: Int64 = 1_700_000_000_000

        func serverTakes(_ moves: [Move], from device: Int, step: Int) {
            let accepted = moves.filter { move in authority.map { move.timestamp <= $0.completion.at } ?? true }
            guard !accepted.isEmpty else { return }
            stored += accepted
            server.receive(accepted)
            if authority == nil, let completion = server.completion { authority = (completion, server.grid) }
            for other in devices.indices where other != device {
                toDevices.append((step + Int.random(in: 0...6, using: &random), other, accepted))
            }
        }

        for step in 0..<Int.random(in: 60...160, using: &random) {
            now += Int64.random(in: 0...40, using: &random)
            let index = Int.random(in: 0..<deviceCount, using: &random)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<60:
                // Mostly the right letters, so that most schedules finish the grid.
                let square = puzzle.letterPositions.randomElement(using: &random)!
                let letter = Int.random(in: 0..<4, using: &random) == 0 ? "Q" : puzzle.cell(at: square).solution!
                let command: Command =
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0: .undo
                    case 1: .check(.word(square, .across))
                    case 2: .reveal(.square(square))
                    default: .setLetter(square, letter)
                    }
                guard let moves = try? devices[index].perform(command, wallMillis: now), !moves.isEmpty else { continue }
                toServer.append((step + Int.random(in: 0...5, using: &random), moves))
            case 60..<62:
                guard authority == nil else { continue }
                var clock = server.clock
                authority = (Completion(kind: .resigned, at: clock.tick(wallMillis: now), by: devices[index].authorID), server.grid)
            default:
                toServer.shuffle(using: &random)
                for push in toServer where push.due <= step {
                    serverTakes(push.moves, from: Int(push.moves[0].replicaID.dropFirst("device-".count))!, step: step)
                }
                toServer.removeAll { $0.due <= step }
                for poke in toDevices.shuffled(using: &random) where poke.due <= step { devices[poke.to].receive(poke.moves) }
                toDevices.removeAll { $0.due <= step }
                if let authority, Bool.random(using: &random) {
                    devices[index].adopt(authority.completion, finalGrid: authority.grid)
                }
            }
        }
        for push in toServer { serverTakes(push.moves, from: Int(push.moves[0].replicaID.dropFirst("device-".count))!, step: .max - 10) }
        for poke in toDevices.shuffled(using: &random) { devices[poke.to].receive(poke.moves) }
        // A final exchange, as on reconnect: every stored move, then the authority's completion.
        for index in devices.indices {
            devices[index].receive(stored.shuffled(using: &random))
            if let authority { devices[index].adopt(authority.completion, finalGrid: authority.grid) }
        }

        guard let authority else {
            var expected = GameGrid(puzzle: puzzle)
            expected.apply(stored)
            for (index, device) in devices.enumerated() where device.grid != expected || device.isComplete {
                return ("seed \(seed): device-\(index) diverged in an unfinished game", false)
            }
            return (nil, false)
        }
        if authority.completion.kind == .solved, !puzzle.isSolved(letterAt: authority.grid.letter(at:)) {
            return ("seed \(seed): the authority's final grid of a solved game is not solved", true)
        }
        if server.grid != authority.grid, authority.completion.kind == .solved {
            return ("seed \(seed): moves after the solve changed the authority's grid", true)
        }
        for (index, device) in devices.enumerated() {
            if device.completion != authority.completion { return ("seed \(seed): device-\(index) kept its own completion", true) }
            if device.grid != authority.grid { return ("seed \(seed): device-\(index) does not show the final grid", true) }
            // Typing after the end is refused, so nothing more can change the grid.
            var after = device
            if (try? after.perform(.setLetter(puzzle.letterPositions[0], "Q"), wallMillis: now)) != nil {
                return ("seed \(seed): device-\(index) typed into a finished game", true)
            }
        }
        let joining = GameReplica(
            puzzle: puzzle, gameID: "g", replicaID: "device-0", authorID: "account-0",
            snapshot: Snapshot(grid: authority.grid), moves: stored, completion: authority.completion)
        if joining.grid != authority.grid || joining.journal != devices[0].journal.filter({ stored.contains($0) }) {
            return ("seed \(seed): a device rebuilt from the final snapshot differs", true)
        }
        return (nil, true)
    }

    @Test(arguments: 0..<4)
    func everyReplicaEndsWithTheAuthoritysCompletionAndGrid(block: UInt64) {
        // 4 blocks of 250 schedules; most of them end in a solve or a resignation.
        var completed = 0
        for seed in (10_000 + block * 250)..<(10_000 + (block + 1) * 250) {
            let (failure, didComplete) = Self.runThroughCompletion(seed: seed)
            if let failure {
                Issue.record("\(failure) — rerun with ConvergenceTests.runThroughCompletion(seed: \(seed))")
                return
            }
            completed += didComplete ? 1 : 0
        }
        #expect(completed > 150, "only \(completed) of 250 schedules completed: the property was hardly exercised")
    }
}
