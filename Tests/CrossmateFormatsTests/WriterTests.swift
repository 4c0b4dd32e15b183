import CrossmateCore
import CrossmateFormats
import Foundation
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

    /// Everything a .puz holds comes back whole from our own writer: every .puz fixture read,
    /// written and read again is the same Puzzle value (title, notes, solution and rebus, circles,
    /// the player's letters, rebus fill, GEXT marks and timer, diagramless flag, lock), plain and
    /// locked; and one with every kind of saved state set by hand.
    @Test(arguments: [
        "kotwords/puz/test.puz", "kotwords/puz/test-solved.puz", "kotwords/puz/test-iso-8859-1.puz",
        "kotwords/puz/test-diagramless.puz", "kotwords/puz/test-no-solution.puz", "kotwords/puz/gaps.puz",
        "kotwords/puz/test-empty-clue.puz", "kotwords/puz/test-simple.puz",
    ])
    func everyFieldOfAPuzComesBack(path: String) throws {
        let original = try Fixture.puzzle(path)
        #expect(try PuzReader.read(PuzWriter.write(original)) == original)
    }

    @Test func savedStateOfEveryKindComesBackPlainLockedAndDiagramless() throws {
        let source = try BundledPuzzles.puzzle("daybreak")
        let area = source.width * source.height
        var letters = [String](repeating: "", count: area)
        var flags = [SavedProgress.Flags](repeating: [], count: area)
        let squares = source.letterPositions.map { source.index(of: $0) }
        letters[squares[0]] = "A"
        letters[squares[1]] = "XYZ"  // a rebus typed by the player (RUSR)
        letters[squares[2]] = source.cells[squares[2]].solution!
        flags[squares[0]] = [.incorrect, .previouslyIncorrect]
        flags[squares[2]] = .revealed
        var cells = source.cells
        cells[squares[3]].isCircled = true
        for diagramless in [false, true] {
            let puzzle = try Puzzle(
                title: "Saved", author: "A", copyright: "C", notes: "Some notes", width: source.width, height: source.height,
                cells: cells, across: source.across, down: source.down, isDiagramless: diagramless, acceptsRebusFirstLetter: true,
                savedProgress: SavedProgress(letters: letters, flags: flags, elapsedSeconds: 754, timerRunning: true))
            let plain = try PuzReader.read(PuzWriter.write(puzzle))
            #expect(plain == puzzle)
            let locked = try PuzReader.read(PuzWriter.write(puzzle, lockKey: 2468))
            #expect(locked.savedProgress == puzzle.savedProgress && locked.notes == puzzle.notes)
            #expect(locked.isDiagramless == diagramless && locked.cells.map(\.isCircled) == puzzle.cells.map(\.isCircled))
            #expect(try locked.unlocked(withKey: 2468) == puzzle)
        }
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

    /// .puz text before version 2.0 is Windows-1252 in practice: ’ is 0x92 (read as Latin-1 it
    /// was a C1 control, and the text rule dropped it), and it is written back so; CR LF is a
    /// line break, not a space and one.
    @Test func puzTextIsWindows1252WithLineBreaks() throws {
        var puzzle = try Fixture.puzzle("kotwords/puz/test-iso-8859-1.puz")
        puzzle.title = "The puzzle’s theme — “quoted” … €5"
        puzzle.notes = "Line one\r\nline two\rline three"
        let bytes = try PuzWriter.write(puzzle)
        #expect(Array(bytes[0x18..<0x1B]) == Array("1.3".utf8), "Windows-1252 fits: no UTF-8 file")
        #expect(bytes.contains(0x92) && bytes.contains(0x93) && bytes.contains(0x85) && bytes.contains(0x80))
        let read = try PuzReader.read(bytes)
        #expect(read.title == "The puzzle’s theme — “quoted” … €5")
        #expect(read.notes == "Line one\nline two\nline three")
        // A character Windows-1252 has no byte for still makes a UTF-8 file.
        puzzle.title = "Ω"
        #expect(Array(try PuzWriter.write(puzzle)[0x18..<0x1B]) == Array("2.0".utf8))
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

    /// The .ipuz JSON written by hand is JSON as Foundation writes it: read back by
    /// JSONSerialization and written again (keys sorted, slashes kept), it comes out byte for
    /// byte the same, awkward text (quotes, backslashes, control characters, emoji) included.
    @Test(arguments: ["kotwords/ipuz/test.ipuz", "kotwords/jpz/test-barred.jpz", "kotwords/jpz/test-prefilled.jpz", "kotwords/puz/test.puz"])
    func ipuzJSONIsFoundationsJSON(path: String) throws {
        var puzzle = try Fixture.puzzle(path)
        puzzle.title = "A \"quoted\" back\\slash / tab\t, bell\u{07} and 🧩"
        puzzle.notes = "line one\nline two\r\n\u{1F}"
        let written = try IpuzWriter.write(puzzle)
        let object = try JSONSerialization.jsonObject(with: Data(written), options: [.fragmentsAllowed])
        let again = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(Array(again) == written, "\(String(decoding: written.prefix(300), as: UTF8.self))")
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

    /// Our .jpz writer keeps everything a puzzle holds: every fixture that reads (barred, voids,
    /// shading, circles, unusual numbering) comes back the same, with the player's fill.
    @Test(arguments: [
        "kotwords/jpz/test.jpz", "kotwords/jpz/test-barred.jpz", "kotwords/jpz/test-void.jpz", "kotwords/jpz/test-shaded.jpz",
        "kotwords/jpz/test-solved.jpz", "kotwords/jpz/test-no-solution.jpz", "kotwords/puz/test.puz", "kotwords/puz/test-solved.puz",
        "kotwords/ipuz/test.ipuz", "kotwords/ipuz/gaps.ipuz", "kotwords/xd/test.xd", "kotwords/xd/test-shaded.xd",
    ])
    func jpzRoundTripKeepsThePuzzleAndItsFill(path: String) throws {
        let original = try Fixture.puzzle(path)
        let reread = try JpzReader.read(JpzWriter.write(original))
        #expect(PuzzleEssence(reread) == PuzzleEssence(original))
        #expect(reread.cells.map(\.bars) == original.cells.map(\.bars))
        let filled = (original.savedProgress?.letters ?? []).filter { !$0.isEmpty }
        #expect((reread.savedProgress?.letters ?? []).filter { !$0.isEmpty } == filled)
    }

    /// .xd keeps the answers, circles or shading, rebus squares and clues (numbered the standard
    /// way); what it cannot hold — bars, a puzzle without answers — is refused with the reason.
    @Test(arguments: [
        "kotwords/xd/test.xd", "kotwords/xd/test-shaded.xd", "kotwords/puz/test.puz", "kotwords/ipuz/test.ipuz", "kotwords/jpz/test.jpz",
    ])
    func xdRoundTripKeepsThePuzzle(path: String) throws {
        let original = try Fixture.puzzle(path)
        let reread = try XdReader.read(XdWriter.write(original))
        #expect(PuzzleEssence(reread) == PuzzleEssence(original))
    }

    @Test func xdRefusesWhatItCannotHold() throws {
        let barred = try Fixture.puzzle("kotwords/jpz/test-barred.jpz")
        #expect(throws: PuzzleFileError.cannotWrite("the .xd format has no bars; save barred puzzles as .ipuz or .jpz")) {
            try PuzzleFormat.xd.write(barred)
        }
        let unknown = try Fixture.puzzle("kotwords/puz/test-no-solution.puz")
        #expect(throws: PuzzleFileError.self) { try PuzzleFormat.xd.write(unknown) }
        // A rebus answer becomes a key in the Rebus line.
        let green = try BundledPuzzles.puzzle("green-light")
        var cells = green.cells
        cells[1].solution = "AL"
        let clueTexts = Dictionary(grouping: green.allClues, by: \.direction).mapValues { clues in
            Dictionary(uniqueKeysWithValues: clues.map { ($0.number, $0.text) })
        }
        let rebus = try Puzzle(title: green.title, width: green.width, height: green.height, cells: cells, clueTexts: clueTexts)
        let text = String(decoding: try XdWriter.write(rebus), as: UTF8.self)
        #expect(text.contains("rebus: 1=AL") && text.contains("#1LSO"))
        #expect(try XdReader.read(Array(text.utf8)).cells[1].solution == "AL")
    }
}
