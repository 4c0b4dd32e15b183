import CrossmateCore
import Foundation

/// Reads .ipuz crosswords (v1 and v2), including the JSONP wrapper `ipuz({...})`.
public enum IpuzReader {
    public static func read(_ data: [UInt8]) throws(PuzzleFileError) -> Puzzle {
        let json = try parseJSON(unwrapJSONP(data))
        guard let root = json as? [String: Any] else {
            throw .notACrossword("an .ipuz file is a JSON object")
        }
        let kinds = (root["kind"] as? [Any])?.compactMap { $0 as? String } ?? []
        guard kinds.contains(where: { $0.lowercased().contains("ipuz.org/crossword") }) else {
            throw .notACrossword("the ipuz kind is not a crossword (\(kinds.joined(separator: ", ")))")
        }
        guard let dimensions = root["dimensions"] as? [String: Any],
            let width = integer(dimensions["width"]), let height = integer(dimensions["height"])
        else { throw .malformed("the ipuz \"dimensions\" with width and height are missing") }
        guard (1...Puzzle.maximumSide).contains(width), (1...Puzzle.maximumSide).contains(height) else {
            throw .invalidPuzzle(.invalidDimensions(width: width, height: height))
        }
        let block = text(root["block"]) ?? "#"
        let empty = text(root["empty"]) ?? "0"

        let layout = try grid(root["puzzle"], "puzzle", width: width, height: height)
        let answers = try root["solution"].map { value throws(PuzzleFileError) in
            try grid(value, "solution", width: width, height: height)
        }
        let saved = try root["saved"].map { value throws(PuzzleFileError) in
            try grid(value, "saved", width: width, height: height)
        }

        var cells: [Cell] = []
        cells.reserveCapacity(width * height)
        for index in 0..<(width * height) {
            var cell = try readCell(layout[index], block: block, empty: empty, styles: root["styles"] as? [String: Any])
            if let answers, cell.isLetter {
                cell.solution = solutionValue(answers[index], block: block)?.uppercased()
            }
            cells.append(cell)
        }
        if !cells.contains(where: { $0.number != nil }) {
            let numbering = StandardNumbering(width: width, height: height, cells: cells)
            for index in cells.indices { cells[index].number = numbering.numbers[index] }
        }

        var across: [Clue] = []
        var down: [Clue] = []
        if let clueSets = root["clues"] as? [String: Any] {
            let zeroBased = usesZeroBasedCells(clueSets)
            let numbered = NumberedSquares(cells)
            var budget = WordBudget(width: width, height: height)
            for (key, list) in clueSets {
                let name = key.split(separator: ":").first.map { $0.lowercased() } ?? ""
                guard let direction = Direction(rawValue: name), let list = list as? [Any] else { continue }
                for item in list {
                    try budget.takeClue()
                    let clue = try readClue(
                        item, direction: direction, zeroBased: zeroBased, cells: cells, numbered: numbered,
                        budget: &budget, width: width, height: height)
                    if direction == .across { across.append(clue) } else { down.append(clue) }
                }
            }
        }
        across.sort { $0.number < $1.number }
        down.sort { $0.number < $1.number }

        var progress: SavedProgress?
        if let saved {
            let letters = cells.indices.map { index in
                cells[index].isLetter ? (solutionValue(saved[index], block: block)?.uppercased() ?? "") : ""
            }
            let candidate = SavedProgress(letters: letters.map { $0 == empty ? "" : $0 })
            progress = candidate.isEmpty ? nil : candidate
        }
        let isDiagramless = kinds.contains { $0.lowercased().contains("diagramless") }
        let builtCells = cells
        return try PuzzleFileError.building { () throws(PuzzleError) in
            try Puzzle(
                title: ClueMarkup.plainText(text(root["title"]) ?? ""),
                author: ClueMarkup.plainText(text(root["author"]) ?? ""),
                copyright: ClueMarkup.plainText(text(root["copyright"]) ?? ""),
                notes: text(root["notes"]) ?? text(root["intro"]) ?? "",
                width: width, height: height, cells: builtCells, across: across, down: down,
                isDiagramless: isDiagramless, savedProgress: progress)
        }
    }

    private static func unwrapJSONP(_ data: [UInt8]) -> [UInt8] {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let trimmed = bytes.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard trimmed.starts(with: Array("ipuz(".utf8)) else { return Array(trimmed) }
        var body = trimmed.dropFirst(5)
        while let last = body.last, [0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ";")].contains(last) { body = body.dropLast() }
        if body.last == UInt8(ascii: ")") { body = body.dropLast() }
        return Array(body)
    }

    private static func parseJSON(_ bytes: [UInt8]) throws(PuzzleFileError) -> Any {
        do {
            return try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw .notACrossword("the .ipuz content is not valid JSON")
        }
    }

    static func integer(_ value: Any?) -> Int? {
        if let number = value as? Int { return number }
        if let number = value as? Double, number == number.rounded(), abs(number) < 1e9 { return Int(number) }
        if let string = value as? String { return Int(string.trimmingSpaces) }
        return nil
    }

    static func text(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let number = integer(value) { return String(number) }
        return nil
    }

    /// Reads a height × width array of rows into reading order.
    private static func grid(_ value: Any?, _ name: String, width: Int, height: Int) throws(PuzzleFileError) -> [Any] {
        guard let rows = value as? [Any], rows.count == height else {
            throw .malformed("the ipuz \"\(name)\" grid does not have \(height) rows")
        }
        var out: [Any] = []
        out.reserveCapacity(width * height)
        for (number, row) in rows.enumerated() {
            guard let row = row as? [Any], row.count == width else {
                throw .malformed("row \(number + 1) of the ipuz \"\(name)\" grid does not have \(width) squares")
            }
            out += row
        }
        return out
    }

    private static func readCell(_ value: Any, block: String, empty: String, styles: [String: Any]?) throws(PuzzleFileError) -> Cell {
        if value is NSNull { return .void }
        if let object = value as? [String: Any] {
            var cell = try readCell(object["cell"] ?? empty, block: block, empty: empty, styles: styles)
            if cell.isLetter, let given = text(object["value"]), !given.isEmpty, given != empty {
                cell.given = given.uppercased()
            }
            var style = object["style"] as? [String: Any]
            if let named = object["style"] as? String { style = styles?[named] as? [String: Any] }
            if let style {
                cell.isCircled = (style["shapebg"] as? String)?.lowercased() == "circle"
                cell.isShaded = (style["highlight"] as? Bool) == true || style["color"] != nil
                if let barred = style["barred"] as? String {
                    for letter in barred.uppercased() {
                        switch letter {
                        case "T": cell.bars.insert(.top)
                        case "L": cell.bars.insert(.left)
                        case "B": cell.bars.insert(.bottom)
                        case "R": cell.bars.insert(.right)
                        default: break
                        }
                    }
                }
            }
            return cell
        }
        guard let label = text(value) else {
            throw .malformed("an ipuz puzzle square holds \(type(of: value)), not a number or string")
        }
        if label == block { return .block }
        if label == empty { return .letter(nil) }
        if let number = Int(label) { return .letter(nil, number: number > 0 ? number : nil) }
        return .letter(nil)
    }

    /// A solution (or saved) value: a string, a `{"value": …}` object, or null/block for none.
    private static func solutionValue(_ value: Any, block: String) -> String? {
        if let object = value as? [String: Any] { return solutionValue(object["value"] ?? NSNull(), block: block) }
        guard let string = text(value), string != block, !string.isEmpty else { return nil }
        return string
    }

    private static func usesZeroBasedCells(_ clueSets: [String: Any]) -> Bool {
        for case let list as [Any] in clueSets.values {
            for case let clue as [String: Any] in list {
                for case let pair as [Any] in clue["cells"] as? [Any] ?? [] where pair.contains(where: { integer($0) == 0 }) {
                    return true
                }
            }
        }
        return false
    }

    private static func readClue(
        _ item: Any, direction: Direction, zeroBased: Bool, cells: [Cell], numbered: NumberedSquares,
        budget: inout WordBudget, width: Int, height: Int
    ) throws(PuzzleFileError) -> Clue {
        let number: Int?
        var body: String
        var explicit: [GridPosition]?
        if let pair = item as? [Any], pair.count >= 2 {
            number = integer(pair[0])
            body = text(pair[1]) ?? ""
        } else if let object = item as? [String: Any] {
            number = integer(object["number"])
            body = text(object["clue"]) ?? ""
            if let list = object["cells"] as? [Any] {
                try budget.takeWord(of: list.count)
                var positions: [GridPosition] = []
                for case let pair as [Any] in list where pair.count == 2 {
                    guard let x = integer(pair[0]), let y = integer(pair[1]) else { continue }
                    let offset = zeroBased ? 0 : 1
                    positions.append(GridPosition(row: y - offset, col: x - offset))
                }
                explicit = positions
            }
        } else if let string = item as? String {
            // "12. Clue text" or just the text.
            let parts = string.split(separator: " ", maxSplits: 1)
            number = parts.first.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: ".:"))) }
            body = number != nil && parts.count > 1 ? String(parts[1]) : string
        } else {
            throw .malformed("an ipuz \(direction.rawValue) clue is neither text, [number, clue] nor an object")
        }
        guard let number else {
            throw .malformed("an ipuz \(direction.rawValue) clue has no number")
        }
        body = ClueMarkup.plainText(body)
        if let explicit, !explicit.isEmpty {
            return Clue(direction: direction, number: number, text: body, cells: explicit)
        }
        guard let start = numbered.index(of: number) else {
            throw .malformed("clue \(number) \(direction.rawValue) has no numbered square in the grid")
        }
        let run = StandardNumbering.run(
            from: GridPosition(row: start / width, col: start % width),
            direction, width: width, height: height, cells: cells)
        try budget.takeWord(of: run.count)
        return Clue(direction: direction, number: number, text: body, cells: run)
    }
}
