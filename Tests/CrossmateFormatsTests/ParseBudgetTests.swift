import CrossmateCore
import CrossmateFormats
import Foundation
import Testing

/// Every reader has the same budgets, and its cost grows with its input, not faster: 200,000
/// attributes on one .jpz element took 20 s (the XML parser compares each with all before it),
/// and an .xd file took 400,000 clue lines.
@Suite struct ParseBudgetTests {
    /// A .jpz document of a 15×15 grid with `extra` more elements (or attributes on its grid).
    static func jpz(elements: Int = 0, attributesOnGrid: Int = 0) -> [UInt8] {
        let attributes = (0..<attributesOnGrid).map { " a\($0)=\"1\"" }.joined()
        let cells = (1...15).flatMap { y in (1...15).map { x in #"<cell x="\#(x)" y="\#(y)" solution="A"/>"# } }.joined()
        let filler = String(repeating: #"<note a="1" b="2"/>"#, count: elements)
        return Array(
            #"<crossword-compiler><rectangular-puzzle><crossword><grid width="15" height="15"\#(attributes)>\#(cells)</grid>\#(filler)</crossword></rectangular-puzzle></crossword-compiler>"#
                .utf8)
    }

    static func error(_ read: () throws(PuzzleFileError) -> Puzzle) -> PuzzleFileError? {
        do {
            _ = try read()
            return nil
        } catch { return error }
    }

    @Test func anElementWithThousandsOfAttributesIsRefusedUnread() {
        let failure = Self.error { () throws(PuzzleFileError) in try JpzReader.read(Self.jpz(attributesOnGrid: 200_000)) }
        #expect(failure == .malformed("an XML element has more than 64 attributes; a crossword's have a few"))
        // A real element's few attributes are read as ever.
        #expect(Self.error { () throws(PuzzleFileError) in try JpzReader.read(Self.jpz(attributesOnGrid: 20)) } == nil)
    }

    @Test func documentsWithTooManyElementsOrEntitiesAreRefused() {
        let crowded = Self.error { () throws(PuzzleFileError) in try JpzReader.read(Self.jpz(elements: 4 * 255 * 255)) }
        #expect(crowded == .malformed("the XML has more than 260100 elements; no crossword needs so many"))
        let entities = #"<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">]><crossword-compiler>&a;</crossword-compiler>"#
        #expect(
            Self.error { () throws(PuzzleFileError) in try JpzReader.read(Array(entities.utf8)) }
                == .malformed("the XML declares entities; a crossword needs none"))
    }

    /// The time a .jpz takes doubles at most when its size does: measured on documents of 30,000
    /// to 120,000 elements and on the refused attack at 50,000 to 200,000 attributes (the least of
    /// three runs each, so a busy machine does not decide it). Quadratic growth would be ×16
    /// across the two doublings; linear is ×4, and up to ×9 is allowed for noise.
    @Test(.timeLimit(.minutes(2)))
    func parseTimeGrowsLinearly() {
        func fastest(_ input: [UInt8]) -> Duration {
            (0..<3).map { _ in
                let clock = ContinuousClock()
                return clock.measure { _ = try? JpzReader.read(input) }
            }.min()!
        }
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        for (name, make) in [
            ("elements", { (n: Int) in Self.jpz(elements: n) }), ("attributes", { (n: Int) in Self.jpz(attributesOnGrid: n) }),
        ] as [(String, (Int) -> [UInt8])] {
            let base = name == "elements" ? 30_000 : 50_000
            let times = [base, base * 2, base * 4].map { seconds(fastest(make($0))) }
            let growth = times[2] / max(times[0], 1e-4)
            #expect(growth <= 9, "\(name): \(times) s for ×1, ×2, ×4 the input (×\(growth))")
        }
    }

    @Test func anXdFileHasTheSameClueBudgetAsEveryReader() {
        let lines = (0..<400_000).map { "A\($0 % 9 + 1). Again ~ AB" }.joined(separator: "\n")
        let xd = "Title: Tiny\n\n\nAB\nCD\n\n\n\(lines)\n"
        #expect(
            Self.error { () throws(PuzzleFileError) in try XdReader.read(Array(xd.utf8)) }
                == .malformed("the file has more than 8 clues for a 2×2 grid"))
    }

    /// Text from a file keeps no control or direction-changing characters: an escape in a title
    /// or clue cannot reach another player's terminal.
    @Test func textFromAFileIsCleaned() throws {
        let xd =
            "Title: \u{1B}]0;PWNED\u{07}Tiny\u{202E}\nAuthor: Ann\u{1B}[2J\n\n\nAB\nCD\n\n\nA1. Top\u{1B}[31m ~ AB\nA3. Bottom ~ CD\n\nD1. Left ~ AC\nD2. Right ~ BD\n"
        let puzzle = try PuzzleFormat.xd.read(Array(xd.utf8))
        #expect(puzzle.title == "]0;PWNEDTiny" && puzzle.author == "Ann[2J")
        #expect(puzzle.across.first?.text == "Top[31m")
    }
}
