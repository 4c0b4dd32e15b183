import CrossmateCore

/// Writes .jpz crosswords (Crossword Compiler's XML, uncompressed): metadata, every square with
/// its answer, number, circle, shading and bars, the player's fill as `solve-state` when the
/// puzzle carries one, and the words with their clues.
public enum JpzWriter {
    public static func write(_ puzzle: Puzzle) throws(PuzzleFileError) -> [UInt8] {
        guard puzzle.lock == nil else {
            throw .cannotWrite("a locked puzzle's answers are scrambled; unlock it first, or save it as .puz")
        }
        func escaped(_ text: String) -> String {
            var out = ""
            for character in text {
                switch character {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\"": out += "&quot;"
                default:
                    // XML 1.0 has no place for most control characters.
                    if let scalar = character.unicodeScalars.first, scalar.value < 0x20, !["\n", "\t"].contains(character) { continue }
                    out.append(character)
                }
            }
            return out
        }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<crossword-compiler-applet xmlns=\"http://crossword.info/xml/crossword-compiler-applet\">\n"
        xml += "<rectangular-puzzle xmlns=\"http://crossword.info/xml/rectangular-puzzle\">\n<metadata>\n"
        xml += "<title>\(escaped(puzzle.title))</title>\n<creator>\(escaped(puzzle.author))</creator>\n"
        xml += "<copyright>\(escaped(puzzle.copyright))</copyright>\n<description>\(escaped(puzzle.notes))</description>\n"
        xml += "</metadata>\n<crossword>\n<grid width=\"\(puzzle.width)\" height=\"\(puzzle.height)\">\n"
        let fill = puzzle.savedProgress?.letters
        for row in 0..<puzzle.height {
            for col in 0..<puzzle.width {
                let cell = puzzle.cell(at: GridPosition(row: row, col: col))
                var attributes = "x=\"\(col + 1)\" y=\"\(row + 1)\""
                switch cell.kind {
                case .block: attributes += " type=\"block\""
                case .void: attributes += " type=\"void\""
                case .letter:
                    if let solution = cell.solution { attributes += " solution=\"\(escaped(solution))\"" }
                    if let number = cell.number { attributes += " number=\"\(number)\"" }
                    if cell.isCircled { attributes += " background-shape=\"circle\"" }
                    if cell.isShaded { attributes += " background-color=\"#CCCCCC\"" }
                    for (bar, name) in [(CellBars.top, "top-bar"), (.left, "left-bar"), (.bottom, "bottom-bar"), (.right, "right-bar")]
                    where cell.bars.contains(bar) {
                        attributes += " \(name)=\"true\""
                    }
                    if let letter = fill?[row * puzzle.width + col], !letter.isEmpty { attributes += " solve-state=\"\(escaped(letter))\"" }
                }
                xml += "<cell \(attributes)/>\n"
            }
        }
        xml += "</grid>\n"
        let clues = puzzle.clues(.across) + puzzle.clues(.down)
        for (index, clue) in clues.enumerated() {
            xml += "<word id=\"\(index + 1)\">"
            for position in clue.cells { xml += "<cells x=\"\(position.col + 1)\" y=\"\(position.row + 1)\"/>" }
            xml += "</word>\n"
        }
        var offset = 0
        for direction in [Direction.across, .down] {
            xml += "<clues ordering=\"normal\"><title><b>\(direction == .across ? "Across" : "Down")</b></title>\n"
            for clue in puzzle.clues(direction) {
                offset += 1
                xml += "<clue word=\"\(offset)\" number=\"\(clue.number)\">\(escaped(clue.text))</clue>\n"
            }
            xml += "</clues>\n"
        }
        xml += "</crossword>\n</rectangular-puzzle>\n</crossword-compiler-applet>\n"
        return Array(xml.utf8)
    }
}
