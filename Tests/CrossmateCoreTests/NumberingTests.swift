import CrossmateCore
import Testing

@Suite struct NumberingTests {
    @Test func standardNumberingNumbersEveryEntryStartInReadingOrder() throws {
        let puzzle = try makePuzzle([
            "CAT#",
            "ORE#",
            "#ANT",
        ])
        let numbers = puzzle.cells.map(\.number)
        #expect(numbers == [1, 2, 3, nil, 4, nil, nil, nil, nil, 5, nil, nil])
        #expect(puzzle.across.map(\.number) == [1, 4, 5])
        #expect(puzzle.down.map(\.number) == [1, 2, 3])
        #expect(puzzle.down[1].cells == [GridPosition(row: 0, col: 1), GridPosition(row: 1, col: 1), GridPosition(row: 2, col: 1)])
    }

    @Test func singleSquareRunsAreNotEntries() throws {
        let puzzle = try makePuzzle(["A#B", "CDE"])
        #expect(puzzle.across.map(\.number) == [3])
        #expect(puzzle.down.map(\.number) == [1, 2])
    }

    @Test func barsEndEntriesLikeBlocks() throws {
        var cells = (0..<9).map { _ in Cell.letter("A") }
        cells[1].bars = [.left]  // splits row 0 after its first square
        cells[4].bars = [.top]  // splits column 1 between rows 0 and 1
        let puzzle = try Puzzle(width: 3, height: 3, cells: cells, clueTexts: [:])
        #expect(puzzle.across.first?.cells == [GridPosition(row: 0, col: 1), GridPosition(row: 0, col: 2)])
        let columnOne = puzzle.down.filter { $0.cells.contains(GridPosition(row: 1, col: 1)) }
        #expect(columnOne.first?.cells == [GridPosition(row: 1, col: 1), GridPosition(row: 2, col: 1)])
    }

    @Test func clueTextsAttachByNumberAndMissingCluesAreEmpty() throws {
        let puzzle = try makePuzzle(["AB", "CD"], clueTexts: [.across: [1: "First"], .down: [2: "Second"]])
        #expect(puzzle.across.map(\.text) == ["First", ""])
        #expect(puzzle.down.map(\.text) == ["", "Second"])
    }

    @Test func invalidGridsAreRefused() {
        #expect(throws: PuzzleError.invalidDimensions(width: 0, height: 3)) {
            try Puzzle(width: 0, height: 3, cells: [], clueTexts: [:])
        }
        #expect(throws: PuzzleError.invalidDimensions(width: 1000, height: 3)) {
            try Puzzle(width: 1000, height: 3, cells: [], clueTexts: [:])
        }
        #expect(throws: PuzzleError.cellCountMismatch(expected: 4, actual: 3)) {
            try Puzzle(width: 2, height: 2, cells: [.block, .block, .block], clueTexts: [:])
        }
        let outside = Clue(direction: .across, number: 1, text: "", cells: [GridPosition(row: 5, col: 0)])
        #expect(throws: PuzzleError.clueOutsideGrid(label: "1A")) {
            try Puzzle(width: 1, height: 1, cells: [.letter("A")], across: [outside], down: [])
        }
        let onBlock = Clue(direction: .down, number: 1, text: "", cells: [GridPosition(row: 0, col: 0)])
        #expect(throws: PuzzleError.clueOnNonLetterCell(label: "1D", position: GridPosition(row: 0, col: 0))) {
            try Puzzle(width: 1, height: 1, cells: [.block], across: [], down: [onBlock])
        }
    }
}
