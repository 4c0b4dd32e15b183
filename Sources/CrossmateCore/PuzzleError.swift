/// Why a puzzle model could not be built: the data describes no grid a solver could use.
public enum PuzzleError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidDimensions(width: Int, height: Int)
    case cellCountMismatch(expected: Int, actual: Int)
    case clueOutsideGrid(label: String)
    case clueOnNonLetterCell(label: String, position: GridPosition)

    public var description: String {
        switch self {
        case let .invalidDimensions(width, height):
            "a \(width)×\(height) grid is not possible (each side must be 1 to \(Puzzle.maximumSide))"
        case let .cellCountMismatch(expected, actual):
            "the grid should have \(expected) squares but has \(actual)"
        case let .clueOutsideGrid(label):
            "clue \(label) names a square outside the grid"
        case let .clueOnNonLetterCell(label, position):
            "clue \(label) uses square \(position), which is not a letter square"
        }
    }
}
