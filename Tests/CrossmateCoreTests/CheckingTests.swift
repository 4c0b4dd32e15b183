import CrossmateCore
import Testing

@Suite struct CheckingTests {
    func rebusPuzzle(acceptsFirstLetter: Bool) throws -> Puzzle {
        try Puzzle(
            width: 2, height: 1, cells: [.letter("XYZ"), .letter("A")], clueTexts: [:],
            acceptsRebusFirstLetter: acceptsFirstLetter)
    }

    @Test func rebusSquareAcceptsItsFullAnswerInAnyCase() throws {
        let puzzle = try rebusPuzzle(acceptsFirstLetter: false)
        #expect(puzzle.isCorrect("XYZ", at: GridPosition(row: 0, col: 0)) == true)
        #expect(puzzle.isCorrect("xyz", at: GridPosition(row: 0, col: 0)) == true)
        #expect(puzzle.isCorrect("X", at: GridPosition(row: 0, col: 0)) == false)
    }

    @Test func rebusFirstLetterCountsWhereTheFormatAllowsIt() throws {
        let puzzle = try rebusPuzzle(acceptsFirstLetter: true)
        #expect(puzzle.isCorrect("X", at: GridPosition(row: 0, col: 0)) == true)
        #expect(puzzle.isCorrect("Y", at: GridPosition(row: 0, col: 0)) == false)
    }

    @Test func solvedOnlyWhenEverySquareIsRight() throws {
        let puzzle = try rebusPuzzle(acceptsFirstLetter: false)
        #expect(puzzle.isSolved { $0.col == 0 ? "XYZ" : "A" })
        #expect(!puzzle.isSolved { $0.col == 0 ? "XYZ" : "" })
    }

    @Test func aPuzzleWithoutSolutionCannotBeChecked() throws {
        let puzzle = try Puzzle(width: 2, height: 1, cells: [.letter(nil), .letter(nil)], clueTexts: [:])
        #expect(!puzzle.hasSolution)
        #expect(puzzle.isCorrect("A", at: GridPosition(row: 0, col: 0)) == nil)
        #expect(!puzzle.isSolved { _ in "A" })
    }

    @Test func lockingHidesTheSolutionAndUnlockingRestoresIt() throws {
        let puzzle = try makePuzzle(["AB"])
        let locked = puzzle.locked(by: SolutionLock(scrambledSolution: ["Q", "R"], checksum: 7))
        #expect(!locked.hasSolution)
        #expect(locked.isCorrect("A", at: GridPosition(row: 0, col: 0)) == nil)
        let unlocked = locked.withSolution(["A", "B"])
        #expect(unlocked == puzzle)
    }
}
