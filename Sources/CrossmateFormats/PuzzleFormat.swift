import CrossmateCore

/// The crossword file formats Crossmate reads and writes.
public enum PuzzleFormat: String, CaseIterable, Sendable {
    case puz
    case ipuz
    case jpz
    case xd

    /// The format a file name's extension names, e.g. "Sunday.PUZ" → `.puz`.
    public init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: ".") else { return nil }
        self.init(rawValue: fileName[fileName.index(after: dot)...].lowercased())
    }

    /// Guesses the format from the first bytes, for files without a telling extension.
    public static func sniff(_ data: [UInt8]) -> PuzzleFormat? {
        let head = data.prefix(4096)
        if PuzReader.magicIndex(in: Array(head)) != nil { return .puz }
        let text = String(decoding: head, as: UTF8.self).drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if text.hasPrefix("{") || text.hasPrefix("ipuz(") { return .ipuz }
        if text.hasPrefix("<") || data.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .jpz }
        if text.lowercased().hasPrefix("title:") || text.hasPrefix("## ") { return .xd }
        return nil
    }

    public var canWrite: Bool { true }

    /// Whether the format keeps a player's letters beside the puzzle (.xd holds only the answers).
    public var keepsFill: Bool { self != .xd }

    /// Reads a puzzle in this format, its texts held to `TextRule`.
    public func read(_ data: [UInt8]) throws(PuzzleFileError) -> Puzzle {
        let puzzle =
            switch self {
            case .puz: try PuzReader.read(data)
            case .ipuz: try IpuzReader.read(data)
            case .jpz: try JpzReader.read(data)
            case .xd: try XdReader.read(data)
            }
        return puzzle.withCleanText()
    }

    /// Writes a puzzle in this format, scrambling a .puz solution with `lockKey` when given.
    public func write(_ puzzle: Puzzle, lockKey: Int? = nil) throws(PuzzleFileError) -> [UInt8] {
        switch self {
        case .puz: return try PuzWriter.write(puzzle, lockKey: lockKey)
        case .ipuz:
            guard lockKey == nil else { throw .cannotWrite("only .puz files can be locked") }
            return try IpuzWriter.write(puzzle)
        case .jpz, .xd:
            guard lockKey == nil else { throw .cannotWrite("only .puz files can be locked") }
            return self == .jpz ? try JpzWriter.write(puzzle) : try XdWriter.write(puzzle)
        }
    }
}

/// Reading a puzzle whose format comes from its name or, failing that, its contents.
public enum PuzzleFile {
    /// The largest file accepted; no real crossword comes near it.
    public static let maximumSize = 8 << 20

    public static func read(_ data: [UInt8], fileName: String) throws(PuzzleFileError) -> Puzzle {
        guard data.count <= maximumSize else {
            throw .malformed("the file is \(data.count >> 20) MB; crossword files are far smaller (limit \(maximumSize >> 20) MB)")
        }
        guard !data.isEmpty else { throw .notACrossword("the file is empty") }
        if let format = PuzzleFormat(fileName: fileName) { return try format.read(data) }
        guard let format = PuzzleFormat.sniff(data) else {
            throw .notACrossword("the contents match none of .puz, .ipuz, .jpz or .xd")
        }
        return try format.read(data)
    }
}
