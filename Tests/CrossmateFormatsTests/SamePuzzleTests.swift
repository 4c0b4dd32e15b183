import CrossmateCore
import CrossmateFormats
import Testing

@Suite struct SamePuzzleTests {
    @Test(arguments: [
        "kotwords/ipuz/test.ipuz", "kotwords/jpz/test.jpz", "kotwords/xd/test.xd",
        "crossmate/test-zipped.jpz", "crossmate/test-stored.jpz", "crossmate/test-jsonp.ipuz",
        "kotwords/jpz/test-inline-cells.jpz", "kotwords/ipuz/test-zero-indexed.ipuz",
    ])
    func everyFormatReadsToTheSamePuzzleAsThePuz(path: String) throws {
        let reference = PuzzleEssence(try Fixture.puzzle("kotwords/puz/test.puz"))
        #expect(PuzzleEssence(try Fixture.puzzle(path)) == reference)
    }

    @Test func theSharedPuzzleHasItsRebusCirclesAndUnicode() throws {
        let puzzle = try Fixture.puzzle("kotwords/puz/test.puz")
        #expect(puzzle.width == 5 && puzzle.height == 5)
        #expect(puzzle.title == "Example Puzzle for Kotwords")
        #expect(puzzle.copyright == "© 2018 Jeff Davidson")
        #expect(puzzle.notes == "Notepad text goes here.")
        #expect(puzzle.cell(at: GridPosition(row: 2, col: 2)).solution == "XYZ")
        #expect(puzzle.cell(at: GridPosition(row: 2, col: 0)).isCircled)
        #expect(puzzle.cell(at: GridPosition(row: 2, col: 4)).isCircled)
        #expect(puzzle.across.first?.text == "First across clue with special characters αβγδε")
        #expect(puzzle.down.map(\.number) == [1, 2, 3, 4, 7])
        #expect(puzzle.acceptsRebusFirstLetter)
        #expect(puzzle.isCorrect("X", at: GridPosition(row: 2, col: 2)) == true)
    }

    @Test func sniffingFindsTheFormatWithoutAnExtension() throws {
        for path in [
            "kotwords/puz/test.puz", "kotwords/ipuz/test.ipuz", "kotwords/jpz/test.jpz",
            "kotwords/xd/test.xd", "crossmate/test-zipped.jpz",
        ] {
            let puzzle = try PuzzleFile.read(try Fixture.bytes(path), fileName: "download")
            #expect(puzzle.title == "Example Puzzle for Kotwords", "\(path)")
        }
    }
}
