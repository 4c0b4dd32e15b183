/// A crossword as published: metadata, the grid of cells and the clued entries.
///
/// Cells are stored in reading order; `cell(at:)` reads one. Entries (`across`, `down`) are
/// either given by the file or derived with standard numbering.
public struct Puzzle: Hashable, Sendable, Codable {
    /// The largest width or height accepted; larger grids are treated as corrupt input.
    public static let maximumSide = 255

    public var title: String
    public var author: String
    public var copyright: String
    public var notes: String
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]
    public var across: [Clue]
    public var down: [Clue]
    /// A diagramless puzzle hides its blocks from the solver.
    public var isDiagramless: Bool
    /// Whether a rebus square also accepts the first letter of its answer (Across Lite does).
    public var acceptsRebusFirstLetter: Bool
    /// Set when the solution is scrambled; the cells then carry no solution.
    public var lock: SolutionLock?
    /// The player's progress saved in the file, if any.
    public var savedProgress: SavedProgress?

    /// Builds a puzzle from its cells and clues, validating that they describe a usable grid.
    /// Cells without numbers get standard numbering when `numberCells` is set.
    public init(
        title: String = "",
        author: String = "",
        copyright: String = "",
        notes: String = "",
        width: Int,
        height: Int,
        cells: [Cell],
        across: [Clue],
        down: [Clue],
        isDiagramless: Bool = false,
        acceptsRebusFirstLetter: Bool = false,
        lock: SolutionLock? = nil,
        savedProgress: SavedProgress? = nil
    ) throws(PuzzleError) {
        try Self.validateShape(width: width, height: height, cellCount: cells.count)
        // Files often pad these ("Daybreak  "): the spaces at either end are no part of them.
        self.title = Self.trimmed(title)
        self.author = Self.trimmed(author)
        self.copyright = Self.trimmed(copyright)
        self.notes = notes
        self.width = width
        self.height = height
        self.cells = cells
        self.across = across
        self.down = down
        self.isDiagramless = isDiagramless
        self.acceptsRebusFirstLetter = acceptsRebusFirstLetter
        self.lock = lock
        self.savedProgress = savedProgress
        for clue in across + down {
            for position in clue.cells {
                guard contains(position) else { throw .clueOutsideGrid(label: clue.label) }
                guard cell(at: position).isLetter else {
                    throw .clueOnNonLetterCell(label: clue.label, position: position)
                }
            }
        }
    }

    /// `text` without the whitespace at its ends.
    static func trimmed(_ text: String) -> String {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }), let last = text.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(text[first...last])
    }

    /// Builds a puzzle whose entries follow standard numbering, attaching clue texts by number.
    /// Entries the file gives no clue for get an empty clue; numbers already on cells are kept.
    public init(
        title: String = "",
        author: String = "",
        copyright: String = "",
        notes: String = "",
        width: Int,
        height: Int,
        cells: [Cell],
        clueTexts: [Direction: [Int: String]],
        isDiagramless: Bool = false,
        acceptsRebusFirstLetter: Bool = false,
        lock: SolutionLock? = nil,
        savedProgress: SavedProgress? = nil
    ) throws(PuzzleError) {
        try Self.validateShape(width: width, height: height, cellCount: cells.count)
        let numbering = StandardNumbering(width: width, height: height, cells: cells)
        var numbered = cells
        for (index, number) in numbering.numbers.enumerated() where numbered[index].number == nil {
            numbered[index].number = number
        }
        func clues(_ direction: Direction) -> [Clue] {
            numbering.entries(direction).map { entry in
                Clue(
                    direction: direction, number: entry.number,
                    text: clueTexts[direction]?[entry.number] ?? "", cells: entry.cells)
            }
        }
        try self.init(
            title: title, author: author, copyright: copyright, notes: notes,
            width: width, height: height, cells: numbered,
            across: clues(.across), down: clues(.down),
            isDiagramless: isDiagramless, acceptsRebusFirstLetter: acceptsRebusFirstLetter,
            lock: lock, savedProgress: savedProgress)
    }

    private static func validateShape(width: Int, height: Int, cellCount: Int) throws(PuzzleError) {
        guard (1...maximumSide).contains(width), (1...maximumSide).contains(height) else {
            throw .invalidDimensions(width: width, height: height)
        }
        guard cellCount == width * height else {
            throw .cellCountMismatch(expected: width * height, actual: cellCount)
        }
    }

    public func contains(_ position: GridPosition) -> Bool {
        (0..<height).contains(position.row) && (0..<width).contains(position.col)
    }

    public func index(of position: GridPosition) -> Int { position.row * width + position.col }

    public func position(ofIndex index: Int) -> GridPosition {
        GridPosition(row: index / width, col: index % width)
    }

    /// The cell at `position`, which must be inside the grid.
    public func cell(at position: GridPosition) -> Cell { cells[index(of: position)] }

    /// Whether `position` is inside the grid and takes a letter.
    public func isLetter(_ position: GridPosition) -> Bool {
        contains(position) && cell(at: position).isLetter
    }

    /// Every letter square in reading order.
    public var letterPositions: [GridPosition] {
        cells.indices.filter { cells[$0].isLetter }.map(position(ofIndex:))
    }

    /// The clues of one direction.
    public func clues(_ direction: Direction) -> [Clue] {
        direction == .across ? across : down
    }

    /// Whether the published solution is known, so answers can be checked and revealed.
    public var hasSolution: Bool {
        lock == nil && cells.contains { $0.isLetter && $0.solution != nil }
    }

    /// Replaces the answers of every letter square (reading order), for unlocking a scrambled puzzle.
    public func withSolution(_ solution: [String?]) -> Puzzle {
        var copy = self
        for index in copy.cells.indices where copy.cells[index].isLetter {
            copy.cells[index].solution = solution[index]
        }
        copy.lock = nil
        return copy
    }

    /// Hides every answer behind `lock`, as a scrambled file presents the puzzle.
    public func locked(by lock: SolutionLock) -> Puzzle {
        var copy = self
        for index in copy.cells.indices { copy.cells[index].solution = nil }
        copy.lock = lock
        return copy
    }
}
