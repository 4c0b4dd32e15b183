/// A solution published scrambled (an Across Lite "locked" puzzle): the solver needs a 4-digit key
/// to see, check or reveal answers.
public struct SolutionLock: Hashable, Sendable, Codable {
    /// The scrambled answer of every square in reading order ("" for blocks and voids).
    public var scrambledSolution: [String]
    /// The checksum of the unscrambled answers, used to verify a key.
    public var checksum: UInt16

    public init(scrambledSolution: [String], checksum: UInt16) {
        self.scrambledSolution = scrambledSolution
        self.checksum = checksum
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
