import CrossmateCore
import CrossmateFormats
import Testing

@Suite struct FixtureFeatureTests {
    func at(_ row: Int, _ col: Int) -> GridPosition { GridPosition(row: row, col: col) }

    @Test(arguments: PuzzleFormat.allCases)
    func everyFixtureReads(format: PuzzleFormat) throws {
        for path in try Fixture.all(format) {
            let puzzle = try Fixture.puzzle(path)
            #expect(!puzzle.allClues.isEmpty, "\(path)")
        }
    }

    @Test func latin1TextInAVersion1Puz() throws {
        let bytes = try Fixture.bytes("kotwords/puz/test-iso-8859-1.puz")
        #expect(bytes.contains(0xA9))  // "©" as one ISO-8859-1 byte
        let puzzle = try PuzReader.read(bytes)
        #expect(puzzle.copyright == "© 2018 Jeff Davidson")
    }

    @Test(arguments: ["kotwords/puz/test-solved.puz", "kotwords/ipuz/test-solved.ipuz", "kotwords/jpz/test-solved.jpz"])
    func savedFillIsRead(path: String) throws {
        let puzzle = try Fixture.puzzle(path)
        let progress = try #require(puzzle.savedProgress)
        let filled = puzzle.letterPositions.map { progress.letters[puzzle.index(of: $0)] }
        let answers = puzzle.letterPositions.map { puzzle.cell(at: $0).solution ?? "" }
        #expect(filled == answers)
    }

    @Test func puzTimerAndUserRebusAreRead() throws {
        let puzzle = try Fixture.puzzle("kotwords/puz/test-solved.puz")
        let progress = try #require(puzzle.savedProgress)
        #expect(progress.elapsedSeconds == 0)
        #expect(progress.timerRunning == false)
        #expect(progress.letters[puzzle.index(of: at(2, 2))] == "XYZ")
    }

    @Test(arguments: ["kotwords/puz/test-no-solution.puz", "kotwords/ipuz/test-no-solution.ipuz", "kotwords/jpz/test-no-solution.jpz"])
    func puzzlesWithoutSolutionCannotBeChecked(path: String) throws {
        let puzzle = try Fixture.puzzle(path)
        #expect(!puzzle.hasSolution)
        #expect(puzzle.lock == nil)
        #expect(puzzle.letterPositions.count == 21)
    }

    @Test(arguments: ["kotwords/puz/test-diagramless.puz", "kotwords/ipuz/test-diagramless.ipuz"])
    func diagramlessFlag(path: String) throws {
        #expect(try Fixture.puzzle(path).isDiagramless)
    }

    @Test(arguments: ["kotwords/ipuz/test-empty-clue.ipuz", "kotwords/jpz/test-empty-clue.jpz"])
    func emptyClueIsKeptAsAnEntry(path: String) throws {
        let puzzle = try Fixture.puzzle(path)
        #expect(puzzle.across.first?.number == 1)
        #expect(puzzle.across.first?.text == "")
        #expect(puzzle.across.first?.cells.count == 4)
    }

    @Test func puzPlaceholderClueIsKeptAsWritten() throws {
        // The tool that wrote this file put "-" for the empty clue; the reader keeps what the file says.
        let puzzle = try Fixture.puzzle("kotwords/puz/test-empty-clue.puz")
        #expect(puzzle.across.first?.text == "-")
        #expect(puzzle.across.first?.cells.count == 4)
    }

    @Test func voidCellsAndRedBlocks() throws {
        let puzzle = try Fixture.puzzle("kotwords/jpz/test-void.jpz")
        #expect(puzzle.width == 7)
        #expect(puzzle.cell(at: at(0, 0)).kind == .void)
        #expect(puzzle.cell(at: at(0, 3)).kind == .block)
        #expect(puzzle.cell(at: at(3, 3)).solution == "XYZ")
        #expect(!puzzle.cell(at: at(0, 3)).isShaded)
    }

    @Test(arguments: ["kotwords/jpz/test-barred.jpz", "kotwords/xd/test-barred.xd"])
    func barsSplitEntries(path: String) throws {
        let puzzle = try Fixture.puzzle(path)
        #expect(puzzle.cell(at: at(0, 4)).bars.contains(.left))
        #expect(puzzle.cell(at: at(1, 0)).bars.contains(.top))
        // 1-Across stops at the bar before the last square of the top row.
        #expect(puzzle.across.first?.cells.count == 4)
        #expect(puzzle.clue(containing: at(4, 0), .across) == nil)
    }

    @Test(arguments: ["kotwords/jpz/test-shaded.jpz", "kotwords/xd/test-shaded.xd"])
    func shadedSquares(path: String) throws {
        let puzzle = try Fixture.puzzle(path)
        #expect(puzzle.cell(at: at(2, 0)).isShaded)
        #expect(puzzle.cell(at: at(2, 4)).isShaded)
        #expect(!puzzle.cell(at: at(0, 0)).isShaded)
    }

    @Test(arguments: ["kotwords/jpz/test-prefilled.jpz", "kotwords/xd/test-prefilled.xd"])
    func givenLetters(path: String) throws {
        let puzzle = try Fixture.puzzle(path)
        #expect(puzzle.cell(at: at(2, 2)).given == "K")
        #expect(puzzle.cells.filter { $0.given != nil }.count == 1)
    }

    @Test func htmlInJpzCluesIsReducedToText() throws {
        let puzzle = try Fixture.puzzle("kotwords/jpz/test-html.jpz")
        #expect(puzzle.across[0].text == "First across clue with bold, italic, and bold italic text")
        #expect(puzzle.across[1].text == "Second across clue with subscript and superscript")
    }

    @Test func xdMarkupIsReducedToText() throws {
        let formatting = try Fixture.puzzle("kotwords/xd/test-formatting.xd")
        #expect(formatting.across[0].text == "First across clue with bold, italic, and bold italic text")
        let plain = try Fixture.puzzle("kotwords/xd/test.xd")
        #expect(
            plain.across.map(\.text) == [
                "First across clue with special characters αβγδε", "Second across clue",
                "Third across clue", "Fourth across clue", "Fifth across clue",
            ])
    }

    @Test func jpzCellRangesAndNamespacesVariants() throws {
        let ranges = try Fixture.puzzle("kotwords/jpz/test-cell-ranges.jpz")
        #expect(ranges.across[0].cells == (0..<4).map { at(0, $0) })
        #expect(ranges.across[2].cells == (0..<5).map { at(2, $0) })
        for path in ["kotwords/jpz/test-no-namespaces.jpz", "kotwords/jpz/test-invalid-namespace.jpz"] {
            let puzzle = try Fixture.puzzle(path)
            #expect(puzzle.title == "Example Puzzle for Kotwords", "\(path)")
            #expect(puzzle.copyright == "© 2018 Jeff Davidson", "\(path)")
            #expect(puzzle.letterPositions.count == 21, "\(path)")
        }
    }

    @Test(arguments: ["kotwords/ipuz/gaps.ipuz", "kotwords/jpz/gaps.jpz"])
    func cluesFollowTheFileNotStandardNumbering(path: String) throws {
        let puzzle = try Fixture.puzzle(path)
        #expect(puzzle.across.map(\.number) == [1, 5, 6, 8, 9, 10])
        #expect(puzzle.down.map(\.number) == [1, 2, 3, 4, 7])
        #expect(puzzle.down[0].cells == (0..<4).map { at($0, 0) })
    }

    @Test(arguments: ["kotwords/ipuz/test-diagonal.ipuz", "kotwords/jpz/test-diagonal.jpz"])
    func otherClueDirectionsAreSetAside(path: String) throws {
        let puzzle = try Fixture.puzzle(path)
        #expect(puzzle.across.count == 5 && puzzle.down.count == 5)
        #expect(!puzzle.allClues.contains { $0.text == "Diagonal clue" })
    }

    @Test func bundledPuzzlesAreCompleteAndSolvable() throws {
        for identifier in BundledPuzzles.identifiers {
            let puzzle = try BundledPuzzles.puzzle(identifier)
            #expect(puzzle.hasSolution, "\(identifier)")
            #expect(!puzzle.title.isEmpty && !puzzle.author.isEmpty, "\(identifier)")
            #expect(puzzle.allClues.allSatisfy { !$0.text.isEmpty }, "\(identifier) has an empty clue")
            #expect(puzzle.isSolved { puzzle.cell(at: $0).solution ?? "" }, "\(identifier)")
        }
        #expect(try BundledPuzzles.puzzle("daybreak").width == 9)
        #expect(throws: PuzzleFileError.self) { try BundledPuzzles.puzzle("nope") }
    }
}
