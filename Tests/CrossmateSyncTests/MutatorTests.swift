import CrossmateCore
import CrossmateSync
import Testing

@Suite struct MutatorTests {
    // green-light:  # A L S O / G R E E N / L E G A L / U N I T Y / E A T S #
    func replica(_ id: String = "phone", author: String = "ann") -> GameReplica {
        GameReplica(puzzle: Puzzles.greenLight, gameID: "g", replicaID: id, authorID: author)
    }

    @Test func typingMakesOneInputMoveWithEveryField() throws {
        var game = replica()
        let moves = try game.perform(.setLetter(at(1, 0), "g"), wallMillis: 1_000)
        let move = try #require(moves.first)
        #expect(moves.count == 1)
        #expect(move.letter == "G" && move.kind == .input && move.seq == 1)
        #expect(move.authorID == "ann" && move.cellAuthorID == "ann" && move.replicaID == "phone")
        #expect(move.timestamp == HLCTimestamp(wallMillis: 1_000))
        #expect(move.prevSeqAtCell == nil && move.batchID == "phone:1")
        let again = try game.perform(.setLetter(at(1, 0), "X"), wallMillis: 1_000)
        #expect(again.first?.prevSeqAtCell == 1 && again.first?.seq == 2)
        #expect(game.grid.letter(at: at(1, 0)) == "X")
    }

    /// Autocheck (a solver's setting): a wrong letter is marked checked-wrong in the same undo
    /// step, counts as one check in the scoreboard, and undo takes both back; a right letter is
    /// written plainly.
    @Test func autocheckMarksAWrongLetterInTheSameStep() throws {
        var game = replica()
        let right = try game.perform(.setLetter(at(1, 0), "G", autocheck: true), wallMillis: 1)
        #expect(right.count == 1 && right[0].kind == .input && game.grid.state(at: at(1, 0)).mark.verdict == .none)
        let wrong = try game.perform(.setLetter(at(1, 1), "X", autocheck: true), wallMillis: 2)
        #expect(wrong.map(\.kind) == [.input, .check] && Set(wrong.map(\.batchID)).count == 1)
        #expect(game.grid.state(at: at(1, 1)).mark.verdict == .checkedWrong && game.grid.letter(at: at(1, 1)) == "X")
        // The same wrong letter again, typed before autocheck was on: marked, nothing rewritten.
        try game.perform(.setLetter(at(2, 0), "Q"), wallMillis: 3)
        let again = try game.perform(.setLetter(at(2, 0), "Q", autocheck: true), wallMillis: 4)
        #expect(again.map(\.kind) == [.check] && game.grid.state(at: at(2, 0)).mark.verdict == .checkedWrong)
        let scores = Scoreboard.scores(finalGrid: game.grid, moves: game.journal)
        #expect(scores.first { $0.authorID == "ann" }?.checksUsed == 2)
        try game.perform(.undo, wallMillis: 5)
        try game.perform(.undo, wallMillis: 6)
        #expect(game.grid.letter(at: at(1, 1)).isEmpty && game.grid.state(at: at(1, 1)).mark.verdict == .none)
    }

    @Test func aMoveOnlyWhenTheSquareChanges() throws {
        var game = replica()
        try game.perform(.setLetter(at(1, 0), "G"), wallMillis: 1)
        #expect(try game.perform(.setLetter(at(1, 0), "g"), wallMillis: 2).isEmpty)
        #expect(try game.perform(.delete(at(2, 0)), wallMillis: 3).isEmpty)
        #expect(try game.perform(.clear(.word(at(3, 0), .across)), wallMillis: 4).isEmpty)
        #expect(try game.perform(.check(.word(at(3, 0), .across)), wallMillis: 5).isEmpty)
        #expect(game.journal.count == 1)
    }

    @Test func pencilLettersAreMarked() throws {
        var game = replica()
        try game.perform(.setLetter(at(1, 0), "G", pencil: true), wallMillis: 1)
        #expect(game.grid.state(at: at(1, 0)).mark == .pencil)
        try game.perform(.setLetter(at(1, 0), "G"), wallMillis: 2)
        #expect(game.grid.state(at: at(1, 0)).mark == .none)
    }

    @Test func rebusLettersAndInvalidLetters() throws {
        var game = replica()
        try game.perform(.setLetter(at(1, 0), "gre"), wallMillis: 1)
        #expect(game.grid.letter(at: at(1, 0)) == "GRE")
        #expect(throws: MutationRefusal.invalidLetter(" ")) { try game.perform(.setLetter(at(1, 0), " "), wallMillis: 2) }
        #expect(throws: MutationRefusal.invalidLetter("")) { try game.perform(.setLetter(at(1, 0), ""), wallMillis: 2) }
        #expect(throws: MutationRefusal.notALetterSquare(at(0, 0))) { try game.perform(.setLetter(at(0, 0), "A"), wallMillis: 2) }
        #expect(throws: MutationRefusal.notALetterSquare(at(9, 9))) { try game.perform(.delete(at(9, 9)), wallMillis: 2) }
    }

    @Test func checkMarksWrongAndRightAndAWrongMarkClearsWhenTheLetterChanges() throws {
        var game = replica()
        try game.perform(.setLetter(at(1, 0), "G"), wallMillis: 1)
        try game.perform(.setLetter(at(1, 1), "Q"), wallMillis: 2)
        let checks = try game.perform(.check(.word(at(1, 0), .across)), wallMillis: 3)
        #expect(checks.count == 2 && Set(checks.map(\.batchID)).count == 1 && checks.allSatisfy { $0.kind == .check })
        #expect(game.grid.state(at: at(1, 0)).mark.verdict == .checkedRight)
        #expect(game.grid.state(at: at(1, 1)).mark.verdict == .checkedWrong)
        #expect(checks.first?.cellAuthorID == "ann")
        try game.perform(.setLetter(at(1, 1), "R"), wallMillis: 4)
        #expect(game.grid.state(at: at(1, 1)).mark.verdict == .none)
    }

    @Test func revealLocksSquaresAndOnlyUndoUnlocksThem() throws {
        var game = replica()
        try game.perform(.setLetter(at(1, 0), "G"), wallMillis: 1)
        let reveals = try game.perform(.reveal(.word(at(1, 0), .across)), wallMillis: 2)
        #expect(reveals.count == 4)  // G was already right
        #expect(game.grid.state(at: at(1, 1)).mark.verdict == .revealed)
        #expect(game.grid.letter(at: at(1, 1)) == "R")
        #expect(throws: MutationRefusal.squareRevealed(at(1, 1))) { try game.perform(.setLetter(at(1, 1), "X"), wallMillis: 3) }
        #expect(throws: MutationRefusal.squareRevealed(at(1, 1))) { try game.perform(.delete(at(1, 1)), wallMillis: 3) }
        #expect(try game.perform(.clear(.word(at(1, 0), .across)), wallMillis: 3).map(\.position) == [at(1, 0)])
        #expect(try game.perform(.check(.square(at(1, 1))), wallMillis: 4).isEmpty)
    }

    @Test func checkAndRevealNeedASolution() throws {
        let blank = try Puzzle(width: 2, height: 1, cells: [.letter(nil), .letter(nil)], clueTexts: [:])
        var game = GameReplica(puzzle: blank, gameID: "g", replicaID: "r", authorID: "a")
        try game.perform(.setLetter(at(0, 0), "A"), wallMillis: 1)
        #expect(throws: MutationRefusal.noSolution) { try game.perform(.check(.puzzle), wallMillis: 2) }
        #expect(throws: MutationRefusal.noSolution) { try game.perform(.reveal(.puzzle), wallMillis: 2) }
        #expect(game.completion == nil)
    }

    @Test func solvingCompletesWithTheTimeOfTheCompletingMoveAndFreezesTheGame() throws {
        var game = replica()
        let answers = Puzzles.greenLight.letterPositions.map { ($0, Puzzles.greenLight.cell(at: $0).solution!) }
        for (index, (position, letter)) in answers.dropLast().enumerated() {
            try game.perform(.setLetter(position, letter), wallMillis: Int64(index + 1))
        }
        #expect(game.completion == nil)
        let last = try game.perform(.setLetter(answers.last!.0, answers.last!.1), wallMillis: 999)
        #expect(game.completion == Completion(kind: .solved, at: last[0].timestamp, by: "ann"))
        let completion = try #require(game.completion)
        #expect(throws: MutationRefusal.gameComplete(completion)) { try game.perform(.setLetter(at(1, 0), "X"), wallMillis: 1_000) }
        #expect(throws: MutationRefusal.gameComplete(completion)) { try game.perform(.undo, wallMillis: 1_000) }
        #expect(throws: MutationRefusal.gameComplete(completion)) { try game.perform(.redo, wallMillis: 1_000) }
        #expect(!game.canUndo && !game.canRedo)
    }

    @Test func lateMovesAfterCompletionAreRefusedAndEarlierOnesLeaveTheGridFinal() throws {
        var game = replica()
        try game.perform(.reveal(.puzzle), wallMillis: 100)
        let completion = try #require(game.completion)
        let finalGrid = game.grid
        let late = move("tablet", 1, at: at(1, 0), "Z", time: 500)
        let early = move("laptop", 1, at: at(1, 1), "Z", time: 50)
        let refused = game.receive([late, early])
        #expect(refused == [late])
        #expect(game.grid == finalGrid)
        #expect(completion.kind == .solved)
    }

    @Test func resignEndsTheGame() throws {
        var game = replica()
        let ending = try game.resign(wallMillis: 42)
        #expect(ending.kind == .resigned && ending.by == "ann")
        #expect(throws: MutationRefusal.gameComplete(ending)) { try game.perform(.setLetter(at(1, 0), "G"), wallMillis: 43) }
    }

    @Test func aSlowClockReplicaThatOverwritesALetterItHasSeenStillWins() throws {
        var fast = replica("fast-phone", author: "ann")
        var slow = replica("slow-phone", author: "bob")
        let fromFuture = try fast.perform(.setLetter(at(1, 0), "Q"), wallMillis: 9_000_000)
        slow.receive(fromFuture)
        // The slow device's wall clock reads far earlier, yet its overwrite is stamped later.
        let overwrite = try slow.perform(.setLetter(at(1, 0), "G"), wallMillis: 1_000)
        #expect(overwrite[0].timestamp > fromFuture[0].timestamp)
        fast.receive(overwrite)
        #expect(fast.grid.letter(at: at(1, 0)) == "G")
        #expect(slow.grid == fast.grid)
    }

    @Test func restartingFromStoredMovesRestoresTheReplica() throws {
        var game = replica()
        try game.perform(.setLetter(at(1, 0), "G"), wallMillis: 1)
        try game.perform(.setLetter(at(1, 1), "R"), wallMillis: 2)
        let friend = move("tablet", 1, at: at(1, 2), "E", time: 3, author: "bob")
        game.receive([friend])
        let restored = GameReplica(
            puzzle: Puzzles.greenLight, gameID: "g", replicaID: "phone", authorID: "ann",
            moves: [friend] + game.journal.reversed())
        #expect(restored.grid == game.grid)
        #expect(restored.journal == game.journal)
        #expect(restored.nextSeq == 3)
        #expect(restored.clock.latest >= friend.timestamp)
    }
}

/// The checks a receiver makes of a move it did not make (MoveTrust): each rule refuses the
/// forgery it is there for, and lets the mutator's own moves through.
@Suite struct MoveTrustTests {
    // green-light:  # A L S O / G R E E N / L E G A L / U N I T Y / E A T S #
    let puzzle = Puzzles.greenLight
    let players: Set<AuthorID> = ["ann", "bob"]

    func forged(
        _ kind: MoveKind = .input, letter: String = "G", verdict: CellMark.Verdict = .none, pencil: Bool = false,
        cellAuthor: AuthorID = "ann", seq: Int = 3, target: Int? = nil, prev: Int? = nil
    ) -> Move {
        Move(
            gameID: "g", replicaID: "phone", authorID: "ann", seq: seq, timestamp: HLCTimestamp(wallMillis: 1),
            position: at(1, 0), letter: letter, mark: CellMark(isPencil: pencil, verdict: verdict), cellAuthorID: cellAuthor,
            kind: kind, batchID: "b", targetSeq: target, prevSeqAtCell: prev)
    }

    func violation(_ move: Move, in puzzle: Puzzle? = nil) -> MoveTrust.Violation? {
        do {
            try MoveTrust.check(move, puzzle: puzzle ?? self.puzzle, isPlayer: players.contains)
            return nil
        } catch { return error }
    }

    @Test func honestMovesPass() throws {
        var ann = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "phone", authorID: "ann")
        var bob = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "tablet", authorID: "bob")
        var moves = try ann.perform(.setLetter(at(1, 0), "X"), wallMillis: 1)
        moves += try ann.perform(.setLetter(at(1, 1), "R", pencil: true), wallMillis: 2)
        bob.receive(moves)
        moves += try bob.perform(.check(.word(at(1, 0), .across)), wallMillis: 3)
        moves += try bob.perform(.reveal(.square(at(2, 0))), wallMillis: 4)
        ann.receive(Array(moves.suffix(from: 2)))
        moves += try ann.perform(.clear(.square(at(1, 1))), wallMillis: 5)
        moves += try ann.perform(.undo, wallMillis: 6)
        moves += try ann.perform(.redo, wallMillis: 7)
        moves += try ann.perform(.delete(at(1, 0)), wallMillis: 8)
        #expect(Set(moves.map(\.kind)) == Set(MoveKind.allCases))
        for move in moves { #expect(violation(move) == nil, "\(move)") }
    }

    @Test func forgeriesAreRefused() {
        // Misattribution: a letter typed as someone else's, or as nobody's.
        #expect(violation(forged(cellAuthor: "bob")) == .typedForAnotherAuthor("bob"))
        #expect(violation(forged(cellAuthor: "")) == .letterWithoutAuthor)
        #expect(violation(forged(letter: "", cellAuthor: "ann")) == .emptySquareWithAuthorOrMark)
        #expect(violation(forged(letter: "", verdict: .checkedWrong, cellAuthor: "")) == .emptySquareWithAuthorOrMark)
        // A wrong letter locked in as revealed, or marked right; a right one marked wrong.
        #expect(violation(forged(.reveal, letter: "X", verdict: .revealed)) == .falseVerdict(.revealed, "X"))
        #expect(violation(forged(.check, letter: "X", verdict: .checkedRight)) == .falseVerdict(.checkedRight, "X"))
        #expect(violation(forged(.check, letter: "G", verdict: .checkedWrong)) == .falseVerdict(.checkedWrong, "G"))
        #expect(violation(forged(.input, letter: "X", verdict: .checkedRight)) == .falseVerdict(.checkedRight, "X"))
        // Verdicts belong to their kinds.
        #expect(violation(forged(.input, verdict: .revealed)) == .wrongVerdictForKind(.input, .revealed))
        #expect(violation(forged(.check, verdict: .none)) == .wrongVerdictForKind(.check, .none))
        #expect(violation(forged(.reveal, verdict: .revealed, pencil: true)) == .wrongVerdictForKind(.reveal, .revealed))
        #expect(violation(forged(.clear)) == .clearLeavesLetter)
        // Someone else's letter names a player of the game.
        #expect(violation(forged(.check, verdict: .checkedRight, cellAuthor: "mallory")) == .unknownAuthor("mallory"))
        #expect(violation(forged(.check, verdict: .checkedRight, cellAuthor: "bob")) == nil)
        // Undo and redo name what they act on, earlier than themselves.
        #expect(violation(forged(.undo)) == .missingTarget(.undo))
        #expect(violation(forged(.redo, target: 3)) == .seqOutOfOrder("targetSeq", 3))
        #expect(violation(forged(.input, prev: 0)) == .seqOutOfOrder("prevSeqAtCell", 0))
        #expect(violation(forged(.undo, target: 2, prev: 1)) == nil)
    }

    @Test func aPuzzleWithoutItsSolutionHasNoVerdicts() throws {
        var cells = puzzle.cells
        for index in cells.indices { cells[index].solution = nil }
        let blind = try Puzzle(title: "t", width: puzzle.width, height: puzzle.height, cells: cells, across: puzzle.across, down: puzzle.down)
        #expect(violation(forged(.check, verdict: .checkedRight), in: blind) == .noSolutionForVerdict)
        #expect(violation(forged(.input), in: blind) == nil)
    }
}
