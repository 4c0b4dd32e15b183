import CrossmateCore
import CrossmateSync
import Testing

@Suite struct SnapshotTests {
    /// The data-loss case from the design notes: coverage once counted seqs without regard to
    /// the replica, so a snapshot holding device A's moves up to seq 50 hid device B's seq 10.
    @Test func aSnapshotNeverHidesAnotherDevicesMoveWithAnOverlappingSeq() {
        let fromA = (1...50).map { move("A", $0, at: at(0, $0 % 5), "A", time: Int64($0)) }
        let fromB = move("B", 10, at: at(4, 4), "B", time: 1_000)
        let snapshot = Snapshot.build(width: 5, height: 5, moves: fromA)
        #expect(snapshot.coverage == ["A": 50])
        #expect(!snapshot.covers(fromB))
        let replayed = snapshot.replay(fromA + [fromB])
        #expect(replayed.letter(at: at(4, 4)) == "B")
        #expect(replayed == grid(fromA + [fromB]))
    }

    @Test func coverageStopsAtAGapAndMovesAfterItAreReplayed() {
        let moves = [
            move("A", 1, at: at(0, 0), "X", time: 1), move("A", 2, at: at(0, 1), "Y", time: 2),
            move("A", 4, at: at(0, 2), "Z", time: 4),
        ]
        let snapshot = Snapshot.build(width: 5, height: 5, moves: moves)
        #expect(snapshot.coverage == ["A": 2])
        let late = move("A", 3, at: at(0, 3), "W", time: 3)
        #expect(snapshot.replay(moves + [late]) == grid(moves + [late]))
        #expect(snapshot.extended(with: moves + [late]).coverage == ["A": 4])
    }

    @Test(arguments: 0..<40)
    func replayFromAnySnapshotEqualsReplayFromNothing(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let moves = randomMoves(count: 120, width: 5, height: 5, using: &random)
        let everything = grid(moves)
        // A snapshot built from a random subset (as some device saw it), then everything replayed.
        let seen = moves.filter { _ in Bool.random(using: &random) }
        let snapshot = Snapshot.build(width: 5, height: 5, moves: seen)
        #expect(snapshot.replay(moves.shuffled(using: &random)) == everything, "seed \(seed)")
        #expect(snapshot.extended(with: moves).replay(moves) == everything, "seed \(seed)")
        #expect(snapshot.extended(with: moves).grid == everything, "seed \(seed)")
    }

    @Test func dominanceAndTheCanonicalSnapshot() {
        let older = Snapshot(grid: GameGrid(width: 5, height: 5), coverage: ["A": 5, "B": 3])
        let newer = Snapshot(grid: GameGrid(width: 5, height: 5), coverage: ["A": 7, "B": 3, "C": 1])
        let sideways = Snapshot(grid: GameGrid(width: 5, height: 5), coverage: ["A": 9])
        #expect(newer.dominates(older) && !older.dominates(newer))
        #expect(!sideways.dominates(older))
        #expect(Snapshot.canonical(current: older, candidate: newer) == newer)
        #expect(Snapshot.canonical(current: older, candidate: sideways) == older)
        #expect(Snapshot.canonical(current: nil, candidate: sideways) == sideways)
    }

    @Test func movesMayBePrunedOnlyWhenCoveredByADurableSnapshot() {
        let snapshot = Snapshot(grid: GameGrid(width: 5, height: 5), coverage: ["A": 5])
        #expect(snapshot.allowsPruning(move("A", 5, at: at(0, 0), "X", time: 1), snapshotIsDurable: true))
        #expect(!snapshot.allowsPruning(move("A", 5, at: at(0, 0), "X", time: 1), snapshotIsDurable: false))
        #expect(!snapshot.allowsPruning(move("A", 6, at: at(0, 0), "X", time: 1), snapshotIsDurable: true))
        #expect(!snapshot.allowsPruning(move("B", 1, at: at(0, 0), "X", time: 1), snapshotIsDurable: true))
    }
}

@Suite struct ReplayTests {
    @Test(arguments: 0..<20)
    func theLastStepEqualsTheMergedGridAndEverySeekEqualsItsPrefix(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let moves = randomMoves(count: 700, width: 5, height: 5, using: &random)
        let timeline = ReplayTimeline(width: 5, height: 5, moves: moves + moves.prefix(50), checkpointInterval: 64)
        #expect(timeline.count == 700)
        #expect(timeline.state(through: timeline.count) == grid(moves))
        #expect(timeline.state(through: 0) == GameGrid(width: 5, height: 5))
        for _ in 0..<20 {
            let step = Int.random(in: 0...timeline.count, using: &random)
            #expect(timeline.state(through: step) == grid(Array(timeline.steps.prefix(step))), "seed \(seed) step \(step)")
        }
    }

    @Test func timelineOrderIsTimestampThenAuthorThenSeq() {
        let moves = [
            move("r2", 1, at: at(0, 0), "A", time: 5, author: "bob"),
            move("r1", 2, at: at(0, 1), "B", time: 5, author: "amy"),
            move("r1", 1, at: at(0, 2), "C", time: 5, author: "amy"),
            move("r3", 1, at: at(0, 3), "D", time: 4, author: "zed"),
        ]
        let timeline = ReplayTimeline(width: 5, height: 5, moves: moves)
        #expect(timeline.steps.map(\.letter) == ["D", "C", "B", "A"])
    }

    @Test func assemblerWaitsForSealsAndMissingMoves() {
        let moves = [
            move("A", 1, at: at(0, 0), "X", time: 1), move("A", 2, at: at(0, 1), "Y", time: 2),
            move("B", 1, at: at(1, 0), "Z", time: 3),
        ]
        let sealA = Seal(gameID: "g", replicaID: "A", lastSeq: 2)
        let sealB = Seal(gameID: "g", replicaID: "B", lastSeq: 1)
        guard case let .waiting(missing) = ReplayAssembler.assemble(width: 5, height: 5, moves: moves, seals: [sealA]) else {
            Issue.record("expected waiting for B's seal")
            return
        }
        #expect(missing == ["B"])
        guard
            case let .waiting(stillMissing) = ReplayAssembler.assemble(
                width: 5, height: 5, moves: moves, seals: [sealA, Seal(gameID: "g", replicaID: "B", lastSeq: 2)])
        else {
            Issue.record("expected waiting for B's second move")
            return
        }
        #expect(stillMissing == ["B"])
        guard case let .ready(timeline) = ReplayAssembler.assemble(width: 5, height: 5, moves: moves, seals: [sealA, sealB]) else {
            Issue.record("expected ready")
            return
        }
        #expect(timeline.count == 3)
        // A removed player's replica (author "author-B" in these moves) never seals: its moves
        // held, without gaps, are all it will ever have.
        let removedAuthor = Set(moves.filter { $0.replicaID == "B" }.map(\.authorID))
        guard case .ready = ReplayAssembler.assemble(width: 5, height: 5, moves: moves, seals: [sealA], removed: removedAuthor) else {
            Issue.record("expected ready with B removed")
            return
        }
        let gap = moves + [move("B", 3, at: at(2, 0), "Q", time: 4)]
        guard case .waiting = ReplayAssembler.assemble(width: 5, height: 5, moves: gap, seals: [sealA], removed: removedAuthor) else {
            Issue.record("expected waiting for B's missing second move")
            return
        }
        guard case .unavailable = ReplayAssembler.assemble(width: 5, height: 5, moves: nil, seals: []) else {
            Issue.record("expected unavailable")
            return
        }
    }
}

@Suite struct ScoreboardTests {
    @Test func lettersChecksAndRevealsPerPlayer() throws {
        var ann = GameReplica(puzzle: Puzzles.greenLight, gameID: "g", replicaID: "ann-1", authorID: "ann")
        var bob = GameReplica(puzzle: Puzzles.greenLight, gameID: "g", replicaID: "bob-1", authorID: "bob")
        var moves: [Move] = []
        moves += try ann.perform(.setLetter(at(1, 0), "G"), wallMillis: 1)
        moves += try ann.perform(.setLetter(at(1, 1), "R"), wallMillis: 2)
        bob.receive(moves)
        moves += try bob.perform(.setLetter(at(1, 2), "E"), wallMillis: 3)
        moves += try bob.perform(.check(.word(at(1, 0), .across)), wallMillis: 4)
        moves += try bob.perform(.reveal(.square(at(2, 0))), wallMillis: 5)
        moves += try ann.perform(.reveal(.square(at(3, 0))), wallMillis: 6)
        var final = GameGrid(puzzle: Puzzles.greenLight)
        final.apply(moves)
        let scores = Scoreboard.scores(finalGrid: final, moves: moves)
        #expect(
            scores == [
                PlayerScore(authorID: "ann", lettersAuthored: 2, checksUsed: 0, revealsUsed: 1, squaresRevealed: 1),
                // One check of a three-letter word: one gesture, three squares checked.
                PlayerScore(authorID: "bob", lettersAuthored: 1, checksUsed: 1, revealsUsed: 1, squaresChecked: 3, squaresRevealed: 1),
            ])
    }
}

/// A replica rebuilt from a snapshot keeps its own history: what the server does for a browser's
/// device and what a native client does after a restart.
@Suite struct RebuiltReplicaTests {
    @Test(arguments: 0..<20)
    func aReplicaRebuiltFromAnySnapshotHasTheSameNextSeqUndoAndRedo(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let puzzle = Puzzles.daybreak
        var ann = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "ann-phone", authorID: "ann")
        var bob = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "bob-laptop", authorID: "bob")
        var all: [Move] = []
        var time: Int64 = 1_000
        for _ in 0..<60 {
            time += Int64.random(in: 0...3, using: &random)
            let square = puzzle.letterPositions.randomElement(using: &random)!
            let letter = ["A", "E", "S", "T"].randomElement(using: &random)!
            let annTurn = Bool.random(using: &random)
            let command: Command =
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<6: .setLetter(square, letter)
                case 6: .delete(square)
                case 7, 8: .undo
                default: .redo
                }
            let made = (try? (annTurn ? ann.perform(command, wallMillis: time) : bob.perform(command, wallMillis: time))) ?? []
            if annTurn { bob.receive(made) } else { ann.receive(made) }
            all += made
        }
        // Snapshots taken anywhere along the log, covering some of Ann's moves and some of Bob's.
        for cut in [0, all.count / 3, all.count / 2, all.count] {
            let snapshot = Snapshot.build(width: puzzle.width, height: puzzle.height, moves: all.prefix(cut))
            let rebuilt = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "ann-phone", authorID: "ann", snapshot: snapshot, moves: all)
            #expect(rebuilt.nextSeq == ann.nextSeq)
            #expect(rebuilt.journal == ann.journal)
            #expect(rebuilt.grid == ann.grid)
            #expect(rebuilt.canUndo == ann.canUndo && rebuilt.canRedo == ann.canRedo)
            var original = ann
            var copy = rebuilt
            for command in [Command.undo, .undo, .redo] {
                let expected = try? original.perform(command, wallMillis: time + 10)
                let got = try? copy.perform(command, wallMillis: time + 10)
                #expect(got == expected)
            }
        }
    }
}
