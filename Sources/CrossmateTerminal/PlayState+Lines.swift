import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

/// The menus a key answers, and the lines typed at the bottom (a puzzle file, chat, a jump).
extension PlayState {
    mutating func answer(_ open: Menu, key: InputKey, view: GameView) -> [PlayAction] {
        guard case let .character(raw) = key else {
            menu = nil
            return []
        }
        let choice = Character(raw.lowercased())
        let digit = choice.wholeNumberValue
        switch open {
        case .pinWhom:
            menu = nil
            let others = Self.pinnable(view)
            if let digit, digit >= 1, digit <= others.count { menu = .pinColour(others[digit - 1].authorID) }
            return []
        case let .pinColour(authorID):
            menu = nil
            guard let digit, digit <= PlayerColors.palette.count else { return [] }
            return [.pinColour(authorID: authorID, colour: digit == 0 ? nil : digit - 1)]
        case .nextPuzzle:
            menu = nil
            if choice == "f" {
                puzzleFile = ""
                return []
            }
            guard let digit, digit >= 1, digit <= nextPuzzles.count else { return [] }
            return [.nextPuzzle(nextPuzzles[digit - 1].id)]
        case .action:
            switch choice {
            case "c": menu = .scope(.check)
            case "r": menu = .scope(.reveal)
            case "x": menu = .scope(.clear)
            default: menu = nil
            }
            return []
        case let .confirmPuzzle(action):
            menu = nil
            guard choice == "y" else {
                notice = action == .reveal ? "Nothing was revealed." : "Nothing was cleared."
                return []
            }
            return [.perform(action == .reveal ? .reveal(.puzzle) : .clear(.puzzle))]
        case let .scope(action):
            menu = nil
            let scope: Scope
            switch choice {
            case "s": scope = .square(cursor.position)
            case "w": scope = .word(cursor.position, cursor.direction)
            case "p":
                if action != .check {
                    menu = .confirmPuzzle(action)
                    return []
                }
                scope = .puzzle
            default: return []
            }
            switch action {
            case .check: return [.perform(.check(scope))]
            case .reveal: return [.perform(.reveal(scope))]
            case .clear: return [.perform(.clear(scope))]
            }
        }
    }

    /// What a check found, in words: "2 wrong in 17 Across", "All right in the puzzle".
    public static func checkSummary(_ scope: Scope, view: GameView) -> String {
        let puzzle = view.puzzle
        let squares: [GridPosition]
        let place: String
        switch scope {
        case let .square(position):
            squares = [position]
            place = "that square"
        case let .word(position, direction):
            let clue = puzzle.clue(containing: position, direction)
            squares = clue?.cells ?? [position]
            place = clue.map { "\($0.number) \($0.direction == .across ? "Across" : "Down")" } ?? "that word"
        case .puzzle:
            squares = puzzle.letterPositions
            place = "the puzzle"
        }
        let marks = squares.map { view.grid.state(at: $0) }
        let wrong = marks.count { $0.mark.verdict == .checkedWrong }
        let empty = marks.count { $0.letter.isEmpty }
        if wrong > 0 { return "\(wrong) wrong in \(place)" + (empty > 0 ? " (\(empty) still empty)" : "") }
        return empty == squares.count
            ? "Nothing to check in \(place) yet" : "All right in \(place)" + (empty > 0 ? " so far (\(empty) still empty)" : "")
    }

    /// A key while writing a chat message: text goes on the line (within the message's
    /// limit), Backspace takes back a character, Enter sends, Esc puts the line away.
    /// The longest path typed after ^E f.
    static let longestPath = 1_024

    /// One key on a line being typed (the chat's, a puzzle file's path).
    enum LineEdit: Equatable {
        /// The line as it now stands.
        case typing(String)
        /// The character would take the line past its limit.
        case full
        /// Enter: the line, trimmed.
        case submitted(String)
        /// Escape put the line away.
        case cancelled
        /// A key that is not the line's.
        case other
    }

    static func edit(_ line: String, _ key: InputKey, maximumBytes: Int) -> LineEdit {
        switch key {
        case let .character(character):
            let next = line + String(character)
            return next.utf8.count <= maximumBytes ? .typing(next) : .full
        case .backspace: return .typing(String(line.dropLast()))
        case .enter: return .submitted(line.trimmingCharacters(in: .whitespaces))
        case .escape: return .cancelled
        default: return .other
        }
    }

    mutating func typePuzzleFile(_ key: InputKey) -> [PlayAction] {
        switch Self.edit(puzzleFile ?? "", key, maximumBytes: Self.longestPath) {
        case let .typing(line): puzzleFile = line
        case let .submitted(path):
            puzzleFile = nil
            return path.isEmpty ? [] : [.nextPuzzleFile(path)]
        case .cancelled: puzzleFile = nil
        case .full, .other: break
        }
        return []
    }

    mutating func typeChat(_ key: InputKey) -> [PlayAction] {
        switch Self.edit(chat ?? "", key == .control("t") ? .escape : key, maximumBytes: Chat.maximumBytes) {
        case let .typing(line): chat = line
        case .full: notice = "A message is at most \(Chat.maximumBytes) bytes; Enter sends this one."
        case let .submitted(text):
            chat = nil
            chatBack = 0
            return text.isEmpty ? [] : [.say(text)]
        case .cancelled:
            chat = nil
            chatBack = 0
        case .other:
            if key == .pageUp || key == .pageDown { chatBack = max(0, chatBack + (key == .pageUp ? Self.chatPage : -Self.chatPage)) }
        }
        return []
    }

    mutating func typeJump(_ key: InputKey, view: GameView) -> [PlayAction] {
        var typed = jump ?? ""
        switch key {
        case let .character(character) where character.isNumber && typed.count < 4:
            typed.append(character)
            jump = typed
            return []
        case .backspace:
            if !typed.isEmpty { typed.removeLast() }
            jump = typed
            return []
        case .character("a"), .character("A"), .character("d"), .character("D"), .enter:
            jump = nil
            guard let number = Int(typed) else { return [] }
            // A direction named is that clue; a number alone is the clue in the cursor's
            // direction, else the other one.
            let named: Direction? =
                switch key {
                case .character("a"), .character("A"): .across
                case .character("d"), .character("D"): .down
                default: nil
                }
            let directions = named.map { [$0] } ?? [cursor.direction, cursor.direction.perpendicular]
            guard let direction = directions.first(where: { direction in view.puzzle.clues(direction).contains { $0.number == number } })
            else {
                notice = named.map { "there is no \(number) \($0.rawValue)" } ?? "there is no clue \(number)"
                return []
            }
            cursor =
                SolvingKeys.press(
                    .jump(number: number, direction: direction), cursor: cursor, puzzle: view.puzzle, letterAt: { view.grid.letter(at: $0) }
                ).cursor
            return []
        default:
            jump = nil
            return []
        }
    }
}
