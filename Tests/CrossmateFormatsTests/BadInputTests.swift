import CrossmateCore
import CrossmateFormats
import Foundation
import Testing

@Suite struct BadInputTests {
    let puz = try! Fixture.bytes("kotwords/puz/test.puz")
    /// Where the strings of test.puz end (the notes' terminating NUL); extension sections follow.
    var stringsEnd: Int { 0x18E }

    func error(_ read: () throws(PuzzleFileError) -> Puzzle) -> PuzzleFileError? {
        do {
            _ = try read()
            return nil
        } catch { return error }
    }

    @Test func everyTruncationOfAPuzIsAnErrorNotACrash() {
        // A cut exactly after the notes or after a whole section leaves a shorter valid file;
        // every other cut is refused.
        let wholeFileEnds: Set = [stringsEnd, stringsEnd + 1, 0x1B0, 0x1B1, 0x1C0, 0x1C1, puz.count - 1]
        for length in 0..<puz.count where !wholeFileEnds.contains(length) {
            let failure = error { () throws(PuzzleFileError) in try PuzReader.read(Array(puz.prefix(length))) }
            #expect(failure != nil, "a \(length)-byte prefix was accepted")
        }
        #expect(
            error { () throws(PuzzleFileError) in try PuzReader.read(Array(puz.prefix(40))) }
                == .truncated("the header needs 52 bytes but the file has 40"))
        #expect(
            error { () throws(PuzzleFileError) in try PuzReader.read(Array(puz.prefix(0x1C4))) }
                == .truncated("the file ends inside an extension section header"))
        #expect(
            error { () throws(PuzzleFileError) in try PuzReader.read(Array(puz.prefix(0x1CC))) }
                == .truncated("the GEXT section announces 25 bytes but the file ends first"))
    }

    @Test func everyFlippedByteUnderAChecksumIsCaught() {
        let covered = Array(0..<0x18) + Array(0x2C...stringsEnd)
        for offset in covered {
            var bytes = puz
            bytes[offset] ^= 0x01
            #expect(error { () throws(PuzzleFileError) in try PuzReader.read(bytes) } != nil, "flip at \(offset) was accepted")
        }
    }

    @Test func eachChecksumFailureIsNamed() {
        func corrupt(_ offset: Int) -> PuzzleFileError? {
            var bytes = puz
            bytes[offset] ^= 0xFF
            return error { () throws(PuzzleFileError) in try PuzReader.read(bytes) }
        }
        #expect(corrupt(0x00) == .checksumMismatch("the global checksum does not match the file's contents"))
        #expect(corrupt(0x0E) == .checksumMismatch("the header (CIB) checksum does not match the header"))
        #expect(corrupt(0x12) == .checksumMismatch("the masked (ICHEATED) checksums do not match the file's contents"))
        #expect(corrupt(0x40) == .checksumMismatch("the global checksum does not match the file's contents"))
        #expect(corrupt(0x1CE) == .checksumMismatch("the GEXT section checksum does not match its data"))
    }

    @Test func junkBeforeTheHeaderIsSkipped() throws {
        let junk = [UInt8](repeating: 0x7A, count: 100) + puz
        #expect(PuzzleEssence(try PuzReader.read(junk)) == PuzzleEssence(try PuzReader.read(puz)))
    }

    @Test func notACrosswordAtAll() {
        let inputs: [(String, [UInt8])] = [
            ("notes.txt", Array("hello, world".utf8)),
            ("x.puz", Array("hello, world".utf8)),
            ("x.ipuz", Array("[1, 2, 3]".utf8)),
            ("x.ipuz", Array("{\"kind\": [\"http://ipuz.org/sudoku#1\"]}".utf8)),
            ("x.ipuz", Array("{\"kind\": [".utf8)),
            ("x.jpz", Array("<crossword-compiler><rectangular-puzzle><grid".utf8)),
            ("x.jpz", Array("<html><body>not a puzzle</body></html>".utf8)),
            ("x.xd", [0xFF, 0xFE, 0x00]),
            ("empty.puz", []),
        ]
        for (name, bytes) in inputs {
            let failure = error { () throws(PuzzleFileError) in try PuzzleFile.read(bytes, fileName: name) }
            guard case .notACrossword = failure else {
                Issue.record("\(name) \(bytes.prefix(20)): \(String(describing: failure))")
                continue
            }
        }
    }

    @Test func absurdDimensionsAreRefused() {
        var zeroWidth = puz
        zeroWidth[0x2C] = 0
        #expect(error { () throws(PuzzleFileError) in try PuzReader.read(zeroWidth) } == .invalidPuzzle(.invalidDimensions(width: 0, height: 5)))

        let hugeIpuz = #"{"kind":["http://ipuz.org/crossword#1"],"dimensions":{"width":100000,"height":100000},"puzzle":[]}"#
        #expect(
            error { () throws(PuzzleFileError) in try IpuzReader.read(Array(hugeIpuz.utf8)) }
                == .invalidPuzzle(.invalidDimensions(width: 100000, height: 100000)))

        let jpz =
            #"<crossword-compiler><rectangular-puzzle><crossword><grid width="0" height="5"/></crossword></rectangular-puzzle></crossword-compiler>"#
        #expect(
            error { () throws(PuzzleFileError) in try JpzReader.read(Array(jpz.utf8)) }
                == .invalidPuzzle(.invalidDimensions(width: 0, height: 5)))

        let wideXd = "Title: wide\n\n\n" + String(repeating: "A", count: 300) + "\n"
        #expect(
            error { () throws(PuzzleFileError) in try XdReader.read(Array(wideXd.utf8)) }
                == .invalidPuzzle(.invalidDimensions(width: 300, height: 1)))
    }

    @Test func gridsThatDisagreeWithTheirDimensions() {
        let shortRows = #"{"kind":["http://ipuz.org/crossword#1"],"dimensions":{"width":3,"height":1},"puzzle":[["0","0"]]}"#
        #expect(
            error { () throws(PuzzleFileError) in try IpuzReader.read(Array(shortRows.utf8)) }
                == .malformed("row 1 of the ipuz \"puzzle\" grid does not have 3 squares"))
        let outside =
            #"<crossword-compiler><rectangular-puzzle><crossword><grid width="2" height="2"><cell x="3" y="1"/></grid></crossword></rectangular-puzzle></crossword-compiler>"#
        #expect(
            error { () throws(PuzzleFileError) in try JpzReader.read(Array(outside.utf8)) }
                == .malformed("a .jpz <cell> has no position inside the 2×2 grid"))
        let ragged = "Title: t\n\n\nABC\nAB\n"
        #expect(
            error { () throws(PuzzleFileError) in try XdReader.read(Array(ragged.utf8)) }
                == .malformed("the .xd grid rows are not all 3 squares wide"))
    }

    @Test func oversizedInputIsRefusedBeforeParsing() {
        let huge = [UInt8](repeating: 0x20, count: PuzzleFile.maximumSize + 1)
        guard case .malformed = error({ () throws(PuzzleFileError) in try PuzzleFile.read(huge, fileName: "big.ipuz") }) else {
            Issue.record("an oversized file was not refused")
            return
        }
    }

    @Test func zipThatUnpacksTooLargeIsRefused() throws {
        let bomb = try Fixture.bytes("crossmate/oversized.jpz")
        #expect(error { () throws(PuzzleFileError) in try JpzReader.read(bomb) } == .malformed("the zipped .jpz unpacks to more than 16 MB"))
    }

    @Test func deeplyNestedXMLIsRefused() {
        let deep = String(repeating: "<a>", count: 10_000) + String(repeating: "</a>", count: 10_000)
        guard case .notACrossword = error({ () throws(PuzzleFileError) in try JpzReader.read(Array(deep.utf8)) }) else {
            Issue.record("deeply nested XML was not refused")
            return
        }
    }

    /// Files pad titles, authors and copyrights ("Daybreak  "): the spaces at the ends go.
    @Test func titlesAuthorsAndCopyrightsLoseTheSpacesAtTheirEnds() throws {
        var puzzle = try Fixture.puzzle("kotwords/puz/test.puz")
        puzzle.title = "  Daybreak \t"
        puzzle.author = "Ann Author   "
        puzzle.copyright = " © 2026 "
        let reread = try PuzReader.read(PuzWriter.write(puzzle))
        #expect(reread.title == "Daybreak" && reread.author == "Ann Author" && reread.copyright == "© 2026")
    }

    @Test func hugeStringsReadWithoutTrouble() throws {
        var puzzle = try Fixture.puzzle("kotwords/puz/test.puz")
        puzzle.title = String(repeating: "Long title ", count: 20_000).dropLast().description
        puzzle.notes = String(repeating: "é", count: 100_000)
        let reread = try PuzReader.read(PuzWriter.write(puzzle))
        #expect(reread.title == puzzle.title)
        #expect(reread.notes == puzzle.notes)
        let ipuz = try IpuzReader.read(IpuzWriter.write(puzzle))
        #expect(ipuz.title == puzzle.title.split(separator: " ").joined(separator: " "))
    }

    @Test(arguments: [
        "kotwords/puz/test-solved.puz", "kotwords/ipuz/test.ipuz", "kotwords/jpz/test.jpz",
        "kotwords/xd/test.xd", "crossmate/test-zipped.jpz",
    ])
    func seededMutationsNeverCrashAReader(path: String) throws {
        let original = try Fixture.bytes(path)
        let format = try #require(PuzzleFormat(fileName: path))
        var random = SeededRandom(seed: 0xC0FFEE)
        var read = 0
        var refused = 0
        for _ in 0..<1500 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                let offset = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[offset] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: offset)
                case 2: bytes.insert(UInt8.random(in: 0...255, using: &random), at: offset)
                default: bytes = Array(bytes.prefix(offset + 1))
                }
            }
            // Either outcome is fine, if it is a usable puzzle or an error that says something; a
            // crash would end the test process.
            do {
                let puzzle = try format.read(bytes)
                #expect(puzzle.cells.count == puzzle.width * puzzle.height)
                read += 1
            } catch {
                #expect(!error.description.isEmpty)
                refused += 1
            }
        }
        #expect(read + refused == 1500 && refused > 0)
    }

    /// A 3×3 ipuz with a clue of 200,000 characters of markup-like text: reduced in one pass
    /// (it took seconds per 16,000 `<` when each one scanned the rest of the clue).
    @Test(.timeLimit(.minutes(1)))
    func clueMarkupIsReducedInOnePass() throws {
        for (clue, expected) in [
            (String(repeating: "<", count: 200_000), String(repeating: "<", count: 200_000)),
            (String(repeating: "<b>", count: 100_000) + "x", "x"),
            (String(repeating: "<b", count: 100_000) + ">y", "y"),
            ("2<sup>3</sup> &amp; <i>H</i><sub>2</sub>O<br/>end", "23 & H2O end"),
        ] {
            let puzzle = try IpuzReader.read(Array(Self.ipuz(width: 3, clues: [[1, clue]]).utf8))
            #expect(puzzle.across.first?.text == expected)
        }
    }

    static func ipuz(width: Int, clues: [Any]) -> String {
        let row = "[" + (1...width).map { $0 == 1 ? "1" : "0" }.joined(separator: ",") + "]"
        let rows =
            "["
            + ([row] + Array(repeating: "[" + Array(repeating: "0", count: width).joined(separator: ",") + "]", count: width - 1)).joined(
                separator: ",") + "]"
        let list = try! JSONSerialization.data(withJSONObject: clues)
        return
            #"{"version":"http://ipuz.org/v2","kind":["http://ipuz.org/crossword#1"],"dimensions":{"width":\#(width),"height":\#(width)},"puzzle":\#(rows),"clues":{"Across":\#(String(decoding: list, as: UTF8.self))}}"#
    }

    /// A small file must not be able to name millions of squares.
    @Test func uploadsCannotAmplifyWordsAndClues() throws {
        let rectangle =
            #"<crossword-compiler><rectangular-puzzle><crossword><grid width="15" height="15"></grid><word id="1" x="1-15" y="1-15"/><clues><title>Across</title><clue word="1" number="1">Everything</clue></clues></crossword></rectangular-puzzle></crossword-compiler>"#
        #expect(throws: PuzzleFileError.malformed("the .jpz word \"1\" spans 1-15 × 1-15; a word runs along one row or column")) {
            try JpzReader.read(Array(rectangle.utf8))
        }
        let many = Self.ipuz(width: 3, clues: Array(repeating: [1, "again"], count: 100_000))
        #expect(throws: PuzzleFileError.malformed("the file's words name more than 36 squares of a 3×3 grid")) {
            try IpuzReader.read(Array(many.utf8))
        }
        let long = Self.ipuz(width: 3, clues: [["number": 1, "clue": "long", "cells": Array(repeating: [1, 1], count: 50)] as [String: Any]])
        #expect(throws: PuzzleFileError.malformed("a word of 50 squares does not fit a 3×3 grid")) {
            try IpuzReader.read(Array(long.utf8))
        }
    }
}

@Suite struct XMLEncodingTests {
    /// FoundationXML crashes on a processing instruction without data (`<?name?>`): found by
    /// the .jpz fuzz target, from a two-byte change to a real file. Each is read or refused.
    @Test func processingInstructionsWithoutDataAreNotACrash() throws {
        let plain = String(decoding: try Fixture.bytes("kotwords/jpz/test.jpz"), as: UTF8.self)
        for variant in [
            plain.replacingOccurrences(of: "<crossword-compiler", with: "<?pi?><crossword-compiler"),
            "<?xml?>\n" + plain, plain + "<?x?>", "<?xml version=\"1.0\"?><a><??></a>", "<a><?target?>", "<?a?",
        ] {
            do {
                let puzzle = try JpzReader.read(Array(variant.utf8))
                #expect(puzzle.width > 0)
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
        // The instruction is kept (with empty data), so a document that has one still reads.
        let kept = plain.replacingOccurrences(of: "<crossword-compiler", with: "<?pi?><crossword-compiler")
        #expect(try JpzReader.read(Array(kept.utf8)).title == JpzReader.read(Array(plain.utf8)).title)
    }

    @Test func invalidUTF8InAnAttributeNameIsAnErrorNotACrash() throws {
        var bytes = Array(#"<crossword-compiler><rectangular-puzzle><crossword><grid width="1" height="1"><cell x="1" y="1" soluti"#.utf8)
        bytes += [0xFF] + Array(#"n="A"/></grid></crossword></rectangular-puzzle></crossword-compiler>"#.utf8)
        #expect(throws: PuzzleFileError.notACrossword("the XML is not valid UTF-8 text")) { try JpzReader.read(bytes) }
    }

    @Test func latin1DeclaredDocumentsAreConverted() throws {
        let text = #"<?xml version="1.0" encoding="ISO-8859-1"?><crossword-compiler><rectangular-puzzle><metadata><title>Caf"#
        var bytes = Array(text.utf8) + [0xE9]
        bytes += Array(
            #"</title></metadata><crossword><grid width="2" height="1"><cell x="1" y="1" solution="A" number="1"/><cell x="2" y="1" solution="B"/></grid><clues><title>Across</title><clue number="1">Pair</clue></clues></crossword></rectangular-puzzle></crossword-compiler>"#
                .utf8)
        let puzzle = try JpzReader.read(bytes)
        #expect(puzzle.title == "Café")
        #expect(puzzle.across.first?.cells.count == 2)
    }
}
