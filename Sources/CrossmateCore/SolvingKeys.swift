/// The cursor and its keys, as every Crossmate client behaves: a pure state machine (key, cursor
/// and the letters on the grid in; the new cursor and, maybe, an edit out). The terminal and the
/// browser both follow it, and one table of cases (Tests/CrossmateCoreTests/Resources) checks it.
public enum SolvingKeys {
    /// A key a solver presses.
    public enum Key: Hashable, Sendable {
        case letter(String)
        case left, right, up, down
        case space, tab, shiftTab
        case backspace, delete
        case home, end
        /// Opens a rebus entry: letters, digits and `/` gather until `enter` (`escape` cancels).
        case rebus
        case enter, escape
        /// Pencil on or off for the letters typed next.
        case pencil
        /// Jumps to a clue by its number and direction.
        case jump(number: Int, direction: Direction)
        /// A tap or a click on a square: the cursor goes there, keeping its direction where a
        /// word runs that way (else turning); on the cursor's own square it turns, where a word
        /// runs the other way. It closes an open rebus entry without writing it.
        case tap(GridPosition)
    }

    /// Where the solver is and how they type.
    public struct Cursor: Hashable, Sendable, Codable {
        public var position: GridPosition
        public var direction: Direction
        public var pencil: Bool
        /// The rebus being typed, while the entry is open.
        public var rebus: String?

        public init(position: GridPosition, direction: Direction, pencil: Bool = false, rebus: String? = nil) {
            self.position = position
            self.direction = direction
            self.pencil = pencil
            self.rebus = rebus
        }
    }

    /// A change to the grid a key asks for; the client's engine turns it into a command.
    public enum Edit: Hashable, Sendable {
        case write(GridPosition, String, pencil: Bool)
        case erase(GridPosition)
    }

    /// Options solvers can change (each one of the account's settings, `SolverSettings`).
    public struct Options: Hashable, Sendable {
        /// After a letter, skip squares that already hold one (the usual); off moves to the very
        /// next square of the word.
        public var skipFilledSquares: Bool
        /// At a word's end (or once it is full), go on to the next word (the usual); off stays
        /// in the word.
        public var jumpAtWordEnd: Bool
        /// Space clears the square and moves on in the word; off (the usual) turns the direction.
        public var spaceClears: Bool
        /// Backspace at a word's first square goes back into the previous word; off (the usual)
        /// stays in the word.
        public var backspaceAcrossWords: Bool

        public init(skipFilledSquares: Bool = true, jumpAtWordEnd: Bool = true, spaceClears: Bool = false, backspaceAcrossWords: Bool = false) {
            self.skipFilledSquares = skipFilledSquares
            self.jumpAtWordEnd = jumpAtWordEnd
            self.spaceClears = spaceClears
            self.backspaceAcrossWords = backspaceAcrossWords
        }
    }

    /// The cursor a game opens on where this device has none kept: the first empty square of
    /// the first word with one (across before down), else the first word's first square. (The
    /// table's "Open" rows check it in every client.)
    public static func opening(puzzle: Puzzle, letterAt: (GridPosition) -> String) -> Cursor {
        let opening = puzzle.openingCursor(letterAt: letterAt)
        return Cursor(position: opening.position, direction: opening.direction)
    }

    /// The cursor after `key`, and the edit it makes (if any). `letterAt` is the grid before the
    /// key; an edit's effect on it is taken into account for where the cursor goes next.
    public static func press(
        _ key: Key, cursor: Cursor, puzzle: Puzzle, letterAt: (GridPosition) -> String, options: Options = Options()
    ) -> (cursor: Cursor, edit: Edit?) {
        var next = cursor
        if case let .tap(square) = key {
            guard puzzle.contains(square), puzzle.cell(at: square).isLetter else { return (cursor, nil) }
            next.rebus = nil
            if square == cursor.position {
                if puzzle.clue(containing: square, cursor.direction.perpendicular) != nil { next.direction = cursor.direction.perpendicular }
            } else {
                next.position = square
                if puzzle.clue(containing: square, cursor.direction) == nil { next.direction = cursor.direction.perpendicular }
            }
            return (next, nil)
        }
        if var buffer = cursor.rebus {
            switch key {
            case let .letter(text):
                next.rebus = SquareText.rebus(buffer, adding: text)
                return (next, nil)
            case .backspace:
                buffer.removeLast(buffer.isEmpty ? 0 : 1)
                next.rebus = buffer
                return (next, nil)
            case .escape:
                next.rebus = nil
                return (next, nil)
            case .enter:
                next.rebus = nil
                guard !buffer.isEmpty else { return (next, nil) }
                return typed(buffer, cursor: next, puzzle: puzzle, letterAt: letterAt, options: options)
            default:
                return (next, nil)  // other keys wait until the entry is closed
            }
        }
        switch key {
        case let .letter(text):
            guard let letter = text.uppercased().first, SquareText.isTypedDirectly(letter) else { return (cursor, nil) }
            return typed(String(letter), cursor: cursor, puzzle: puzzle, letterAt: letterAt, options: options)
        case .left, .right, .up, .down:
            let axis: Direction = key == .left || key == .right ? .across : .down
            guard axis == cursor.direction else {
                next.direction = axis
                return (next, nil)
            }
            let delta = key == .left || key == .up ? -1 : 1
            next.position = step(from: cursor.position, axis, by: delta, in: puzzle) ?? cursor.position
            return (next, nil)
        case .space:
            guard options.spaceClears else {
                next.direction = cursor.direction.perpendicular
                return (next, nil)
            }
            if let word = puzzle.clue(containing: cursor.position, cursor.direction),
                let index = word.cells.firstIndex(of: cursor.position), index + 1 < word.cells.count
            {
                next.position = word.cells[index + 1]
            }
            return (next, letterAt(cursor.position).isEmpty ? nil : .erase(cursor.position))
        case .tab, .shiftTab:
            let forward = key == .tab
            if let (clue, square) = unfilledWord(from: cursor, forward: forward, puzzle: puzzle, letterAt: letterAt) {
                next.position = square
                next.direction = clue.direction
            } else if let clue = forward
                ? puzzle.nextWord(from: cursor.position, cursor.direction)
                : puzzle.previousWord(from: cursor.position, cursor.direction), let first = clue.cells.first
            {
                next.position = first
                next.direction = clue.direction
            }
            return (next, nil)
        case .backspace:
            if !letterAt(cursor.position).isEmpty { return (cursor, .erase(cursor.position)) }
            let word = puzzle.clue(containing: cursor.position, cursor.direction)
            if let word, let index = word.cells.firstIndex(of: cursor.position), index > 0 {
                next.position = word.cells[index - 1]
            } else if options.backspaceAcrossWords, let previous = puzzle.previousWord(from: cursor.position, cursor.direction),
                previous != word, let last = previous.cells.last
            {
                next.position = last
                next.direction = previous.direction
            } else {
                return (cursor, nil)
            }
            return (next, letterAt(next.position).isEmpty ? nil : .erase(next.position))
        case .delete:
            return (cursor, letterAt(cursor.position).isEmpty ? nil : .erase(cursor.position))
        case .home, .end:
            if let word = puzzle.clue(containing: cursor.position, cursor.direction),
                let square = key == .home ? word.cells.first : word.cells.last
            {
                next.position = square
            }
            return (next, nil)
        case .rebus:
            next.rebus = ""
            return (next, nil)
        case .pencil:
            next.pencil.toggle()
            return (next, nil)
        case let .jump(number, direction):
            guard let clue = puzzle.clues(direction).first(where: { $0.number == number }), let first = clue.cells.first else {
                return (cursor, nil)
            }
            next.position = puzzle.firstEmptyCell(of: clue, letterAt: letterAt) ?? first
            next.direction = direction
            return (next, nil)
        case .enter, .escape, .tap:
            return (cursor, nil)
        }
    }

    /// Writes `letter` at the cursor and moves on: to the next empty square of the word (or the
    /// next square, without skipping), else the first empty one before it; at the word's end,
    /// to the first empty square of the next unfilled word (without skipping, the next word's
    /// first square); in a word that was full before the letter (a correction), on a full grid,
    /// or with `jumpAtWordEnd` off, to the next square of the word if there is one.
    static func typed(
        _ letter: String, cursor: Cursor, puzzle: Puzzle, letterAt: (GridPosition) -> String, options: Options
    ) -> (cursor: Cursor, edit: Edit?) {
        guard puzzle.isLetter(cursor.position) else { return (cursor, nil) }
        let edit = Edit.write(cursor.position, letter, pencil: cursor.pencil)
        func after(_ square: GridPosition) -> String { square == cursor.position ? letter : letterAt(square) }
        var next = cursor
        guard let word = puzzle.clue(containing: cursor.position, cursor.direction),
            let index = word.cells.firstIndex(of: cursor.position)
        else { return (next, edit) }
        let later = word.cells[(index + 1)...]
        let inWord =
            options.skipFilledSquares
            ? later.first(where: { after($0).isEmpty }) ?? word.cells[..<index].first(where: { after($0).isEmpty }) : later.first
        // Correcting a word that was already full goes on along it, not into other words.
        let wasFull = word.cells.allSatisfy { !letterAt($0).isEmpty }
        if let square = inWord {
            next.position = square
        } else if wasFull, let square = later.first {
            next.position = square
        } else if options.jumpAtWordEnd, options.skipFilledSquares,
            let (clue, square) = unfilledWord(from: cursor, forward: true, puzzle: puzzle, letterAt: after)
        {
            next.position = square
            next.direction = clue.direction
        } else if options.jumpAtWordEnd, !options.skipFilledSquares, let clue = puzzle.nextWord(from: cursor.position, cursor.direction),
            let first = clue.cells.first
        {
            next.position = first
            next.direction = clue.direction
        } else if let square = later.first {
            next.position = square
        }
        return (next, edit)
    }

    /// The next (or previous) word in clue order, wrapping, that has an empty square, with its
    /// first empty square.
    static func unfilledWord(
        from cursor: Cursor, forward: Bool, puzzle: Puzzle, letterAt: (GridPosition) -> String
    ) -> (Clue, GridPosition)? {
        let ordered = puzzle.allClues
        guard !ordered.isEmpty else { return nil }
        let start = puzzle.clue(containing: cursor.position, cursor.direction).flatMap { ordered.firstIndex(of: $0) } ?? (forward ? -1 : 0)
        for offset in 1...ordered.count {
            let index = ((start + (forward ? offset : -offset)) % ordered.count + ordered.count) % ordered.count
            if let square = puzzle.firstEmptyCell(of: ordered[index], letterAt: letterAt) { return (ordered[index], square) }
        }
        return nil
    }

    /// The next letter square along a row or column, over blocks; `nil` at the edge.
    static func step(from position: GridPosition, _ direction: Direction, by delta: Int, in puzzle: Puzzle) -> GridPosition? {
        var square = position
        while true {
            square =
                direction == .across
                ? GridPosition(row: square.row, col: square.col + delta) : GridPosition(row: square.row + delta, col: square.col)
            guard puzzle.contains(square) else { return nil }
            if puzzle.isLetter(square) { return square }
        }
    }
}
