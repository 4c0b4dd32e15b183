/// A solution published scrambled (an Across Lite "locked" puzzle): the solver needs a 4-digit key
/// to see, check or reveal answers.
public struct SolutionLock: Hashable, Sendable, Codable {
    /// The scrambled answer of every square in reading order ("" for blocks and voids): one
    /// letter each, a rebus square's first letter.
    public var scrambledSolution: [String]
    /// The checksum of the unscrambled answers, used to verify a key.
    public var checksum: UInt16
    /// The full answer of every rebus square in reading order ("" elsewhere; empty when the
    /// puzzle has no rebus). A .puz keeps its rebus table in the clear beside the scrambled
    /// grid, so unlocking restores these over the unscrambled first letters.
    public var rebus: [String]

    public init(scrambledSolution: [String], checksum: UInt16, rebus: [String] = []) {
        self.scrambledSolution = scrambledSolution
        self.checksum = checksum
        self.rebus = rebus.allSatisfy(\.isEmpty) ? [] : rebus
    }

    enum CodingKeys: String, CodingKey { case scrambledSolution, checksum, rebus }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            scrambledSolution: try container.decode([String].self, forKey: .scrambledSolution),
            checksum: try container.decode(UInt16.self, forKey: .checksum),
            rebus: try container.decodeIfPresent([String].self, forKey: .rebus) ?? [])
    }

    /// The full rebus answer of the square at `index`, if it has one.
    public func rebusAnswer(at index: Int) -> String? {
        index < rebus.count && !rebus[index].isEmpty ? rebus[index] : nil
    }
}

/// A player's saved state inside a puzzle file: their letters, check marks and timer.
public struct SavedProgress: Hashable, Sendable, Codable {
    /// Marks a puzzle file keeps per square (Across Lite's GEXT flags).
    public struct Flags: OptionSet, Hashable, Sendable, Codable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let previouslyIncorrect = Flags(rawValue: 0x10)
        public static let incorrect = Flags(rawValue: 0x20)
        public static let revealed = Flags(rawValue: 0x40)
    }

    /// The player's letters in reading order, "" where empty.
    public var letters: [String]
    /// Per square marks in reading order (empty when the file keeps none).
    public var flags: [Flags]
    /// Seconds on the solving timer, if the file keeps one.
    public var elapsedSeconds: Int?
    public var timerRunning: Bool

    public init(letters: [String], flags: [Flags] = [], elapsedSeconds: Int? = nil, timerRunning: Bool = false) {
        self.letters = letters
        self.flags = flags
        self.elapsedSeconds = elapsedSeconds
        self.timerRunning = timerRunning
    }

    /// Whether anything at all is saved: a letter, a mark or time on the clock.
    public var isEmpty: Bool {
        letters.allSatisfy(\.isEmpty) && flags.allSatisfy(\.isEmpty) && (elapsedSeconds ?? 0) == 0
    }
}
