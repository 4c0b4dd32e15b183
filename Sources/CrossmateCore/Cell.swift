/// Walls drawn on the edges of a letter cell in a barred puzzle; a bar ends an entry just as a block does.
public struct CellBars: OptionSet, Hashable, Sendable, Codable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let top = CellBars(rawValue: 1 << 0)
    public static let left = CellBars(rawValue: 1 << 1)
    public static let bottom = CellBars(rawValue: 1 << 2)
    public static let right = CellBars(rawValue: 1 << 3)
}

/// What occupies a square of the grid.
public enum CellKind: String, Hashable, Sendable, Codable {
    /// A black square between entries.
    case block
    /// No square at all: the space outside an irregularly shaped grid.
    case void
    /// A white square that takes a letter (or several, for a rebus).
    case letter
}

/// One square of the puzzle as published: its kind, answer and decorations, never a player's fill.
public struct Cell: Hashable, Sendable, Codable {
    public var kind: CellKind
    /// The answer, upper case; several characters for a rebus. `nil` when the puzzle has no
    /// solution or the solution is locked.
    public var solution: String?
    /// A letter printed in the grid before solving starts (a "given" or prefilled square).
    public var given: String?
    /// The clue number printed in the corner, if any.
    public var number: Int?
    public var isCircled: Bool
    public var isShaded: Bool
    public var bars: CellBars

    public init(
        kind: CellKind,
        solution: String? = nil,
        given: String? = nil,
        number: Int? = nil,
        isCircled: Bool = false,
        isShaded: Bool = false,
        bars: CellBars = []
    ) {
        self.kind = kind
        self.solution = solution
        self.given = given
        self.number = number
        self.isCircled = isCircled
        self.isShaded = isShaded
        self.bars = bars
    }

    public static let block = Cell(kind: .block)
    public static let void = Cell(kind: .void)

    /// A letter cell with the given answer.
    public static func letter(_ solution: String?, number: Int? = nil) -> Cell {
        Cell(kind: .letter, solution: solution, number: number)
    }

    public var isLetter: Bool { kind == .letter }
}
