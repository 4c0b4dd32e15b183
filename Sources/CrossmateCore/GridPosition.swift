/// A square of the grid, counted from the top-left corner: `row` goes down, `col` goes right.
public struct GridPosition: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var row: Int
    public var col: Int

    public init(row: Int, col: Int) {
        self.row = row
        self.col = col
    }

    /// Reading order: top to bottom, then left to right.
    public static func < (lhs: GridPosition, rhs: GridPosition) -> Bool {
        (lhs.row, lhs.col) < (rhs.row, rhs.col)
    }

    public var description: String { "r\(row + 1)c\(col + 1)" }

    /// The neighbouring square one step along `direction` (forward, or backward when `step` is -1).
    public func moved(_ direction: Direction, by step: Int = 1) -> GridPosition {
        switch direction {
        case .across: GridPosition(row: row, col: col + step)
        case .down: GridPosition(row: row + step, col: col)
        }
    }
}

/// The two directions a crossword entry runs in.
public enum Direction: String, CaseIterable, Hashable, Sendable, Codable {
    case across
    case down

    /// The other direction, for toggling the cursor.
    public var perpendicular: Direction { self == .across ? .down : .across }
}
