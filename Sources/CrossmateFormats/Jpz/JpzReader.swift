import CrossmateCore

/// Reads Crossword Compiler .jpz puzzles: plain XML or zipped, with or without namespaces.
public enum JpzReader {
    /// Zipped .jpz files hold one small XML document; anything bigger is refused.
    static let maximumUnzippedSize = 16 << 20

    public static func read(_ data: [UInt8]) throws(PuzzleFileError) -> Puzzle {
        let xml = data.starts(with: [0x50, 0x4B, 0x03, 0x04]) ? try ZipArchive.firstFile(data, limit: maximumUnzippedSize) : data
        let root = try MarkupElement.parse(xml)
        guard let puzzle = root.name == "rectangular-puzzle" ? root : root.descendant("rectangular-puzzle") else {
            throw .notACrossword("the XML has no <rectangular-puzzle> element")
        }
        guard let crossword = puzzle.child("crossword") else {
            throw .notACrossword("the .jpz puzzle is not a crossword")
        }
        guard let grid = crossword.child("grid") else { throw .malformed("the .jpz crossword has no <grid>") }
        guard let width = grid.attributes["width"].flatMap({ Int($0) }),
            let height = grid.attributes["height"].flatMap({ Int($0) })
        else {
            throw .malformed("the .jpz <grid> needs numeric width and height")
        }
        guard (1...Puzzle.maximumSide).contains(width), (1...Puzzle.maximumSide).contains(height) else {
            throw .invalidPuzzle(.invalidDimensions(width: width, height: height))
        }

        var cells = [Cell](repeating: .letter(nil), count: width * height)
        var saved = [String](repeating: "", count: width * height)
        for element in grid.children("cell") {
            guard let x = element.attributes["x"].flatMap({ Int($0) }),
                let y = element.attributes["y"].flatMap({ Int($0) }),
                (1...width).contains(x), (1...height).contains(y)
            else {
                throw .malformed("a .jpz <cell> has no position inside the \(width)×\(height) grid")
            }
            let index = (y - 1) * width + (x - 1)
            cells[index] = readCell(element.attributes)
            if cells[index].isLetter, let state = element.attributes["solve-state"], !state.isEmpty {
                saved[index] = state.uppercased()
            }
        }

        var budget = WordBudget(width: width, height: height)
        let words = try readWords(crossword, budget: &budget)
        let numbered = NumberedSquares(cells)
        var across: [Clue] = []
        var down: [Clue] = []
        for (order, list) in crossword.children("clues").enumerated() {
            // Lists are told apart by their titles, else by order; a third list (diagonals,
            // say) has no place in an across/down model and is set aside.
            let heading = list.child("title")?.text.lowercased() ?? ""
            let direction: Direction
            if heading.contains("across") {
                direction = .across
            } else if heading.contains("down") {
                direction = .down
            } else if order < 2 {
                direction = order == 0 ? .across : .down
            } else {
                continue
            }
            for element in list.children("clue") {
                try budget.takeClue()
                let number = element.attributes["number"].flatMap { Int($0.trimmingSpaces) }
                let text = ClueMarkup.plainText(element.text)
                let positions: [GridPosition]
                if let id = element.attributes["word"], let word = words[id] {
                    positions = word
                } else if let number, let start = numbered.index(of: number) {
                    positions = StandardNumbering.run(
                        from: GridPosition(row: start / width, col: start % width),
                        direction, width: width, height: height, cells: cells)
                    try budget.takeWord(of: positions.count)
                } else {
                    throw .malformed("the \(direction.rawValue) clue \"\(text)\" names no word in the grid")
                }
                guard let number = number ?? positions.first.flatMap({ cells[$0.row * width + $0.col].number }) else {
                    throw .malformed("the \(direction.rawValue) clue \"\(text)\" has no number")
                }
                let clue = Clue(direction: direction, number: number, text: text, cells: positions)
                if direction == .across { across.append(clue) } else { down.append(clue) }
            }
        }

        let metadata = puzzle.child("metadata")
        let settings = root.descendant("applet-settings")
        func field(_ name: String, fallback: String? = nil) -> String {
            let value = metadata?.child(name)?.text.trimmingSpaces ?? ""
            return value.isEmpty ? (fallback.flatMap { settings?.child($0)?.text.trimmingSpaces } ?? "") : value
        }
        let progress = SavedProgress(letters: saved)
        let builtCells = cells
        return try PuzzleFileError.building { () throws(PuzzleError) in
            try Puzzle(
                title: ClueMarkup.plainText(field("title", fallback: "title")),
                author: ClueMarkup.plainText(field("creator")),
                copyright: ClueMarkup.plainText(field("copyright", fallback: "copyright")),
                notes: ClueMarkup.plainText(field("description")),
                width: width, height: height, cells: builtCells, across: across, down: down,
                savedProgress: progress.isEmpty ? nil : progress)
        }
    }

    private static func readCell(_ attributes: [String: String]) -> Cell {
        switch attributes["type"] {
        case "block": return .block
        case "void": return .void
        default: break
        }
        var cell = Cell(kind: .letter)
        if let solution = attributes["solution"], !solution.isEmpty { cell.solution = solution.uppercased() }
        cell.number = attributes["number"].flatMap { Int($0) }
        cell.isCircled = attributes["background-shape"] == "circle"
        cell.isShaded = attributes["background-color"].map { !$0.isEmpty } ?? false
        if attributes["type"] == "clue" || attributes["hint"] == "true" {
            cell.given = cell.solution ?? attributes["solve-state"]?.uppercased()
        }
        for (name, bar) in [("top-bar", CellBars.top), ("left-bar", .left), ("bottom-bar", .bottom), ("right-bar", .right)]
        where attributes[name] == "true" {
            cell.bars.insert(bar)
        }
        return cell
    }

    /// Words by id: squares from the word's own x/y ranges, then from its <cells> children. Each
    /// word is a straight run, and all of them together stay inside `budget`.
    private static func readWords(_ crossword: MarkupElement, budget: inout WordBudget) throws(PuzzleFileError) -> [String: [GridPosition]] {
        var words: [String: [GridPosition]] = [:]
        for word in crossword.children("word") {
            guard let id = word.attributes["id"] else { continue }
            try budget.takeClue()
            var positions: [GridPosition] = []
            for element in [word] + word.children("cells") {
                guard let xs = element.attributes["x"], let ys = element.attributes["y"] else { continue }
                let columns = try range(xs, limit: budget.width)
                let rows = try range(ys, limit: budget.height)
                // Counted before the squares are listed: a range in both directions is a
                // rectangle, not a word.
                guard columns.count == 1 || rows.count == 1 else {
                    throw .malformed("the .jpz word \"\(id)\" spans \(xs) × \(ys); a word runs along one row or column")
                }
                try budget.takeWord(of: columns.count * rows.count)
                for row in rows {
                    for col in columns { positions.append(GridPosition(row: row - 1, col: col - 1)) }
                }
            }
            guard positions.count <= max(budget.width, budget.height) else {
                throw .malformed("the .jpz word \"\(id)\" has \(positions.count) squares, more than the grid is wide or high")
            }
            if !positions.isEmpty { words[id] = positions }
        }
        return words
    }

    /// "3" or "1-4" (1-based, inclusive, either order).
    private static func range(_ text: String, limit: Int) throws(PuzzleFileError) -> [Int] {
        let parts = text.split(separator: "-").map { Int($0.trimmingSpaces) }
        guard (1...2).contains(parts.count), let first = parts[0], let last = parts[parts.count - 1],
            (1...limit).contains(first), (1...limit).contains(last)
        else {
            throw .malformed("the .jpz word range \"\(text)\" is outside the grid")
        }
        return first <= last ? Array(first...last) : Array((last...first).reversed())
    }
}
