/// Cursor movement as a solver expects it: along a direction, skipping blocks and voids, and from
/// word to word in clue order.
extension Puzzle {
    /// The next letter square after `position` in `direction`: along the row for across, down the
    /// column for down, continuing on the next row (or column) at the edge. `nil` past the last.
    public func nextCell(after position: GridPosition, _ direction: Direction) -> GridPosition? {
        step(from: position, direction, by: 1)
    }

    /// The previous letter square before `position` in `direction`, `nil` before the first.
    public func previousCell(before position: GridPosition, _ direction: Direction) -> GridPosition? {
        step(from: position, direction, by: -1)
    }

    private func step(from position: GridPosition, _ direction: Direction, by delta: Int) -> GridPosition? {
        // Walk the grid as one line: reading order for across, column order for down.
        let lineLength = width * height
        func linear(_ p: GridPosition) -> Int {
            direction == .across ? p.row * width + p.col : p.col * height + p.row
        }
        func square(_ i: Int) -> GridPosition {
            direction == .across
                ? GridPosition(row: i / width, col: i % width)
                : GridPosition(row: i % height, col: i / height)
        }
        var i = linear(position) + delta
        while (0..<lineLength).contains(i) {
            if cell(at: square(i)).isLetter { return square(i) }
            i += delta
        }
        return nil
    }

    /// The entry in `direction` that contains `position`, if any.
    public func clue(containing position: GridPosition, _ direction: Direction) -> Clue? {
        clues(direction).first { $0.cells.contains(position) }
    }

    /// All clues in solving order: across, then down.
    public var allClues: [Clue] { across + down }

    /// The clue after `clue` in solving order, wrapping from the last down clue to 1-Across.
    public func nextClue(after clue: Clue) -> Clue? { neighbourClue(of: clue, by: 1) }

    /// The clue before `clue` in solving order, wrapping from 1-Across to the last down clue.
    public func previousClue(before clue: Clue) -> Clue? { neighbourClue(of: clue, by: -1) }

    private func neighbourClue(of clue: Clue, by delta: Int) -> Clue? {
        let ordered = allClues
        guard let index = ordered.firstIndex(of: clue) else { return nil }
        return ordered[(index + delta + ordered.count) % ordered.count]
    }

    /// The next word for a cursor at `position` in `direction` (Tab): the clue after the one under
    /// the cursor, or the first clue when the square has no word in that direction.
    public func nextWord(from position: GridPosition, _ direction: Direction) -> Clue? {
        guard let current = clue(containing: position, direction) else { return allClues.first }
        return nextClue(after: current)
    }

    /// The previous word for a cursor at `position` in `direction` (Shift-Tab).
    public func previousWord(from position: GridPosition, _ direction: Direction) -> Clue? {
        guard let current = clue(containing: position, direction) else { return allClues.last }
        return previousClue(before: current)
    }

    /// The first square of `clue` that `letterAt` reports empty, `nil` when the word is full.
    public func firstEmptyCell(of clue: Clue, letterAt: (GridPosition) -> String) -> GridPosition? {
        clue.cells.first { letterAt($0).isEmpty }
    }

    /// Where a cursor starts when a game opens, in every client: the first empty square of the
    /// first clue that has one (the across clues, then the down ones), in that clue's direction;
    /// in a full grid, the first clue's first square.
    public func openingCursor(letterAt: (GridPosition) -> String) -> (position: GridPosition, direction: Direction) {
        for clue in across + down {
            if let empty = firstEmptyCell(of: clue, letterAt: letterAt) { return (empty, clue.direction) }
        }
        if let first = across.first ?? down.first, let square = first.cells.first { return (square, first.direction) }
        return (letterPositions.first ?? GridPosition(row: 0, col: 0), .across)
    }
}
