import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

/// What a key asks the terminal client to do.
public enum PlayAction: Hashable, Sendable {
    case perform(Command)
    /// Send a chat message.
    case say(String)
    /// Flag the word at the cursor for the others, or take this player's flag on it down.
    case toggleFlag(GridPosition, Direction)
    /// Nudge the other players to come and help, naming the word at the cursor.
    case nudge(String)
    /// Make an invitation link to bring a friend into the game.
    case invite
    /// Pause this player's share of the shared clock until their next move.
    case pause
    /// Always show a player in a palette colour (an index of `PlayerColors.palette`), or, nil,
    /// let the colour be chosen again: a pin, on all this account's devices.
    case pinColour(authorID: String, colour: Int?)
    /// Start the next puzzle (one of `PlayState.nextPuzzles`, by its id) with everyone in this game.
    case nextPuzzle(String)
    /// Start the next puzzle from a file of the player's own (its path, as typed).
    case nextPuzzleFile(String)
    case quit
}

/// The terminal client's own state for one game: the cursor (driven by the solving-keys spec
/// every client follows), the check/reveal/clear menu, help, a clue jump, and a notice line.
public struct PlayState: Sendable {
    public enum Menu: Hashable, Sendable {
        case action
        case scope(Action)
        /// Clearing or revealing the whole puzzle waits for a y: clearing takes friends' letters
        /// too, and revealing ends the game for everyone.
        case confirmPuzzle(Action)
        /// ^K: whose colour to pin (a digit for each other player), then which colour.
        case pinWhom
        case pinColour(String)
        /// ^E at the finish: which puzzle to start next with everyone (a digit each).
        case nextPuzzle

        public enum Action: String, Hashable, Sendable { case check, reveal, clear }
    }

    public var cursor: SolvingKeys.Cursor
    public var menu: Menu?
    public var showingHelp = false
    /// The puzzle's notes (its instructions, a theme's hint), shown when the game opens and
    /// again with ^O; any key puts them away.
    public var showingNotes = false
    /// Squares other players changed since this account last looked (the catch-up), marked
    /// until this player acts.
    public var caught: Set<GridPosition> = []
    /// The clue number being typed after ctrl-g.
    public var jump: String?
    public var notice: String?
    public var options = SolvingKeys.Options()
    /// The player whose cursor this one follows (^F), until this player presses another key or
    /// the followed player leaves.
    public var following: String?
    /// The path of a puzzle file being typed after ^E and f (Enter starts it with everyone).
    public var puzzleFile: String?
    /// The chat message being written after ^T (Enter sends it, Esc puts it away).
    public var chat: String?
    /// This player paused (^S): the screen says so until any key, which does nothing else.
    public var paused = false
    /// Where the wheel scrolled each clue list (its first clue shown); any key puts the lists
    /// back around the current clue.
    public var listScroll: [Direction: Int] = [:]
    /// Messages from others that came since this player last opened the chat (^T): marked in
    /// the chat pane, and the newest said on the status line when no pane fits.
    public var chatUnread = 0
    /// How many lines the chat pane is scrolled back from its newest (the wheel over it, or
    /// PgUp/PgDn while writing); the screen keeps it within the conversation.
    public var chatBack = 0
    /// The puzzles ^E offers at the finish (id and title), in order; the caller knows them.
    public var nextPuzzles: [(id: String, title: String)] = []
    /// Lines a PgUp or PgDn scrolls the chat pane, and a notch of the wheel.
    static let chatPage = 5
    static let chatNotch = 2

    /// Starts on the first empty square of the first across word (or the first square).
    public init(puzzle: Puzzle, letterAt: (GridPosition) -> String) {
        cursor = SolvingKeys.opening(puzzle: puzzle, letterAt: letterAt)
    }

    /// Handles one key: moves the cursor, opens or answers menus, and returns what to perform.
    public mutating func handle(_ key: InputKey, view: GameView) -> [PlayAction] {
        if key == .control("q") || key == .control("c") { return [.quit] }
        if showingHelp {
            showingHelp = false
            return []
        }
        if showingNotes {
            // Any key puts the notes away, and does nothing else (a letter was typed too).
            showingNotes = false
            return []
        }
        if paused {
            paused = false
            return []
        }
        if let menu { return answer(menu, key: key, view: view) }
        if jump != nil { return typeJump(key, view: view) }
        if puzzleFile != nil { return typePuzzleFile(key) }
        if chat != nil { return typeChat(key) }
        notice = nil
        if key != .control("f") { following = nil }
        // Any key but the wheel puts the lists back around the current clue and the chat at its newest.
        if case .wheel = key {
        } else {
            listScroll = [:]
            chatBack = 0
        }
        switch key {
        case .pageUp, .pageDown:
            moveToWord(forward: key == .pageDown, puzzle: view.puzzle, letterAt: { view.grid.letter(at: $0) })
            return []
        case .click, .wheel:
            // Where a click lands is the screen's to say (`click(_:view:)`).
            return []
        case .control("f"):
            followNext(view: view)
            return []
        case .control("z"): return [.perform(.undo)]
        case .control("y"): return [.perform(.redo)]
        case .control("x"):
            menu = .action
            return []
        case .control("g"):
            jump = ""
            return []
        case .control("k"):
            let others = Self.pinnable(view)
            if others.isEmpty {
                notice = "No one else is in this game to pin a colour for."
            } else {
                menu = others.count == 1 ? .pinColour(others[0].authorID) : .pinWhom
            }
            return []
        case .control("e"):
            guard view.completion != nil else {
                notice = "The next puzzle together starts from a finished game (^E at the finish)."
                return []
            }
            guard !view.readOnly, !nextPuzzles.isEmpty else { return [] }
            menu = .nextPuzzle
            return []
        case .control("n"):
            guard !view.readOnly else { return [] }
            let clue = view.puzzle.clue(containing: cursor.position, cursor.direction)
            return [.nudge(clue.map { "come and help with \(Flags.name($0.number, $0.direction))" } ?? "come and help")]
        case .control("l"):
            guard !view.readOnly else { return [] }
            guard view.completion == nil else {
                notice = "A finished puzzle takes nobody new: ^E starts the next one with everyone."
                return []
            }
            return [.invite]
        case .control("s"):
            guard !view.readOnly, view.completion == nil else {
                notice =
                    view.readOnly
                    ? "You were removed from this game: its clock is not yours to pause." : "The game is finished; its clock has stopped."
                return []
            }
            return [.pause]
        case .control("o"):
            if view.puzzle.notes.isEmpty { notice = "This puzzle came without notes." } else { showingNotes = true }
            return []
        case .control("w"):
            guard !view.readOnly else { return [] }
            return [.toggleFlag(cursor.position, cursor.direction)]
        case .control("t"):
            guard !view.readOnly else {
                notice = "You were removed from this game: you can read its chat but not write in it."
                return []
            }
            chat = ""
            chatUnread = 0
            return []
        case .character("?") where cursor.rebus == nil:
            showingHelp = true
            return []
        default: break
        }
        guard let solvingKey = Self.solvingKey(key) else { return [] }
        let (next, edit) = SolvingKeys.press(
            solvingKey, cursor: cursor, puzzle: view.puzzle, letterAt: { view.grid.letter(at: $0) }, options: options)
        if let edit {
            switch view.grid.typing(edit) {
            case .write: break
            case .stepOver:
                cursor = next
                return []
            case .refused:
                // The engine says why; the cursor stays on the square that refused.
                cursor.rebus = next.rebus
                return [.perform(Self.command(edit))]
            }
        }
        cursor = next
        return edit.map { [.perform(Self.command($0))] } ?? []
    }

    /// PgDn and PgUp: the next or previous word in the clue lists (Across, then Down, round
    /// again), filled or not; its first empty square, else its first.
    mutating func moveToWord(forward: Bool, puzzle: Puzzle, letterAt: (GridPosition) -> String) {
        let words = puzzle.clues(.across) + puzzle.clues(.down)
        guard !words.isEmpty else { return }
        let current = puzzle.clue(containing: cursor.position, cursor.direction)
        let index = current.flatMap { clue in words.firstIndex(of: clue) } ?? (forward ? words.count - 1 : 0)
        let next = words[(index + (forward ? 1 : words.count - 1)) % words.count]
        go(to: next, puzzle: puzzle, letterAt: letterAt)
    }

    /// The cursor on a word as a jump to its clue puts it (`SolvingKeys`: its first empty
    /// square, else its first), with no rebus open.
    mutating func go(to clue: Clue, puzzle: Puzzle, letterAt: (GridPosition) -> String) {
        cursor = SolvingKeys.press(.jump(number: clue.number, direction: clue.direction), cursor: cursor, puzzle: puzzle, letterAt: letterAt).cursor
        cursor.rebus = nil
    }

    /// A click on what the screen shows at that cell: a square moves the cursor there (the
    /// cursor's own square turns it), a clue goes to its word; the wheel over a clue list
    /// scrolls it.
    public mutating func click(_ target: FrameTarget?, wheelUp: Bool? = nil, view: GameView) {
        guard let target, menu == nil, jump == nil, !showingHelp else { return }
        // While a message is written, only the wheel over the chat does something (scrolls it).
        if chat != nil, target != .chat || wheelUp == nil { return }
        following = nil
        notice = nil
        switch target {
        case let .square(position):
            // The wheel over the grid: nothing to scroll.
            if wheelUp != nil { return }
            listScroll = [:]
            // The rule every client follows (SolvingKeys' tap, in the shared table).
            cursor = SolvingKeys.press(.tap(position), cursor: cursor, puzzle: view.puzzle, letterAt: { view.grid.letter(at: $0) }).cursor
        case let .clue(direction, number):
            if let wheelUp {
                scroll(direction, up: wheelUp, view: view)
                return
            }
            listScroll = [:]
            if let clue = view.puzzle.clues(direction).first(where: { $0.number == number }) {
                go(to: clue, puzzle: view.puzzle, letterAt: { view.grid.letter(at: $0) })
            }
        case let .clueList(direction):
            if let wheelUp { scroll(direction, up: wheelUp, view: view) }
        case .chat:
            if let wheelUp { chatBack = max(0, chatBack + (wheelUp ? Self.chatNotch : -Self.chatNotch)) }
        }
    }

    /// The wheel over a clue list: three clues a notch, from where the list now starts.
    mutating func scroll(_ direction: Direction, up: Bool, view: GameView) {
        let clues = view.puzzle.clues(direction)
        let current = view.puzzle.clue(containing: cursor.position, direction).flatMap { clues.firstIndex(of: $0) } ?? 0
        let start = listScroll[direction] ?? max(0, current - 3)
        listScroll[direction] = max(0, min(clues.count - 1, start + (up ? -3 : 3)))
    }

    /// ^F: follows the next other player whose cursor shows here (by name), and after the last
    /// stops following.
    mutating func followNext(view: GameView) {
        let others = Set(view.cursors.map(\.authorID)).subtracting([view.me]).sorted { (view.name(of: $0), $0) < (view.name(of: $1), $1) }
        guard !others.isEmpty else {
            following = nil
            notice = "No one else's cursor is here to follow."
            return
        }
        if let current = following, let index = others.firstIndex(of: current) {
            following = others.indices.contains(index + 1) ? others[index + 1] : nil
        } else {
            following = others[0]
        }
        guard let following else {
            notice = "Stopped following."
            return
        }
        notice = "Following \(view.name(of: following)): ^F for the next player, any other key stops."
        follow(view)
    }

    /// Moves the cursor to the followed player's; when their cursor is gone (they left), stops
    /// following and says so.
    public mutating func follow(_ view: GameView) {
        guard let following else { return }
        guard let peer = view.cursors.first(where: { $0.authorID == following }) else {
            notice = "\(view.name(of: following)) left; no longer following."
            self.following = nil
            return
        }
        cursor.position = peer.position
        cursor.direction = peer.direction
    }

    static func command(_ edit: SolvingKeys.Edit) -> Command {
        switch edit {
        case let .write(position, letter, pencil): .setLetter(position, letter, pencil: pencil)
        case let .erase(position): .delete(position)
        }
    }

    /// The solving key a terminal key stands for.
    static func solvingKey(_ key: InputKey) -> SolvingKeys.Key? {
        switch key {
        case let .character(character):
            if character == " " { return .space }
            if SquareText.accepts(character) { return .letter(String(character)) }
            return nil
        case .left: return .left
        case .right: return .right
        case .up: return .up
        case .down: return .down
        case .tab: return .tab
        case .shiftTab: return .shiftTab
        case .backspace: return .backspace
        case .delete: return .delete
        case .home: return .home
        case .end: return .end
        case .enter: return .enter
        case .escape: return .escape
        // ^R is the rebus key every keyboard has (a Mac laptop has no Insert).
        case .insert, .control("r"): return .rebus
        case .control("p"): return .pencil
        default: return nil
        }
    }

    /// The line a player is told when someone else flags a clue for them: the newest flag in
    /// `now` (by another player, standing) that was not up in `before`; nil when there is none.
    public static func flagNews(before: [ClueFlag], now: [ClueFlag], view: GameView) -> String? {
        func key(_ flag: ClueFlag) -> String { "\(flag.authorID) \(flag.number) \(flag.direction)" }
        let up = Set(before.filter(\.on).map(key))
        guard
            let news = now.filter({ $0.on && $0.authorID != view.me && !up.contains(key($0)) })
                .max(by: { $0.timestamp < $1.timestamp })
        else { return nil }
        let letter = news.direction == .across ? "a" : "d"
        return "\(view.name(of: news.authorID)) flagged \(Flags.name(news.number, news.direction)) for you: ^G \(news.number) \(letter) goes there."
    }

    /// The players ^K offers, by name: everyone else still in the game (at most nine, a digit each).
    public static func pinnable(_ view: GameView) -> [ParticipantRecord] {
        Array(
            view.players.filter { $0.authorID != view.me && !$0.revoked }.sorted { ($0.displayName, $0.authorID) < ($1.displayName, $1.authorID) }
                .prefix(9))
    }

}
