import CrossmateCore

/// Writes .ipuz (v2) crosswords: every square, style, solution, saved fill and clue with its cells.
/// The JSON is written by hand (`JSONValue`), keys sorted and nothing between tokens:
/// `JSONSerialization` spent about 115 ms on a 58×58 grid bridging every square through
/// Foundation's dictionaries, and an export of all a player's games writes a hundred of them.
public enum IpuzWriter {
    public static func write(_ puzzle: Puzzle) throws(PuzzleFileError) -> [UInt8] {
        guard puzzle.lock == nil else {
            throw .cannotWrite("the solution is locked; unlock it with its key before saving as .ipuz")
        }
        func rows(_ value: (Int) -> JSONValue) -> JSONValue {
            .array((0..<puzzle.height).map { row in .array((0..<puzzle.width).map { col in value(row * puzzle.width + col) }) })
        }
        let layout = rows { index -> JSONValue in
            let cell = puzzle.cells[index]
            switch cell.kind {
            case .void: return .null
            case .block: return .string("#")
            case .letter:
                let label = JSONValue.int(cell.number ?? 0)
                var style: [String: JSONValue] = [:]
                if cell.isCircled { style["shapebg"] = .string("circle") }
                if cell.isShaded { style["highlight"] = .bool(true) }
                let bars = [(CellBars.top, "T"), (.left, "L"), (.bottom, "B"), (.right, "R")]
                    .filter { cell.bars.contains($0.0) }.map(\.1).joined()
                if !bars.isEmpty { style["barred"] = .string(bars) }
                guard !style.isEmpty || cell.given != nil else { return label }
                var object: [String: JSONValue] = ["cell": label]
                if !style.isEmpty { object["style"] = .object(style) }
                if let given = cell.given { object["value"] = .string(given) }
                return .object(object)
            }
        }
        var root: [String: JSONValue] = [
            "version": .string("http://ipuz.org/v2"),
            "kind": .array([.string(puzzle.isDiagramless ? "http://ipuz.org/crossword/diagramless#1" : "http://ipuz.org/crossword#1")]),
            "title": .string(puzzle.title),
            "author": .string(puzzle.author),
            "copyright": .string(puzzle.copyright),
            "notes": .string(puzzle.notes),
            "dimensions": .object(["width": .int(puzzle.width), "height": .int(puzzle.height)]),
            "block": .string("#"),
            "empty": .string("0"),
            "puzzle": layout,
            "clues": .object([
                "Across": .array(puzzle.across.map(clueObject)),
                "Down": .array(puzzle.down.map(clueObject)),
            ]),
        ]
        if puzzle.hasSolution {
            root["solution"] = rows { index -> JSONValue in
                let cell = puzzle.cells[index]
                switch cell.kind {
                case .void: return .null
                case .block: return .string("#")
                case .letter: return cell.solution.map(JSONValue.string) ?? .null
                }
            }
        }
        if let progress = puzzle.savedProgress {
            root["saved"] = rows { index -> JSONValue in
                let cell = puzzle.cells[index]
                switch cell.kind {
                case .void: return .null
                case .block: return .string("#")
                case .letter: return .string(progress.letters[index].isEmpty ? "0" : progress.letters[index])
                }
            }
        }
        var output: [UInt8] = []
        output.reserveCapacity(puzzle.cells.count * 24 + 4_096)
        JSONValue.object(root).write(to: &output)
        return output
    }

    private static func clueObject(_ clue: Clue) -> JSONValue {
        .object([
            "number": .int(clue.number),
            "clue": .string(clue.text),
            "cells": .array(clue.cells.map { .array([.int($0.col + 1), .int($0.row + 1)]) }),
        ])
    }
}

/// A JSON value, written compactly with its objects' keys sorted, strings escaped as
/// `JSONSerialization` escapes them with `.withoutEscapingSlashes`.
enum JSONValue {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    func write(to output: inout [UInt8]) {
        switch self {
        case .null: output += Array("null".utf8)
        case let .bool(value): output += Array((value ? "true" : "false").utf8)
        case let .int(value): output += Array(String(value).utf8)
        case let .string(text): Self.quote(text, to: &output)
        case let .array(values):
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case let .object(members):
            output.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.quote(key, to: &output)
                output.append(UInt8(ascii: ":"))
                members[key]!.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func quote(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: output += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x09: output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x0A: output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0C: output += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0D: output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
