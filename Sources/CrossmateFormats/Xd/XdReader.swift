import CrossmateCore
import Foundation

/// Reads .xd crosswords: metadata, grid (with rebus and special squares), clues with answers,
/// notes, and the newer "## Design" and "## Start" sections.
public enum XdReader {
    public static func read(_ data: [UInt8]) throws(PuzzleFileError) -> Puzzle {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw .notACrossword("an .xd file is UTF-8 text")
        }
        let sections = splitSections(removeComments(text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")))
        var metadata: [String: String] = [:]
        for line in sections["metadata", default: []] {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingSpaces.lowercased()
            guard !key.isEmpty else { continue }
            metadata[key] = String(line[line.index(after: colon)...]).trimmingSpaces
        }
        let rows = sections["grid", default: []].map { Array($0.trimmingSpaces) }.filter { !$0.isEmpty }
        guard let width = rows.first?.count, !rows.isEmpty else {
            throw .notACrossword("the .xd file has no grid")
        }
        let height = rows.count
        guard rows.allSatisfy({ $0.count == width }) else {
            throw .malformed("the .xd grid rows are not all \(width) squares wide")
        }
        guard width <= Puzzle.maximumSide, height <= Puzzle.maximumSide else {
            throw .invalidPuzzle(.invalidDimensions(width: width, height: height))
        }
        let rebus = rebusTable(metadata["rebus"] ?? "")
        let specialIsShaded = (metadata["special"] ?? "").lowercased().contains("shade")

        var cells: [Cell] = []
        for character in rows.joined() {
            switch character {
            case "#", ".": cells.append(.block)
            case "_": cells.append(.void)
            default:
                var cell = Cell(kind: .letter, solution: rebus[character] ?? String(character).uppercased())
                if character.isLowercase {
                    if specialIsShaded { cell.isShaded = true } else { cell.isCircled = true }
                }
                cells.append(cell)
            }
        }
        try applyDesign(sections["design", default: []], to: &cells, width: width, height: height)
        try applyStart(sections["start", default: []], to: &cells, width: width, height: height)

        var clueTexts: [Direction: [Int: String]] = [:]
        // The same budget as every reader: at most two clues per square.
        var budget = WordBudget(width: width, height: height)
        for line in sections["clues", default: []] {
            guard let (direction, number, text) = parseClue(line) else { continue }
            try budget.takeClue()
            clueTexts[direction, default: [:]][number] = text
        }
        let notes = sections["notes", default: []].joined(separator: "\n").trimmingSpaces
        let builtCells = cells
        return try PuzzleFileError.building { () throws(PuzzleError) in
            try Puzzle(
                title: metadata["title"] ?? "", author: metadata["author"] ?? "",
                copyright: metadata["copyright"] ?? "",
                notes: notes.isEmpty ? (metadata["description"] ?? metadata["notes"] ?? "") : notes,
                width: width, height: height, cells: builtCells, clueTexts: clueTexts)
        }
    }

    private static func removeComments(_ text: String) -> String {
        var out = ""
        var rest = text[...]
        while let open = rest.range(of: "<!--") {
            out += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "-->") else { return out }
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    /// Sections by lower-cased name. Files with "## Name" headings are split on them; older files
    /// separate metadata, grid, clues and notes by two or more blank lines.
    private static func splitSections(_ text: String) -> [String: [String]] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var sections: [String: [String]] = [:]
        if lines.contains(where: { $0.hasPrefix("## ") }) {
            var current = "metadata"
            for line in lines {
                if line.hasPrefix("## ") {
                    current = line.dropFirst(3).trimmingSpaces.lowercased()
                    if current == "metadata" || sections[current] == nil { sections[current, default: []] += [] }
                } else {
                    sections[current, default: []].append(line)
                }
            }
            return sections
        }
        let names = ["metadata", "grid", "clues", "notes"]
        var index = 0
        var blanks = 0
        var started = false
        for line in lines {
            if line.trimmingSpaces.isEmpty {
                blanks += 1
                continue
            }
            if started, blanks >= 2, index < names.count - 1 { index += 1 }
            blanks = 0
            started = true
            sections[names[index], default: []].append(line)
        }
        return sections
    }

    /// "1=ONE 2=TWO" (or "❶=XYZ"): grid characters standing for several letters.
    private static func rebusTable(_ value: String) -> [Character: String] {
        var table: [Character: String] = [:]
        for pair in value.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].count == 1, let key = parts[0].first else { continue }
            table[key] = parts[1].uppercased()
        }
        return table
    }

    static let maximumClueLineBytes = 4_096

    /// "A1. Clue text ~ ANSWER"; lines such as "A1 ^Hint: …" are not clues.
    private static func parseClue(_ line: String) -> (Direction, Int, String)? {
        // Markup is reduced with repeated searches, so a clue is cut to a clue's length first.
        let trimmed = (line.utf8.count > maximumClueLineBytes ? line.prefix(bytes: maximumClueLineBytes) : line).trimmingSpaces
        guard let first = trimmed.first, let direction: Direction = first == "A" ? .across : (first == "D" ? .down : nil) else {
            return nil
        }
        let afterLetter = trimmed.dropFirst()
        let digits = afterLetter.prefix { $0.isNumber }
        guard let number = Int(digits), afterLetter.dropFirst(digits.count).first == "." else { return nil }
        var body = afterLetter.dropFirst(digits.count + 1)
        if let tilde = body.range(of: " ~ ", options: .backwards) { body = body[..<tilde.lowerBound] }
        return (direction, number, plainClue(String(body)))
    }

    /// Reduces xd clue markup: {*bold*}, {/italic/}, {_underline_}, {-strike-}, {~sub~}, {^sup^},
    /// and the link, image and colour forms whose readable part is kept.
    static func plainClue(_ text: String) -> String {
        var out = text
        for (open, close, keep) in [("{@", "@}", 0), ("{!!", "!}", 1), ("{!", "!}", 1), ("{#", "#}", 0)] {
            while let start = out.range(of: open), let end = out.range(of: close, range: start.upperBound..<out.endIndex) {
                let parts = out[start.upperBound..<end.lowerBound].split(separator: "|", omittingEmptySubsequences: false)
                let kept = parts.count > keep ? parts[keep].trimmingSpaces : ""
                out.replaceSubrange(start.lowerBound..<end.upperBound, with: kept)
            }
        }
        for marker in ["*", "/", "_", "-", "~", "^"] {
            out = out.replacingOccurrences(of: "{" + marker, with: "").replacingOccurrences(of: marker + "}", with: "")
        }
        return out.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// "## Design": a <style> block of rules such as `O { background: circle }`, then a grid of
    /// the same size naming a rule per square.
    private static func applyDesign(_ lines: [String], to cells: inout [Cell], width: Int, height: Int) throws(PuzzleFileError) {
        guard !lines.isEmpty else { return }
        let text = lines.joined(separator: "\n")
        var styles: [Character: String] = [:]
        var gridLines = lines
        if let open = text.range(of: "<style>"), let close = text.range(of: "</style>") {
            let css = text[open.upperBound..<close.lowerBound]
            for rule in css.split(separator: "}") {
                let parts = rule.split(separator: "{", maxSplits: 1)
                guard parts.count == 2, let key = parts[0].trimmingSpaces.first else { continue }
                styles[key] = parts[1].lowercased()
            }
            gridLines = text[close.upperBound...].split(separator: "\n").map(String.init)
        }
        let rows = gridLines.map { Array($0.trimmingSpaces) }.filter { !$0.isEmpty }
        guard rows.count == height, rows.allSatisfy({ $0.count == width }) else {
            throw .malformed("the .xd design grid is not \(width)×\(height)")
        }
        for (index, key) in rows.joined().enumerated() {
            guard let style = styles[key], cells[index].isLetter else { continue }
            if style.contains("circle") { cells[index].isCircled = true }
            if style.contains("background-light") || style.contains("background-dark") || style.contains("shade") {
                cells[index].isShaded = true
            }
            if style.contains("bar-top") { cells[index].bars.insert(.top) }
            if style.contains("bar-left") { cells[index].bars.insert(.left) }
            if style.contains("bar-bottom") { cells[index].bars.insert(.bottom) }
            if style.contains("bar-right") { cells[index].bars.insert(.right) }
        }
    }

    /// "## Start": the letters printed in the grid before solving.
    private static func applyStart(_ lines: [String], to cells: inout [Cell], width: Int, height: Int) throws(PuzzleFileError) {
        let rows = lines.map { Array($0.trimmingSpaces) }.filter { !$0.isEmpty }
        guard !rows.isEmpty else { return }
        guard rows.count == height, rows.allSatisfy({ $0.count == width }) else {
            throw .malformed("the .xd start grid is not \(width)×\(height)")
        }
        for (index, character) in rows.joined().enumerated() where cells[index].isLetter && character.isLetter {
            cells[index].given = String(character).uppercased()
        }
    }
}
