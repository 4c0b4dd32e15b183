import CrossmateCore
import CrossmateFormats
import Foundation

/// The crossword files under Fixtures/ (Kotwords' test puzzles and a few of our own).
enum Fixture {
    static let root = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent(path)))
    }

    static func puzzle(_ path: String) throws -> Puzzle {
        try PuzzleFile.read(bytes(path), fileName: path)
    }

    /// Every fixture file of one format, by path relative to Fixtures/.
    static func all(_ format: PuzzleFormat) throws -> [String] {
        let folder = root.appendingPathComponent("kotwords/\(format.rawValue)")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix("." + format.rawValue) }.sorted()
            .map { "kotwords/\(format.rawValue)/\($0)" }
    }
}

/// The parts of a puzzle every format can express, for comparing one read across formats.
struct PuzzleEssence: Equatable, CustomStringConvertible {
    var title, author, copyright, notes: String
    var width, height: Int
    var cells: [String]
    var clues: [String]

    init(_ puzzle: Puzzle) {
        title = puzzle.title
        author = puzzle.author
        copyright = puzzle.copyright
        notes = puzzle.notes
        width = puzzle.width
        height = puzzle.height
        cells = puzzle.cells.map { cell in
            switch cell.kind {
            case .block: "#"
            case .void: "_"
            case .letter: "\(cell.solution ?? "?")\(cell.number.map { "/\($0)" } ?? "")\(cell.isCircled ? "o" : "")\(cell.isShaded ? "s" : "")"
            }
        }
        clues = puzzle.allClues.map { "\($0.label) \($0.text) \($0.cells.map(\.description).joined(separator: ","))" }
    }

    var description: String { "\(title) \(width)x\(height) \(cells) \(clues)" }
}
