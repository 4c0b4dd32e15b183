import CrossmateCore

/// Writes .xd crosswords (the plain-text format of the xd corpus): metadata, the solution grid
/// (a rebus as a digit named in `Rebus:`, circled or shaded squares in lower case with
/// `Special:`), the puzzle's notes and its clues with their answers. The format keeps no
/// player's fill, no bars and no unknown answers: those are refused with the reason.
public enum XdWriter {
    public static func write(_ puzzle: Puzzle) throws(PuzzleFileError) -> [UInt8] {
        guard puzzle.hasSolution, puzzle.lock == nil else {
            throw .cannotWrite("an .xd file holds the answers, and this puzzle came without them; save it as .puz or .ipuz")
        }
        guard !puzzle.cells.contains(where: { !$0.bars.isEmpty }) else {
            throw .cannotWrite("the .xd format has no bars; save barred puzzles as .ipuz or .jpz")
        }
        var rebus: [String: Character] = [:]
        let keys = Array("123456789") + Array("!@$%&*+=?")
        var grid = ""
        for row in 0..<puzzle.height {
            for col in 0..<puzzle.width {
                let cell = puzzle.cell(at: GridPosition(row: row, col: col))
                switch cell.kind {
                case .block: grid.append("#")
                case .void: grid.append("_")
                case .letter:
                    let answer = (cell.solution ?? "").uppercased()
                    var square: Character
                    if answer.count == 1, let letter = answer.first, letter.isLetter, letter.isASCII {
                        square = letter
                    } else {
                        if rebus[answer] == nil {
                            guard rebus.count < keys.count else { throw .cannotWrite("the .xd rebus list holds at most \(keys.count) answers") }
                            rebus[answer] = keys[rebus.count]
                        }
                        square = rebus[answer]!
                    }
                    if (cell.isCircled || cell.isShaded) && square.isLetter { square = Character(square.lowercased()) }
                    grid.append(square)
                }
            }
            grid.append("\n")
        }
        func line(_ text: String) -> String { text.replacingOccurrences(of: "\n", with: " ") }
        var text = "## Metadata\n\n"
        if !puzzle.title.isEmpty { text += "title: \(line(puzzle.title))\n" }
        if !puzzle.author.isEmpty { text += "author: \(line(puzzle.author))\n" }
        if !puzzle.copyright.isEmpty { text += "copyright: \(line(puzzle.copyright))\n" }
        if !rebus.isEmpty {
            text += "rebus: " + rebus.sorted { $0.value < $1.value }.map { "\($0.value)=\($0.key)" }.joined(separator: " ") + "\n"
        }
        if puzzle.cells.contains(where: \.isShaded) && !puzzle.cells.contains(where: \.isCircled) { text += "special: shaded\n" }
        if puzzle.cells.contains(where: \.isCircled) { text += "special: circle\n" }
        text += "\n## Grid\n\n" + grid + "\n## Clues\n\n"
        for direction in [Direction.across, .down] {
            for clue in puzzle.clues(direction) {
                let answer = clue.cells.map { puzzle.cell(at: $0).solution ?? "" }.joined()
                text += "\(direction == .across ? "A" : "D")\(clue.number). \(line(clue.text)) ~ \(answer)\n"
            }
            text += "\n"
        }
        if !puzzle.notes.isEmpty { text += "## Notes\n\n\(puzzle.notes)\n" }
        return Array(text.utf8)
    }
}
