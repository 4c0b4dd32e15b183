import CrossmateCore

/// Builds puzzles for tests from rows of text: a letter is an answer, `#` a block, `_` a void.
func makePuzzle(_ rows: [String], clueTexts: [Direction: [Int: String]] = [:]) throws -> Puzzle {
    let width = rows.first?.count ?? 0
    let cells = rows.joined().map { character -> Cell in
        switch character {
        case "#": .block
        case "_": .void
        default: .letter(String(character))
        }
    }
    return try Puzzle(width: width, height: rows.count, cells: cells, clueTexts: clueTexts)
}
