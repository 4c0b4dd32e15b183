import CrossmateCore

/// Across Lite's solution scrambling ("locked" puzzles). The letters of the solution, read down
/// the columns and skipping blocks, are shifted, cut and shuffled once per digit of a 4-digit key.
public enum PuzScrambler {
    private static let letterA = UInt8(ascii: "A")

    /// The four digits of `key` (0...9999), most significant first.
    static func digits(of key: Int) -> [Int] {
        [key / 1000 % 10, key / 100 % 10, key / 10 % 10, key % 10]
    }

    /// Scrambles upper-case letters A–Z with `key`.
    public static func scramble(_ letters: [UInt8], key: Int) -> [UInt8] {
        let key = digits(of: key)
        var s = letters
        for k in key where !s.isEmpty {
            s = shift(s, key, by: 1)
            let cut = k % s.count
            s = Array(s[cut...] + s[..<cut])
            s = shuffle(s)
        }
        return s
    }

    /// Reverses `scramble` for the same key.
    public static func unscramble(_ letters: [UInt8], key: Int) -> [UInt8] {
        let key = digits(of: key)
        var s = letters
        for k in key.reversed() where !s.isEmpty {
            s = unshuffle(s)
            let cut = (s.count - k % s.count) % s.count
            s = Array(s[cut...] + s[..<cut])
            s = shift(s, key, by: -1)
        }
        return s
    }

    private static func shift(_ s: [UInt8], _ key: [Int], by sign: Int) -> [UInt8] {
        s.enumerated().map { i, c in
            let value = (Int(c - letterA) + sign * key[i % key.count] + 26) % 26
            return letterA + UInt8(value)
        }
    }

    /// Interleaves the second half with the first: b0 a0 b1 a1 …, the odd letter last.
    private static func shuffle(_ s: [UInt8]) -> [UInt8] {
        let mid = s.count / 2
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        for i in 0..<mid {
            out.append(s[mid + i])
            out.append(s[i])
        }
        if s.count % 2 == 1 { out.append(s[s.count - 1]) }
        return out
    }

    private static func unshuffle(_ s: [UInt8]) -> [UInt8] {
        let odds = stride(from: 1, to: s.count, by: 2).map { s[$0] }
        let evens = stride(from: 0, to: s.count, by: 2).map { s[$0] }
        return odds + evens
    }

    static func isLetters(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }

    /// The squares the scrambler reads, in its order: down each column, skipping non-letters.
    static func columnOrder(width: Int, height: Int, isLetter: (Int) -> Bool) -> [Int] {
        var order: [Int] = []
        for col in 0..<width {
            for row in 0..<height where isLetter(row * width + col) {
                order.append(row * width + col)
            }
        }
        return order
    }
}

extension Puzzle {
    /// Unlocks a scrambled solution with its 4-digit key. Fails with `wrongUnlockKey` when the key
    /// does not reproduce the stored checksum or yields anything but letters.
    public func unlocked(withKey key: Int) throws(PuzzleFileError) -> Puzzle {
        guard let lock else { return self }
        guard (0...9999).contains(key) else {
            throw .wrongUnlockKey("\(key) is not a 4-digit key")
        }
        let order = PuzScrambler.columnOrder(width: width, height: height) { cells[$0].isLetter }
        let scrambled = order.map { Array(lock.scrambledSolution[$0].utf8.prefix(1)).first ?? 0 }
        guard PuzScrambler.isLetters(scrambled) else {
            throw .malformed("the scrambled solution holds characters other than A–Z")
        }
        let plain = PuzScrambler.unscramble(scrambled, key: key)
        guard PuzChecksum.of(plain) == lock.checksum, PuzScrambler.isLetters(plain) else {
            throw .wrongUnlockKey("key \(fourDigits(key)) does not unlock this puzzle")
        }
        var solution = [String?](repeating: nil, count: cells.count)
        for (index, letter) in zip(order, plain) {
            // A rebus square's grid letter is its answer's first; the table has the whole answer.
            solution[index] = lock.rebusAnswer(at: index) ?? String(UnicodeScalar(letter))
        }
        return withSolution(solution)
    }

    /// Scrambles the solution with `key`, as Across Lite's "lock" does. Every answer must begin
    /// with a letter A–Z: the grid's letters (a rebus answer's first) are scrambled, and rebus
    /// answers are kept whole beside them, as a .puz keeps its rebus table.
    public func locking(withKey key: Int) throws(PuzzleFileError) -> Puzzle {
        guard lock == nil else { return self }
        guard (0...9999).contains(key) else {
            throw .cannotWrite("\(key) is not a 4-digit key")
        }
        guard hasSolution else { throw .cannotWrite("a puzzle without a solution cannot be locked") }
        let order = PuzScrambler.columnOrder(width: width, height: height) { cells[$0].isLetter }
        let plain = order.map { Array((cells[$0].solution ?? "").utf8) }
        guard plain.allSatisfy({ !$0.isEmpty }), PuzScrambler.isLetters(plain.map { $0[0] }) else {
            throw .cannotWrite("only solutions beginning with a letter A–Z can be locked")
        }
        let letters = plain.map { $0[0] }
        let scrambled = PuzScrambler.scramble(letters, key: key)
        var grid = [String](repeating: "", count: cells.count)
        for (index, letter) in zip(order, scrambled) { grid[index] = String(UnicodeScalar(letter)) }
        let rebus = cells.map { cell in (cell.solution?.utf8.count ?? 0) > 1 ? cell.solution! : "" }
        return locked(by: SolutionLock(scrambledSolution: grid, checksum: PuzChecksum.of(letters), rebus: rebus))
    }
}

/// A key printed with its leading zeros, as users type it.
func fourDigits(_ key: Int) -> String {
    let digits = String(key)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
