/// Standard crossword numbering: a letter square gets the next number when it starts an across
/// or down entry of at least two squares, an entry ending at blocks, voids, bars or the edge.
public struct StandardNumbering: Sendable {
    public struct Entry: Hashable, Sendable {
        public var number: Int
        public var cells: [GridPosition]
    }

    /// The number of each square in reading order, `nil` where none is printed.
    public let numbers: [Int?]
    private let acrossEntries: [Entry]
    private let downEntries: [Entry]

    public init(width: Int, height: Int, cells: [Cell]) {
        func isOpen(_ row: Int, _ col: Int) -> Bool {
            (0..<height).contains(row) && (0..<width).contains(col) && cells[row * width + col].isLetter
        }
        func startsEntry(_ direction: Direction, _ row: Int, _ col: Int) -> Bool {
            let here = GridPosition(row: row, col: col)
            let previous = here.moved(direction, by: -1)
            let continuesFromPrevious =
                isOpen(previous.row, previous.col)
                && Self.continues(direction, from: previous, width: width, height: height, cells: cells)
            return !continuesFromPrevious && Self.continues(direction, from: here, width: width, height: height, cells: cells)
        }
        func entry(_ direction: Direction, number: Int, _ row: Int, _ col: Int) -> Entry {
            Entry(
                number: number,
                cells: Self.run(
                    from: GridPosition(row: row, col: col), direction,
                    width: width, height: height, cells: cells))
        }

        var numbers = [Int?](repeating: nil, count: width * height)
        var across: [Entry] = []
        var down: [Entry] = []
        var next = 1
        for row in 0..<height {
            for col in 0..<width where isOpen(row, col) {
                let startsAcross = startsEntry(.across, row, col)
                let startsDown = startsEntry(.down, row, col)
                guard startsAcross || startsDown else { continue }
                numbers[row * width + col] = next
                if startsAcross { across.append(entry(.across, number: next, row, col)) }
                if startsDown { down.append(entry(.down, number: next, row, col)) }
                next += 1
            }
        }
        self.numbers = numbers
        self.acrossEntries = across
        self.downEntries = down
    }

    public func entries(_ direction: Direction) -> [Entry] {
        direction == .across ? acrossEntries : downEntries
    }

    /// Whether an entry in `direction` goes on from the letter square at `position` to the next
    /// square: the next square is a letter square and no bar stands between them.
    public static func continues(_ direction: Direction, from position: GridPosition, width: Int, height: Int, cells: [Cell]) -> Bool {
        let next = position.moved(direction)
        guard (0..<height).contains(next.row), (0..<width).contains(next.col),
            cells[next.row * width + next.col].isLetter
        else { return false }
        let here = cells[position.row * width + position.col].bars
        let there = cells[next.row * width + next.col].bars
        switch direction {
        case .across: return !here.contains(.right) && !there.contains(.left)
        case .down: return !here.contains(.bottom) && !there.contains(.top)
        }
    }

    /// The straight run of letter squares from `start` in `direction`, up to a block, void, bar or edge.
    public static func run(from start: GridPosition, _ direction: Direction, width: Int, height: Int, cells: [Cell]) -> [GridPosition] {
        var run = [start]
        while continues(direction, from: run[run.count - 1], width: width, height: height, cells: cells) {
            run.append(run[run.count - 1].moved(direction))
        }
        return run
    }
}
