import CrossmateCore
import Foundation

/// Writes .ipuz (v2) crosswords: every square, style, solution, saved fill and clue with its cells.
public enum IpuzWriter {
    public static func write(_ puzzle: Puzzle) throws(PuzzleFileError) -> [UInt8] {
        guard puzzle.lock == nil else {
            throw .cannotWrite("the solution is locked; unlock it with its key before saving as .ipuz")
        }
        func rows(_ value: (Int) -> Any) -> [[Any]] {
            (0..<puzzle.height).map { row in (0..<puzzle.width).map { col in value(row * puzzle.width + col) } }
        }
        let layout = rows { index -> Any in
            let cell = puzzle.cells[index]
            switch cell.kind {
            case .void: return NSNull()
            case .block: return "#"
            case .letter:
                let label: Any = cell.number ?? 0
                var style: [String: Any] = [:]
                if cell.isCircled { style["shapebg"] = "circle" }
                if cell.isShaded { style["highlight"] = true }
                let bars = [(CellBars.top, "T"), (.left, "L"), (.bottom, "B"), (.right, "R")]
                    .filter { cell.bars.contains($0.0) }.map(\.1).joined()
                if !bars.isEmpty { style["barred"] = bars }
                guard !style.isEmpty || cell.given != nil else { return label }
                var object: [String: Any] = ["cell": label]
                if !style.isEmpty { object["style"] = style }
                if let given = cell.given { object["value"] = given }
                return object
            }
        }
        var root: [String: Any] = [
            "version": "http://ipuz.org/v2",
            "kind": [puzzle.isDiagramless ? "http://ipuz.org/crossword/diagramless#1" : "http://ipuz.org/crossword#1"],
            "title": puzzle.title,
            "author": puzzle.author,
            "copyright": puzzle.copyright,
            "notes": puzzle.notes,
            "dimensions": ["width": puzzle.width, "height": puzzle.height],
            "block": "#",
            "empty": "0",
            "puzzle": layout,
            "clues": [
                "Across": puzzle.across.map(clueObject),
                "Down": puzzle.down.map(clueObject),
            ],
        ]
        if puzzle.hasSolution {
            root["solution"] = rows { index -> Any in
                let cell = puzzle.cells[index]
                switch cell.kind {
                case .void: return NSNull()
                case .block: return "#"
                case .letter: return cell.solution.map { $0 as Any } ?? NSNull()
                }
            }
        }
        if let progress = puzzle.savedProgress {
            root["saved"] = rows { index -> Any in
                let cell = puzzle.cells[index]
                switch cell.kind {
                case .void: return NSNull()
                case .block: return "#"
                case .letter: return progress.letters[index].isEmpty ? "0" : progress.letters[index]
                }
            }
        }
        do {
            let data = try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys, .withoutEscapingSlashes])
            return Array(data)
        } catch {
            throw .cannotWrite("the puzzle could not be encoded as JSON")
        }
    }

    private static func clueObject(_ clue: Clue) -> [String: Any] {
        [
            "number": clue.number,
            "clue": clue.text,
            "cells": clue.cells.map { [$0.col + 1, $0.row + 1] },
        ]
    }
}
