import CrossmateCore

/// Why a puzzle file could not be read or written. Each message says what is wrong in words a
/// user can act on; the CLI prints it after the file name.
public enum PuzzleFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not any crossword format we know.
    case notACrossword(String)
    /// The file extension names no format we can read or write.
    case unsupportedFormat(String)
    /// The file ends before a part it announces.
    case truncated(String)
    /// A stored checksum does not match the data.
    case checksumMismatch(String)
    /// The data is structurally wrong for its format.
    case malformed(String)
    /// The grid it describes is not usable.
    case invalidPuzzle(PuzzleError)
    /// A scrambled solution could not be unlocked with the given key.
    case wrongUnlockKey(String)
    /// The puzzle cannot be written in the requested form.
    case cannotWrite(String)

    public var description: String {
        switch self {
        case let .notACrossword(detail): "not a crossword file: \(detail)"
        case let .unsupportedFormat(detail): "unsupported format: \(detail)"
        case let .truncated(detail): "truncated file: \(detail)"
        case let .checksumMismatch(detail): "checksum mismatch: \(detail)"
        case let .malformed(detail): "malformed file: \(detail)"
        case let .invalidPuzzle(error): "invalid puzzle: \(error)"
        case let .wrongUnlockKey(detail): "wrong unlock key: \(detail)"
        case let .cannotWrite(detail): "cannot write: \(detail)"
        }
    }
}

extension PuzzleFileError {
    /// Runs a model initialiser, reporting its validation failure as a file error.
    static func building(_ make: () throws(PuzzleError) -> Puzzle) throws(PuzzleFileError) -> Puzzle {
        do { return try make() } catch { throw .invalidPuzzle(error) }
    }
}
