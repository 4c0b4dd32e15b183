import CrossmateCore

/// The merged state of one square: its letter, mark and letter author, and the key of the write
/// that put them there (`nil` while nobody has written to it).
public struct CellState: Hashable, Sendable, Codable {
    public var letter: String
    public var mark: CellMark
    public var cellAuthorID: AuthorID
    public var key: WriteKey?

    public init(letter: String = "", mark: CellMark = .none, cellAuthorID: AuthorID = "", key: WriteKey? = nil) {
        self.letter = letter
        self.mark = mark
        self.cellAuthorID = cellAuthorID
        self.key = key
    }

    public static let empty = CellState()

    /// Whether a write with `key` beats the write this state came from (any write beats none).
    @inline(__always)
    func isBeaten(by key: WriteKey) -> Bool {
        guard let own = self.key else { return true }
        return key.wins(over: own)
    }
}

/// The grid every replica converges on: per square, last writer wins on (timestamp, authorID,
/// replicaID).
///
/// Laws (each has a test): merging is commutative, associative and idempotent, and applying
/// moves in any order, any number of times, gives the same grid as merging their grids.
public struct GameGrid: Hashable, Sendable, Codable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [CellState]

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        cells = Array(repeating: .empty, count: width * height)
    }

    public init(puzzle: Puzzle) {
        self.init(width: puzzle.width, height: puzzle.height)
    }

    public func contains(_ position: GridPosition) -> Bool {
        (0..<height).contains(position.row) && (0..<width).contains(position.col)
    }

    public func state(at position: GridPosition) -> CellState { cells[position.row * width + position.col] }
    public func letter(at position: GridPosition) -> String { state(at: position).letter }

    /// Applies one move by the last-writer-wins rule; returns whether the square changed hands.
    /// Moves outside the grid are ignored (the server refuses them before they get here).
    @discardableResult
    public mutating func apply(_ move: Move) -> Bool {
        let row = move.position.row
        let col = move.position.col
        guard row >= 0, row < height, col >= 0, col < width else { return false }
        let index = row * width + col
        guard cells[index].isBeaten(by: move.writeKey) else { return false }
        cells[index] = CellState(letter: move.letter, mark: move.mark, cellAuthorID: move.cellAuthorID, key: move.writeKey)
        return true
    }

    public mutating func apply<Moves: Sequence<Move>>(_ moves: Moves) {
        for move in moves { apply(move) }
    }

    /// Applies only the moves stamped no later than `limit`: the grid as it stood at a completion.
    public mutating func apply<Moves: Sequence<Move>>(_ moves: Moves, notAfter limit: HLCTimestamp) {
        for move in moves where move.timestamp <= limit { apply(move) }
    }

    /// The grid merging both: each square keeps the winning write of the two.
    public func merged(with other: GameGrid) -> GameGrid {
        var result = self
        result.merge(other)
        return result
    }

    public mutating func merge(_ other: GameGrid) {
        precondition(width == other.width && height == other.height, "merging grids of different sizes")
        for index in cells.indices {
            guard let key = other.cells[index].key else { continue }
            if cells[index].isBeaten(by: key) {
                cells[index] = other.cells[index]
            }
        }
    }

    /// The letters in reading order, "" where empty.
    public var letters: [String] { cells.map(\.letter) }
}
