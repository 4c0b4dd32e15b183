import CrossmateCore
import Testing

@Suite struct NavigationTests {
    // C A T #
    // O R E #
    // # A N T
    let puzzle = try! makePuzzle(["CAT#", "ORE#", "#ANT"])

    func at(_ row: Int, _ col: Int) -> GridPosition { GridPosition(row: row, col: col) }

    /// Every client opens a game on the same square: the first empty one of the first clue
    /// that has one, in its direction; the first clue's first square in a full grid.
    @Test func theOpeningCursorIsTheFirstEmptySquareOfTheFirstUnfinishedClue() {
        var letters: [GridPosition: String] = [:]
        let letterAt = { (position: GridPosition) in letters[position] ?? "" }
        #expect(puzzle.openingCursor(letterAt: letterAt) == (at(0, 0), .across))
        letters[at(0, 0)] = "C"
        #expect(puzzle.openingCursor(letterAt: letterAt) == (at(0, 1), .across))
        for position in [at(0, 1), at(0, 2)] { letters[position] = "X" }
        // 1 Across full: the next across clue with a gap.
        #expect(puzzle.openingCursor(letterAt: letterAt) == (at(1, 0), .across))
        for position in puzzle.letterPositions { letters[position] = "X" }
        #expect(puzzle.openingCursor(letterAt: letterAt) == (at(0, 0), .across))
    }

    @Test func nextCellAcrossSkipsBlocksAndContinuesOnTheNextRow() {
        #expect(puzzle.nextCell(after: at(0, 1), .across) == at(0, 2))
        #expect(puzzle.nextCell(after: at(0, 2), .across) == at(1, 0))
        #expect(puzzle.nextCell(after: at(1, 2), .across) == at(2, 1))
        #expect(puzzle.nextCell(after: at(2, 3), .across) == nil)
    }

    @Test func previousCellAcrossSkipsBlocks() {
        #expect(puzzle.previousCell(before: at(2, 1), .across) == at(1, 2))
        #expect(puzzle.previousCell(before: at(0, 0), .across) == nil)
    }

    @Test func nextCellDownWalksColumnsAndSkipsBlocks() {
        #expect(puzzle.nextCell(after: at(1, 0), .down) == at(0, 1))
        #expect(puzzle.nextCell(after: at(2, 2), .down) == at(2, 3))
        #expect(puzzle.previousCell(before: at(0, 1), .down) == at(1, 0))
    }

    @Test func wordContainingACellInEachDirection() {
        #expect(puzzle.clue(containing: at(1, 1), .across)?.number == 4)
        #expect(puzzle.clue(containing: at(1, 1), .down)?.number == 2)
        #expect(puzzle.clue(containing: at(2, 3), .down) == nil)
    }

    @Test func nextAndPreviousClueWrapAroundSolvingOrder() throws {
        let first = try #require(puzzle.across.first)
        let lastAcross = try #require(puzzle.across.last)
        let lastDown = try #require(puzzle.down.last)
        #expect(puzzle.nextClue(after: lastAcross) == puzzle.down.first)
        #expect(puzzle.nextClue(after: lastDown) == first)
        #expect(puzzle.previousClue(before: first) == lastDown)
    }

    @Test func nextWordFromACursorMovesToTheFollowingClue() {
        #expect(puzzle.nextWord(from: at(0, 2), .across)?.label == "4A")
        #expect(puzzle.previousWord(from: at(1, 0), .across)?.label == "1A")
        #expect(puzzle.nextWord(from: at(2, 3), .down)?.label == "1A")
    }

    @Test func firstEmptyCellOfAWord() throws {
        let clue = try #require(puzzle.clue(containing: at(0, 0), .across))
        let filled: [GridPosition: String] = [at(0, 0): "C"]
        #expect(puzzle.firstEmptyCell(of: clue) { filled[$0] ?? "" } == at(0, 1))
        #expect(puzzle.firstEmptyCell(of: clue) { _ in "X" } == nil)
    }
}
