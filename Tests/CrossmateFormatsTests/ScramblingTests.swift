import CrossmateCore
import CrossmateFormats
import Testing

@Suite struct ScramblingTests {
    @Test func knownVectorOfTheFormat() {
        let scrambled = PuzScrambler.scramble(Array("AEBFCDG".utf8), key: 1234)
        #expect(String(decoding: scrambled, as: UTF8.self) == "MLOOPKJ")
        #expect(String(decoding: PuzScrambler.unscramble(scrambled, key: 1234), as: UTF8.self) == "AEBFCDG")
    }

    @Test(arguments: [0, 1234, 9999, 7305, 1001])
    func unscrambleUndoesScramble(key: Int) {
        let letters = Array("THEQUICKBROWNFOXJUMPSOVERTHELAZYDOG".utf8)
        #expect(PuzScrambler.unscramble(PuzScrambler.scramble(letters, key: key), key: key) == letters)
    }

    @Test func lockAndUnlockARealGridThroughTheFile() throws {
        let puzzle = try BundledPuzzles.puzzle("daybreak")
        let bytes = try PuzWriter.write(puzzle, lockKey: 2718)
        let locked = try PuzReader.read(bytes)
        #expect(locked.lock != nil)
        #expect(!locked.hasSolution)
        #expect(locked.cells.allSatisfy { $0.solution == nil })
        // The scrambled letters differ from the answers.
        #expect(locked.lock?.scrambledSolution != puzzle.cells.map { $0.solution ?? "" })

        let unlocked = try locked.unlocked(withKey: 2718)
        #expect(unlocked.cells.map(\.solution) == puzzle.cells.map(\.solution))
        #expect(unlocked.lock == nil)
    }

    @Test func aLockedFileStaysLockedWhenRewritten() throws {
        let original = try PuzWriter.write(BundledPuzzles.puzzle("green-light"), lockKey: 4321)
        let rewritten = try PuzWriter.write(PuzReader.read(original))
        #expect(rewritten == original)
        #expect(try PuzReader.read(rewritten).unlocked(withKey: 4321).hasSolution)
    }

    @Test func wrongKeysAreRefused() throws {
        let locked = try PuzReader.read(PuzWriter.write(BundledPuzzles.puzzle("daybreak"), lockKey: 2718))
        var refused = 0
        for key in [0, 1234, 2717, 2719, 8172, 9999] {
            do {
                _ = try locked.unlocked(withKey: key)
            } catch let error {
                guard case .wrongUnlockKey = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                refused += 1
            }
        }
        #expect(refused == 6)
    }

    /// A locked .puz keeps its rebus table in the clear: unlocking must give the whole rebus
    /// answers back, not just the grid's first letters (a Sunday puzzle's month rebuses came out
    /// as F, J, … instead of FEB, JAN). Locking a rebus puzzle keeps them too, and so does
    /// writing the locked puzzle again.
    /// green-light with rebus answers of letters in three squares (only A–Z grids lock).
    static func rebusPuzzle(diagramless: Bool = false) throws -> Puzzle {
        let source = try BundledPuzzles.puzzle("green-light")
        var cells = source.cells
        for (index, answer) in [(5, "GREEN"), (10, "LEX"), (23, "SUN")] where cells[index].isLetter {
            cells[index].solution = answer
        }
        return try Puzzle(
            title: source.title, width: source.width, height: source.height, cells: cells, across: source.across,
            down: source.down, isDiagramless: diagramless, acceptsRebusFirstLetter: true)
    }

    @Test func aLockedRebusPuzzleUnlocksWithItsRebusAnswers() throws {
        let original = try Self.rebusPuzzle()
        let rebusSquares = original.cells.indices.filter { (original.cells[$0].solution?.count ?? 0) > 1 }
        #expect(rebusSquares.count == 3)
        let bytes = try PuzWriter.write(original, lockKey: 1234)
        let locked = try PuzReader.read(bytes)
        #expect(locked.lock != nil && !locked.hasSolution)
        let unlocked = try locked.unlocked(withKey: 1234)
        #expect(unlocked.cells.map(\.solution) == original.cells.map(\.solution))
        for index in rebusSquares { #expect(unlocked.cells[index].solution == original.cells[index].solution) }
        // Written again while locked: the same file, and it still unlocks whole.
        #expect(try PuzWriter.write(locked) == bytes)
        // Unlocked and written plain: the rebus table as the original has it.
        #expect(try PuzReader.read(PuzWriter.write(unlocked)).cells.map(\.solution) == original.cells.map(\.solution))
        // Only grids of letters lock: a square whose answer starts with a digit cannot.
        var cells = original.cells
        cells[rebusSquares[0]].solution = "1X"
        let digit = try Puzzle(
            title: "t", width: original.width, height: original.height, cells: cells, across: original.across, down: original.down)
        #expect(throws: PuzzleFileError.cannotWrite("only solutions beginning with a letter A–Z can be locked")) {
            try PuzWriter.write(digit, lockKey: 1234)
        }
    }

    /// Across Lite writes a diagramless grid's blocks as ':' (solution and fill); a diagramless
    /// puzzle written and read back writes the same bytes again, ':' included.
    @Test func aDiagramlessPuzzleIsWrittenWithColonBlocks() throws {
        // The fixture (whose answers include digits, so it cannot lock) and a locked green-light.
        #expect(try Fixture.puzzle("kotwords/puz/test-diagramless.puz").isDiagramless)
        let fixture = try PuzWriter.write(Fixture.puzzle("kotwords/puz/test-diagramless.puz"))
        #expect(try PuzWriter.write(PuzReader.read(fixture)) == fixture)
        let original = try Self.rebusPuzzle(diagramless: true)
        let written = try PuzWriter.write(original)
        let area = original.width * original.height
        let grids = written[0x34..<(0x34 + 2 * area)]
        let blocks = original.cells.filter { !$0.isLetter }.count
        #expect(grids.filter { $0 == UInt8(ascii: ":") }.count == 2 * blocks)
        #expect(!grids.contains(UInt8(ascii: ".")))
        let reread = try PuzReader.read(written)
        #expect(reread.isDiagramless && reread.cells == original.cells)
        #expect(try PuzWriter.write(reread) == written)
        // Locked too: blocks stay ':' beside the scrambled letters.
        let locked = try PuzWriter.write(original, lockKey: 4321)
        #expect(locked[0x34..<(0x34 + area)].filter { $0 == UInt8(ascii: ":") }.count == blocks)
        #expect(try PuzReader.read(locked).unlocked(withKey: 4321).cells.map(\.solution) == original.cells.map(\.solution))
        // A plain puzzle keeps '.'.
        let plain = try PuzWriter.write(BundledPuzzles.puzzle("green-light"))
        #expect(plain[0x34] == UInt8(ascii: "."))
    }
}
