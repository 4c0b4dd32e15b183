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

    @Test func onlyPlainLetterSolutionsCanBeLocked() throws {
        let withRebus = try Fixture.puzzle("kotwords/puz/test.puz")
        #expect(throws: PuzzleFileError.cannotWrite("only solutions of single letters A–Z can be locked")) {
            try PuzWriter.write(withRebus, lockKey: 1234)
        }
    }
}
