import CrossmateCore
import CrossmateFormats
import Foundation
import Testing

/// The solving keys, case by case from the JSON table every client runs (Resources/solving-keys.json).
@Suite struct SolvingKeysTests {
    struct Table: Decodable {
        var cases: [Case]
        var characters: [CharacterCase]
    }

    /// Whether a square holds a character (in a rebus) and whether one key types it.
    struct CharacterCase: Decodable, CustomTestStringConvertible {
        var text: String
        var square: Bool
        var typed: Bool
        var testDescription: String { text.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ") }
    }

    struct Case: Decodable, CustomTestStringConvertible {
        struct Start: Decodable {
            var row: Int
            var col: Int
            var direction: Direction
        }
        struct Expect: Decodable {
            var row: Int
            var col: Int
            var direction: Direction
            var changes: [String: String]
            var pencilled: [String]?
            var pencil: Bool?
            var rebus: String?
        }
        struct Options: Decodable {
            var skipFilledSquares: Bool?
            var jumpAtWordEnd: Bool?
            var spaceClears: Bool?
            var backspaceAcrossWords: Bool?
        }
        enum Filled: Decodable {
            case squares([String: String])
            case all(except: [String])

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let text = try? container.decode(String.self) {
                    guard text.hasPrefix("all") else {
                        throw DecodingError.dataCorruptedError(in: container, debugDescription: "filled is a map, \"all\" or \"all except r,c\"")
                    }
                    self = .all(except: text.split(separator: " ").dropFirst(2).map(String.init))
                } else {
                    self = .squares(try container.decode([String: String].self))
                }
            }
        }

        var name: String
        var puzzle: String
        var start: Start
        var keys: [String]
        var filled: Filled?
        var options: Options?
        var expect: Expect

        var testDescription: String { name }
    }

    static let table: Table = {
        let url = Bundle.module.url(forResource: "solving-keys", withExtension: "json", subdirectory: "Resources")!
        return try! JSONDecoder().decode(Table.self, from: Data(contentsOf: url))
    }()
    static let cases = table.cases
    static let characters = table.characters

    /// SquareText answers the table's characters: what a square holds (a rebus entry keeps it and
    /// the mutator stores it) and what one key types.
    @Test(arguments: characters)
    func squareTextFollowsTheTable(_ character: CharacterCase) throws {
        let one = try #require(character.text.count == 1 ? character.text.first : nil, "one character")
        #expect(SquareText.accepts(one) == character.square)
        #expect(SquareText.isTypedDirectly(one) == character.typed)
        #expect((SquareText.normalize(character.text) != nil) == character.square)
        #expect(SquareText.rebus("", adding: character.text).isEmpty == !character.square)
    }

    static func square(_ text: String) -> GridPosition {
        let parts = text.split(separator: ",").compactMap { Int($0) }
        return GridPosition(row: parts[0], col: parts[1])
    }

    static func key(_ name: String) -> SolvingKeys.Key {
        let named: [String: SolvingKeys.Key] = [
            "Left": .left, "Right": .right, "Up": .up, "Down": .down, "Space": .space, "Tab": .tab, "Shift+Tab": .shiftTab,
            "Backspace": .backspace, "Delete": .delete, "Home": .home, "End": .end, "Rebus": .rebus, "Enter": .enter,
            "Escape": .escape, "Pencil": .pencil,
        ]
        if let key = named[name] { return key }
        let words = name.split(separator: " ")
        if words.count == 3, words[0] == "Jump", let number = Int(words[1]), let direction = Direction(rawValue: String(words[2])) {
            return .jump(number: number, direction: direction)
        }
        if words.count == 2, words[0] == "Tap" { return .tap(square(String(words[1]))) }
        precondition(name.count == 1, "unknown key \(name) in the table")
        return .letter(name)
    }

    @Test func theTableHasAtLeastFortyCases() {
        #expect(Self.cases.count >= 40)
        #expect(Set(Self.cases.map(\.name)).count == Self.cases.count)
    }

    @Test(arguments: cases)
    func keysMoveTheCursorAndEditAsTheTableSays(_ testCase: Case) throws {
        let puzzle = try BundledPuzzles.puzzle(testCase.puzzle)
        var letters: [GridPosition: String] = [:]
        switch testCase.filled {
        case let .squares(map)?: for (square, letter) in map { letters[Self.square(square)] = letter }
        case let .all(except)?:
            let skipped = Set(except.map(Self.square))
            for position in puzzle.letterPositions where !skipped.contains(position) {
                letters[position] = puzzle.cell(at: position).solution
            }
        case nil: break
        }
        var expected = letters
        for (square, letter) in testCase.expect.changes { expected[Self.square(square)] = letter.isEmpty ? nil : letter }
        var pencilled: Set<GridPosition> = []
        var cursor = SolvingKeys.Cursor(position: GridPosition(row: testCase.start.row, col: testCase.start.col), direction: testCase.start.direction)
        let options = SolvingKeys.Options(
            skipFilledSquares: testCase.options?.skipFilledSquares ?? true, jumpAtWordEnd: testCase.options?.jumpAtWordEnd ?? true,
            spaceClears: testCase.options?.spaceClears ?? false, backspaceAcrossWords: testCase.options?.backspaceAcrossWords ?? false)
        for name in testCase.keys {
            // "Open": the cursor the game opens on, with the letters as they are.
            if name == "Open" {
                cursor = SolvingKeys.opening(puzzle: puzzle, letterAt: { letters[$0] ?? "" })
                continue
            }
            let (next, edit) = SolvingKeys.press(Self.key(name), cursor: cursor, puzzle: puzzle, letterAt: { letters[$0] ?? "" }, options: options)
            switch edit {
            case let .write(square, letter, pencil)?:
                letters[square] = letter
                if pencil { pencilled.insert(square) } else { pencilled.remove(square) }
            case let .erase(square)?:
                letters[square] = nil
                pencilled.remove(square)
            case nil: break
            }
            cursor = next
        }
        #expect(cursor.position == GridPosition(row: testCase.expect.row, col: testCase.expect.col))
        #expect(cursor.direction == testCase.expect.direction)
        #expect(letters == expected)
        #expect(pencilled == Set((testCase.expect.pencilled ?? []).map(Self.square)))
        if let pencil = testCase.expect.pencil { #expect(cursor.pencil == pencil) }
        #expect(cursor.rebus == testCase.expect.rebus)
    }
}
