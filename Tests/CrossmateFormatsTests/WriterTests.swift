import CrossmateCore
import CrossmateFormats
import Testing

@Suite struct WriterTests {
    static let puzSources = [
        "kotwords/puz/test.puz", "kotwords/puz/test-solved.puz", "kotwords/puz/test-iso-8859-1.puz",
        "kotwords/puz/test-diagramless.puz", "kotwords/puz/test-no-solution.puz", "kotwords/puz/gaps.puz",
        "kotwords/ipuz/test.ipuz", "kotwords/jpz/test.jpz", "kotwords/xd/test.xd",
    ]

    @Test(arguments: puzSources)
    func puzRoundTripKeepsThePuzzle(path: String) throws {
        let original = try Fixture.puzzle(path)
        let written = try PuzWriter.write(original)
        let reread = try PuzReader.read(written)
        #expect(PuzzleEssence(reread) == PuzzleEssence(original))
        #expect(reread.isDiagramless == original.isDiagramless)
        #expect(reread.savedProgress?.letters == original.savedProgress?.letters)
        #expect(reread.savedProgress?.elapsedSeconds == original.savedProgress?.elapsedSeconds)
    }

    @Test func puzWriterReproducesAnAcrossLiteFileByteForByte() throws {
        // test.puz was written by another tool; the same model must give the same bytes.
        let bytes = try Fixture.bytes("kotwords/puz/test.puz")
        #expect(try PuzWriter.write(PuzReader.read(bytes)) == bytes)
    }

    @Test func puzWriterPicksTheEncodingTheTextNeeds() throws {
        let latin = try PuzWriter.write(Fixture.puzzle("kotwords/puz/test-iso-8859-1.puz"))
        #expect(Array(latin[0x18..<0x1B]) == Array("1.3".utf8))
        let greek = try PuzWriter.write(Fixture.puzzle("kotwords/puz/test.puz"))
        #expect(Array(greek[0x18..<0x1B]) == Array("2.0".utf8))
    }

    @Test(arguments: [
        "kotwords/ipuz/test.ipuz", "kotwords/ipuz/test-solved.ipuz", "kotwords/jpz/test-void.jpz",
        "kotwords/jpz/test-barred.jpz", "kotwords/jpz/test-prefilled.jpz", "kotwords/jpz/test-shaded.jpz",
        "kotwords/ipuz/gaps.ipuz", "kotwords/ipuz/test-diagramless.ipuz", "kotwords/puz/test.puz",
    ])
    func ipuzRoundTripKeepsThePuzzle(path: String) throws {
        let original = try Fixture.puzzle(path)
        let reread = try IpuzReader.read(try IpuzWriter.write(original))
        #expect(PuzzleEssence(reread) == PuzzleEssence(original))
        #expect(reread.cells.map(\.bars) == original.cells.map(\.bars))
        #expect(reread.cells.map(\.given) == original.cells.map(\.given))
        #expect(reread.isDiagramless == original.isDiagramless)
        #expect(reread.savedProgress?.letters == original.savedProgress?.letters)
    }

    @Test func barredPuzzlesCannotBeWrittenAsPuz() throws {
        let barred = try Fixture.puzzle("kotwords/jpz/test-barred.jpz")
        #expect(throws: PuzzleFileError.cannotWrite("the .puz format has no bars; save barred puzzles as .ipuz")) {
            try PuzWriter.write(barred)
        }
    }

    @Test func voidsBecomeBlocksInPuz() throws {
        let voids = try Fixture.puzzle("kotwords/jpz/test-void.jpz")
        let reread = try PuzReader.read(try PuzWriter.write(voids))
        #expect(reread.cell(at: GridPosition(row: 0, col: 0)).kind == .block)
        #expect(reread.letterPositions == voids.letterPositions)
        #expect(reread.across.map(\.text) == voids.across.map(\.text))
    }

    @Test func jpzAndXdAreReadOnly() throws {
        let puzzle = try Fixture.puzzle("kotwords/puz/test.puz")
        #expect(throws: PuzzleFileError.self) { try PuzzleFormat.jpz.write(puzzle) }
        #expect(throws: PuzzleFileError.self) { try PuzzleFormat.xd.write(puzzle) }
    }
}
