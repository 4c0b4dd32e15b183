import ArgumentParser
import CrossmateCore
import CrossmateFormats
import Foundation

/// `crossmate show FILE`: the grid and clues as text, or the puzzle as JSON.
struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a puzzle's grid and clues.",
        discussion:
            "FILE is a .puz, .ipuz, .jpz or .xd file, or bundled:NAME for a shipped puzzle (\(BundledPuzzles.identifiers.joined(separator: ", ")))."
    )

    @Argument(help: "The puzzle file.")
    var file: String

    @Option(help: ArgumentHelp("The 4-digit key of a locked (scrambled) .puz solution.", valueName: "NNNN"))
    var key: UnlockKey?

    @Flag(help: "Print the puzzle as JSON.")
    var json = false

    func run() throws {
        let puzzle: Puzzle
        do { puzzle = try PuzzleInput.load(file, key: key?.value) } catch { throw error.report() }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(PuzzleJSON(puzzle))
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(PuzzleText.render(puzzle), terminator: "")
        }
    }
}

/// The JSON shape of `show --json`: rows top to bottom, `null` for blocks and voids.
struct PuzzleJSON: Encodable {
    struct CellJSON: Encodable {
        let solution: String?
        let number: Int?
        let circled: Bool
        let shaded: Bool

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(solution, forKey: .solution)
            try container.encode(number, forKey: .number)
            try container.encode(circled, forKey: .circled)
            try container.encode(shaded, forKey: .shaded)
        }

        enum CodingKeys: String, CodingKey { case solution, number, circled, shaded }
    }

    struct ClueJSON: Encodable {
        let number: Int
        let text: String
    }

    let title, author, copyright, notes: String
    let width, height: Int
    let locked: Bool
    let cells: [[CellJSON?]]
    let clues: [String: [ClueJSON]]

    init(_ puzzle: Puzzle) {
        title = puzzle.title
        author = puzzle.author
        copyright = puzzle.copyright
        notes = puzzle.notes
        width = puzzle.width
        height = puzzle.height
        locked = puzzle.lock != nil
        cells = (0..<puzzle.height).map { row in
            (0..<puzzle.width).map { col in
                let cell = puzzle.cell(at: GridPosition(row: row, col: col))
                guard cell.isLetter else { return nil }
                return CellJSON(
                    solution: cell.solution?.uppercased(), number: cell.number,
                    circled: cell.isCircled, shaded: cell.isShaded)
            }
        }
        clues = [
            "across": puzzle.across.map { ClueJSON(number: $0.number, text: $0.text) },
            "down": puzzle.down.map { ClueJSON(number: $0.number, text: $0.text) },
        ]
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(author, forKey: .author)
        try container.encode(copyright, forKey: .copyright)
        try container.encode(notes, forKey: .notes)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(locked, forKey: .locked)
        // Blocks and voids are explicit nulls, never missing entries.
        var rows = container.nestedUnkeyedContainer(forKey: .cells)
        for row in cells {
            var values = rows.nestedUnkeyedContainer()
            for cell in row {
                if let cell { try values.encode(cell) } else { try values.encodeNil() }
            }
        }
        try container.encode(clues, forKey: .clues)
    }

    enum CodingKeys: String, CodingKey { case title, author, copyright, notes, width, height, locked, cells, clues }
}

/// The plain-text rendering of `show`.
enum PuzzleText {
    static func render(_ puzzle: Puzzle) -> String {
        var out = ""
        out += (puzzle.title.isEmpty ? "(untitled)" : puzzle.title) + "\n"
        let byline = [puzzle.author.isEmpty ? nil : "by \(puzzle.author)", puzzle.copyright.isEmpty ? nil : puzzle.copyright]
            .compactMap { $0 }.joined(separator: " · ")
        if !byline.isEmpty { out += byline + "\n" }
        var facts = ["\(puzzle.width)×\(puzzle.height)"]
        if puzzle.isDiagramless { facts.append("diagramless") }
        if puzzle.lock != nil { facts.append("solution locked (use --key NNNN)") } else if !puzzle.hasSolution { facts.append("no solution") }
        out += facts.joined(separator: ", ") + "\n\n"

        var rebuses: [String] = []
        for row in 0..<puzzle.height {
            var line = ""
            for col in 0..<puzzle.width {
                let position = GridPosition(row: row, col: col)
                let cell = puzzle.cell(at: position)
                switch cell.kind {
                case .block: line += "██"
                case .void: line += "  "
                case .letter:
                    let solution = cell.solution ?? ""
                    if solution.count > 1 { rebuses.append("\(position) = \(solution)") }
                    let mark = cell.isCircled ? "◯" : (cell.isShaded ? "░" : " ")
                    line += (solution.first.map(String.init) ?? "·") + mark
                }
            }
            out += " " + line + "\n"
        }
        if !rebuses.isEmpty { out += "\nRebus squares: " + rebuses.joined(separator: ", ") + "\n" }
        for direction in Direction.allCases {
            out += "\n" + (direction == .across ? "Across" : "Down") + "\n"
            for clue in puzzle.clues(direction) {
                out += "  \(clue.number). \(clue.text) (\(clue.cells.count))\n"
            }
        }
        if !puzzle.notes.isEmpty { out += "\nNotes: \(puzzle.notes)\n" }
        return out
    }
}
