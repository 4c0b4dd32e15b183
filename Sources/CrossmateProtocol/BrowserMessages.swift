import CrossmateCore
import CrossmateSync

// The browser's part of the socket. A browser holds no game rules: it sends commands, the
// server performs them through CrossmateSync's mutator for that browser's device, and the
// browser draws the merged squares the server sends back.

/// One square as a player sees it: the merged letter, its mark and who wrote it.
public struct SquareView: Codable, Hashable, Sendable {
    public var row: Int
    public var col: Int
    /// Empty when blank; every letter of a rebus.
    public var letter: String
    public var pencil: Bool
    /// `none`, `checkedWrong`, `checkedRight` or `revealed` on the wire.
    public var verdict: Verdict
    /// The account whose letter it is (empty when blank).
    public var authorID: String

    /// A square's verdict by name (the mark's `CellMark.Verdict`, which moves store as a number).
    public enum Verdict: String, Codable, Hashable, Sendable, CaseIterable {
        case none, checkedWrong, checkedRight, revealed

        public init(_ verdict: CellMark.Verdict) {
            switch verdict {
            case .none: self = .none
            case .checkedWrong: self = .checkedWrong
            case .checkedRight: self = .checkedRight
            case .revealed: self = .revealed
            }
        }
    }

    public init(row: Int, col: Int, letter: String, pencil: Bool, verdict: Verdict, authorID: String) {
        self.row = row
        self.col = col
        self.letter = letter
        self.pencil = pencil
        self.verdict = verdict
        self.authorID = authorID
    }

    public init(_ state: CellState, at position: GridPosition) {
        self.init(
            row: position.row, col: position.col, letter: state.letter, pencil: state.mark.isPencil,
            verdict: Verdict(state.mark.verdict), authorID: state.cellAuthorID)
    }

    /// Every letter square of `grid`, in reading order.
    public static func all(_ grid: GameGrid, of puzzle: Puzzle) -> [SquareView] {
        puzzle.letterPositions.map { SquareView(grid.state(at: $0), at: $0) }
    }

    /// The squares of `new` that differ from `old`.
    public static func changed(from old: GameGrid, to new: GameGrid, of puzzle: Puzzle) -> [SquareView] {
        puzzle.letterPositions.compactMap { position in
            let before = old.state(at: position)
            let after = new.state(at: position)
            guard before.letter != after.letter || before.mark != after.mark || before.cellAuthorID != after.cellAuthorID else {
                return nil
            }
            return SquareView(after, at: position)
        }
    }
}

/// The printed puzzle a browser draws: squares, numbers, decorations and clues, never answers.
public struct PuzzleLayout: Codable, Hashable, Sendable {
    public struct Square: Codable, Hashable, Sendable {
        /// `letter`, `block` or `void`.
        public var kind: String
        public var number: Int?
        public var circled: Bool?
        public var shaded: Bool?
        /// Bars after the square: bit 0 top, 1 left, 2 bottom, 3 right.
        public var bars: Int?
    }

    public struct ClueView: Codable, Hashable, Sendable {
        public var number: Int
        public var text: String
        /// The word's squares in order, each `[row, col]`.
        public var cells: [[Int]]
    }

    public var title: String
    public var author: String
    public var copyright: String
    public var notes: String
    public var width: Int
    public var height: Int
    /// Reading order, `width × height`.
    public var squares: [Square]
    public var across: [ClueView]
    public var down: [ClueView]
    /// Whether answers can be checked and revealed.
    public var hasSolution: Bool

    public init(_ puzzle: Puzzle) {
        title = puzzle.title
        author = puzzle.author
        copyright = puzzle.copyright
        notes = puzzle.notes
        width = puzzle.width
        height = puzzle.height
        squares = puzzle.cells.map { cell in
            Square(
                kind: cell.kind.rawValue, number: cell.number, circled: cell.isCircled ? true : nil,
                shaded: cell.isShaded ? true : nil, bars: cell.bars.isEmpty ? nil : Int(cell.bars.rawValue))
        }
        func clues(_ list: [Clue]) -> [ClueView] {
            list.map { ClueView(number: $0.number, text: $0.text, cells: $0.cells.map { [$0.row, $0.col] }) }
        }
        across = clues(puzzle.across)
        down = clues(puzzle.down)
        hasSolution = puzzle.hasSolution
    }
}

/// A player of a game as the roster shows them.
public struct PlayerView: Codable, Hashable, Sendable {
    public var authorID: String
    public var displayName: String
    public var role: ParticipantRecord.Role
    /// Removed by the owner: their letters stay, they no longer write.
    public var removed: Bool
    /// Their colour as the viewing player sees it (`PlayerColors`), `#rrggbb`.
    public var color: String
    /// The same colour for letters in the dark theme (`PlayerColors.Color.darkHex`).
    public var darkColor: String?
    /// Their avatar symbol (`PlayerColors.avatarSymbol`).
    public var symbol: String
    /// How many of their devices have the game open right now.
    public var here: Int

    public init(
        authorID: String, displayName: String, role: ParticipantRecord.Role, removed: Bool, color: String, darkColor: String? = nil,
        symbol: String = "", here: Int = 0
    ) {
        self.darkColor = darkColor
        self.symbol = symbol
        self.here = here
        self.authorID = authorID
        self.displayName = displayName
        self.role = role
        self.removed = removed
        self.color = color
    }
}

/// The shared solving clock: `seconds` so far, and how many more count without a new move (a
/// gap over a minute between moves is not counted; zero once the game is finished).
public struct TimerView: Codable, Hashable, Sendable {
    public var seconds: Int
    public var countsFor: Int

    public init(seconds: Int, countsFor: Int) {
        self.seconds = seconds
        self.countsFor = countsFor
    }
}

/// What other players did since this account last saw the game: squares to highlight and a line.
public struct CatchUpView: Codable, Hashable, Sendable {
    /// Each `[row, col]`.
    public var squares: [[Int]]
    public var sentence: String

    public init(squares: [[Int]], sentence: String) {
        self.squares = squares
        self.sentence = sentence
    }
}

/// The game as it stands, as every message that redraws it carries it (opened, update, applied):
/// the squares to draw (all of them on opening, else those that changed), the completion and
/// its scoreboard, what undo and redo can do, and the clock. Its fields sit in the message's
/// own object on the wire; each message adds its own beside them.
public struct GameStateView: Codable, Hashable, Sendable {
    public var gameID: String
    public var squares: [SquareView]
    public var completion: CompletionRecord?
    /// With a completion: who did what.
    public var scoreboard: [PlayerScore]?
    /// With a completion: how it ended (`Scoreboard.finish`).
    public var finish: Finish?
    /// With a completion: the finish told in one line (`Scoreboard.headline`), as every device
    /// tells it.
    public var headline: String?
    public var canUndo: Bool
    public var canRedo: Bool
    public var timer: TimerView
    /// Chat messages to show: on opening the conversation (its latest
    /// `MessageView.maximumOpened`), else the messages new since the last message, each placed
    /// at its `index` in the conversation; nil when none.
    public var messages: [MessageView]?
    /// The reactions standing on messages: on opening every message's that has any, else those
    /// of messages whose reactions changed (an empty list: none stand any more).
    public var reactions: [MessageReactions]?
    /// The clues players flagged for the others (`Flags.shown`): on opening, and whenever they
    /// change (an empty list: none any more).
    public var flags: [FlagView]?

    public init(
        gameID: String, squares: [SquareView], completion: CompletionRecord?, scoreboard: [PlayerScore]?, finish: Finish? = nil,
        headline: String? = nil,
        canUndo: Bool, canRedo: Bool, timer: TimerView, messages: [MessageView]? = nil, reactions: [MessageReactions]? = nil, flags: [FlagView]? = nil
    ) {
        self.finish = finish
        self.headline = headline
        self.flags = flags
        self.messages = messages
        self.reactions = reactions
        self.gameID = gameID
        self.squares = squares
        self.completion = completion
        self.scoreboard = scoreboard
        self.canUndo = canUndo
        self.canRedo = canRedo
        self.timer = timer
    }
}

/// A chat message as a browser shows it. The server orders the conversation (`Chat.ordered`,
/// without blocked accounts' messages); `index` is where the message stands in it, so a browser
/// that inserts new messages at their index, in the order sent, shows the server's order.
public struct MessageView: Codable, Hashable, Sendable {
    public var key: String
    public var authorID: String
    public var text: String
    /// When it was written (Unix ms).
    public var at: Int64
    public var index: Int

    public static let maximumOpened = 200

    public init(_ message: ChatMessage, index: Int) {
        key = message.key
        authorID = message.authorID
        text = message.text
        at = message.timestamp.wallMillis
        self.index = index
    }
}

/// The reactions standing on one message (`Chat.tallies`): each emoji, in the order first given,
/// with the accounts that gave it.
public struct MessageReactions: Codable, Hashable, Sendable {
    public struct Tally: Codable, Hashable, Sendable {
        public var emoji: String
        public var authors: [String]
    }

    public var key: String
    public var tallies: [Tally]

    public init(key: String, tallies: [Chat.Tally]) {
        self.key = key
        self.tallies = tallies.map { Tally(emoji: $0.emoji, authors: $0.authors) }
    }
}

/// A clue a player flagged for the others: the clue, whose flag it is, and the word's squares
/// (each `[row, col]`).
public struct FlagView: Codable, Hashable, Sendable {
    public var number: Int
    public var direction: Direction
    public var authorID: String
    public var cells: [[Int]]

    public init(_ flag: ClueFlag, puzzle: Puzzle) {
        number = flag.number
        direction = flag.direction
        authorID = flag.authorID
        cells = (puzzle.clues(flag.direction).first { $0.number == flag.number }?.cells ?? []).map { [$0.row, $0.col] }
    }
}

/// A message that carries the game's state beside fields of its own, in one JSON object.
public protocol CarriesGameState {
    var state: GameStateView { get set }
}

extension CarriesGameState {
    public subscript<Value>(dynamicMember path: WritableKeyPath<GameStateView, Value>) -> Value {
        get { state[keyPath: path] }
        set { state[keyPath: path] = newValue }
    }
}

/// Everything a browser needs to draw a game it opens.
@dynamicMemberLookup
public struct GameOpened: Codable, Hashable, Sendable, CarriesGameState {
    public var state: GameStateView
    public var layout: PuzzleLayout
    public var players: [PlayerView]
    public var me: String
    public var deviceID: String
    public var readOnly: Bool
    /// Shown once per account: the device that opens the game first after others moved.
    public var catchUp: CatchUpView?
    /// Where the other devices in the game now last were (their stored cursors), so they show
    /// before they next move.
    public var cursors: [PeerCursorView]?
    /// The reactions the picker offers (`Chat.quickReactions`).
    public var quickReactions: [String]?

    public init(
        _ state: GameStateView, layout: PuzzleLayout, players: [PlayerView], me: String, deviceID: String, readOnly: Bool,
        catchUp: CatchUpView? = nil
    ) {
        self.state = state
        self.layout = layout
        self.players = players
        self.me = me
        self.deviceID = deviceID
        self.readOnly = readOnly
        self.catchUp = catchUp
    }

    enum CodingKeys: String, CodingKey { case layout, players, me, deviceID, readOnly, catchUp, cursors, quickReactions }

    public init(from decoder: any Decoder) throws {
        state = try GameStateView(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        layout = try container.decode(PuzzleLayout.self, forKey: .layout)
        players = try container.decode([PlayerView].self, forKey: .players)
        me = try container.decode(String.self, forKey: .me)
        deviceID = try container.decode(String.self, forKey: .deviceID)
        readOnly = try container.decode(Bool.self, forKey: .readOnly)
        catchUp = try container.decodeIfPresent(CatchUpView.self, forKey: .catchUp)
        cursors = try container.decodeIfPresent([PeerCursorView].self, forKey: .cursors)
        quickReactions = try container.decodeIfPresent([String].self, forKey: .quickReactions)
    }

    public func encode(to encoder: any Encoder) throws {
        try state.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(layout, forKey: .layout)
        try container.encode(players, forKey: .players)
        try container.encode(me, forKey: .me)
        try container.encode(deviceID, forKey: .deviceID)
        try container.encode(readOnly, forKey: .readOnly)
        try container.encodeIfPresent(catchUp, forKey: .catchUp)
        try container.encodeIfPresent(cursors, forKey: .cursors)
        try container.encodeIfPresent(quickReactions, forKey: .quickReactions)
    }
}

/// What changed in an open game since the browser last heard: squares other devices changed,
/// and the roster, read-only state, completion and clock as they now are.
@dynamicMemberLookup
public struct GameUpdate: Codable, Hashable, Sendable, CarriesGameState {
    public var state: GameStateView
    public var players: [PlayerView]
    public var readOnly: Bool

    public init(_ state: GameStateView, players: [PlayerView], readOnly: Bool) {
        self.state = state
        self.players = players
        self.readOnly = readOnly
    }

    enum CodingKeys: String, CodingKey { case players, readOnly }

    public init(from decoder: any Decoder) throws {
        state = try GameStateView(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        players = try container.decode([PlayerView].self, forKey: .players)
        readOnly = try container.decode(Bool.self, forKey: .readOnly)
    }

    public func encode(to encoder: any Encoder) throws {
        try state.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(players, forKey: .players)
        try container.encode(readOnly, forKey: .readOnly)
    }
}

/// A command as a browser sends it. `kind` is one of setLetter, delete, check, reveal, clear,
/// undo, redo, or pause (the player paused: the server stores a `Pause` for the shared clock,
/// and no move); `scope` (square, word, puzzle) goes with check, reveal and clear; `autocheck`
/// (the solver's setting) with setLetter. A kind, scope or direction the server does not know
/// still decodes, so that the command is refused by its id, in words, rather than the message
/// being unreadable.
public struct BrowserCommand: Codable, Hashable, Sendable {
    public enum Kind: Hashable, Sendable, ExpressibleByStringLiteral {
        case setLetter, delete, check, reveal, clear, undo, redo, pause, chat, react, flag
        /// A kind no command has (kept to be named in the refusal).
        case unknown(String)

        static let known: [Kind] = [.setLetter, .delete, .check, .reveal, .clear, .undo, .redo, .pause, .chat, .react, .flag]

        public init(name: String) {
            self = Self.known.first { $0.name == name } ?? .unknown(name)
        }

        public init(stringLiteral name: String) { self.init(name: name) }

        public var name: String {
            switch self {
            case .setLetter: "setLetter"
            case .delete: "delete"
            case .check: "check"
            case .reveal: "reveal"
            case .clear: "clear"
            case .undo: "undo"
            case .redo: "redo"
            case .pause: "pause"
            case .chat: "chat"
            case .react: "react"
            case .flag: "flag"
            case let .unknown(name): name
            }
        }
    }

    /// What a check, reveal or clear covers.
    public enum Extent: String, Hashable, Sendable {
        case square, word, puzzle
    }

    public var kind: Kind
    public var row: Int?
    public var col: Int?
    public var letter: String?
    public var pencil: Bool?
    public var autocheck: Bool?
    /// nil when none was sent or the one sent is not an extent.
    public var scope: Extent?
    /// nil when none was sent or the one sent is not a direction.
    public var direction: Direction?
    /// A chat message's text, and the id the browser gave it (`chat`).
    public var text: String?
    public var messageID: String?
    /// A reaction: the message's key, the emoji, and whether it is given or taken back (`react`).
    public var messageKey: String?
    public var emoji: String?
    public var on: Bool?

    public init(
        kind: Kind, row: Int? = nil, col: Int? = nil, letter: String? = nil, pencil: Bool? = nil, autocheck: Bool? = nil,
        scope: Extent? = nil, direction: Direction? = nil, text: String? = nil, messageID: String? = nil, messageKey: String? = nil,
        emoji: String? = nil, on: Bool? = nil
    ) {
        self.messageKey = messageKey
        self.emoji = emoji
        self.on = on
        self.text = text
        self.messageID = messageID
        self.kind = kind
        self.row = row
        self.col = col
        self.letter = letter
        self.pencil = pencil
        self.autocheck = autocheck
        self.scope = scope
        self.direction = direction
    }

    enum CodingKeys: String, CodingKey { case kind, row, col, letter, pencil, autocheck, scope, direction, text, messageID, messageKey, emoji, on }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = Kind(name: try container.decode(String.self, forKey: .kind))
        row = try container.decodeIfPresent(Int.self, forKey: .row)
        col = try container.decodeIfPresent(Int.self, forKey: .col)
        letter = try container.decodeIfPresent(String.self, forKey: .letter)
        pencil = try container.decodeIfPresent(Bool.self, forKey: .pencil)
        autocheck = try container.decodeIfPresent(Bool.self, forKey: .autocheck)
        scope = try container.decodeIfPresent(String.self, forKey: .scope).flatMap(Extent.init(rawValue:))
        direction = try container.decodeIfPresent(String.self, forKey: .direction).flatMap(Direction.init(rawValue:))
        text = try container.decodeIfPresent(String.self, forKey: .text)
        messageID = try container.decodeIfPresent(String.self, forKey: .messageID)
        messageKey = try container.decodeIfPresent(String.self, forKey: .messageKey)
        emoji = try container.decodeIfPresent(String.self, forKey: .emoji)
        on = try container.decodeIfPresent(Bool.self, forKey: .on)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind.name, forKey: .kind)
        try container.encodeIfPresent(row, forKey: .row)
        try container.encodeIfPresent(col, forKey: .col)
        try container.encodeIfPresent(letter, forKey: .letter)
        try container.encodeIfPresent(pencil, forKey: .pencil)
        try container.encodeIfPresent(autocheck, forKey: .autocheck)
        try container.encodeIfPresent(scope?.rawValue, forKey: .scope)
        try container.encodeIfPresent(direction?.rawValue, forKey: .direction)
        try container.encodeIfPresent(text, forKey: .text)
        try container.encodeIfPresent(messageID, forKey: .messageID)
        try container.encodeIfPresent(messageKey, forKey: .messageKey)
        try container.encodeIfPresent(emoji, forKey: .emoji)
        try container.encodeIfPresent(on, forKey: .on)
    }

    /// The mutator's command, or why this one does not describe one (a pause is no command).
    public func command() -> Result<Command, CommandRefusal.Reason> {
        func position() -> GridPosition? {
            guard let row, let col else { return nil }
            return GridPosition(row: row, col: col)
        }
        func scoped() -> Scope? {
            switch scope {
            case .square: return position().map(Scope.square)
            case .word:
                guard let position = position(), let direction else { return nil }
                return .word(position, direction)
            case .puzzle: return .puzzle
            case nil: return nil
            }
        }
        let malformed = CommandRefusal.Reason(
            code: .invalid,
            reason: Self.needs[kind].map { "that command is incomplete (\(kind.name) needs \($0))" }
                ?? "\"\(TextRule.quote(kind.name))\" is not a command (one of \(Self.known))")
        switch kind {
        case .setLetter:
            guard let position = position(), let letter else { return .failure(malformed) }
            return .success(.setLetter(position, letter, pencil: pencil ?? false, autocheck: autocheck ?? false))
        case .delete:
            guard let position = position() else { return .failure(malformed) }
            return .success(.delete(position))
        case .check, .reveal, .clear:
            guard let scope = scoped() else { return .failure(malformed) }
            return .success(kind == .check ? .check(scope) : kind == .reveal ? .reveal(scope) : .clear(scope))
        case .undo: return .success(.undo)
        case .redo: return .success(.redo)
        case .pause, .chat, .react, .flag, .unknown: return .failure(malformed)
        }
    }

    static let known = Kind.known.map(\.name).joined(separator: ", ")
    static let scoped = "a scope of square (with row and col), word (with row, col and direction) or puzzle"
    static let needs: [Kind: String] = [
        .setLetter: "row, col and letter", .delete: "row and col", .check: scoped, .reveal: scoped, .clear: scoped,
        .chat: "text and messageID", .react: "messageKey, emoji and on", .flag: "row, col, direction and on",
    ]
}

/// The answer to a command the server performed: the squares it changed (none when nothing
/// needed to change) and the game as it now is.
@dynamicMemberLookup
public struct CommandApplied: Codable, Hashable, Sendable, CarriesGameState {
    public var id: Int
    public var state: GameStateView

    public init(id: Int, _ state: GameStateView) {
        self.id = id
        self.state = state
    }

    enum CodingKeys: String, CodingKey { case id }

    public init(from decoder: any Decoder) throws {
        state = try GameStateView(from: decoder)
        id = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .id)
    }

    public func encode(to encoder: any Encoder) throws {
        try state.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
    }
}

/// A command the server did not perform, with a reason a person can read.
/// The stable word a refused command carries, for programs (a browser sends a command again
/// after rateLimited, serverError or notOpen, and drops it after any other).
public enum RefusalCode: String, Codable, Hashable, Sendable, CaseIterable {
    case gameComplete, squareRevealed, notALetterSquare, invalidLetter, noSolution, noWord, nothingToUndo, nothingToRedo
    case removed, notOpen, finished, invalid, rateLimited, serverError
    /// The API's own refusals, passed on as they are (`ErrorCode`).
    case unauthorized, forbidden, notFound, readOnly, limitExceeded, clockSkew, gone

    /// Whether a browser sends the command again later.
    public var isRetried: Bool { self == .rateLimited || self == .serverError || self == .notOpen }

    /// The API's error as a refusal code (`readOnly`, for a command, is `removed`).
    public init(_ error: ErrorCode) {
        self = error == .readOnly ? .removed : RefusalCode(rawValue: error.rawValue) ?? .invalid
    }
}

public struct CommandRefusal: Codable, Hashable, Sendable {
    public struct Reason: Hashable, Sendable, Error {
        public var code: RefusalCode
        public var reason: String

        public init(code: RefusalCode, reason: String) {
            self.code = code
            self.reason = reason.prefix(bytes: ErrorBody.maximumMessageBytes)
        }
    }

    public var id: Int
    public var gameID: String
    /// A stable word for programs (`RefusalCode`).
    public var code: RefusalCode
    public var reason: String

    public init(id: Int, gameID: String, _ reason: Reason) {
        self.id = id
        self.gameID = TextRule.quote(gameID, maximumBytes: ProtocolLimits.maximumIdentifierBytes)
        code = reason.code
        self.reason = reason.reason
    }
}

extension MutationRefusal {
    /// The refusal as a browser shows it: a stable code and a sentence for the player.
    public var browserReason: CommandRefusal.Reason {
        switch self {
        case let .gameComplete(completion):
            CommandRefusal.Reason(
                code: .gameComplete, reason: "the game is finished (\(completion.kind == .solved ? "solved" : "resigned")); the grid is final")
        case .notALetterSquare: CommandRefusal.Reason(code: .notALetterSquare, reason: "that square does not take letters")
        case let .invalidLetter(letter):
            CommandRefusal.Reason(
                code: .invalidLetter,
                reason:
                    "\"\(TextRule.quote(letter))\" cannot go in a square (up to \(SquareText.maximumLength) letters, digits or symbols such as / and &)"
            )
        case .squareRevealed: CommandRefusal.Reason(code: .squareRevealed, reason: "that square was revealed: its answer stays")
        case .noSolution:
            CommandRefusal.Reason(code: .noSolution, reason: "this puzzle came without its answers, so it cannot be checked or revealed")
        case .noWord: CommandRefusal.Reason(code: .noWord, reason: "that square has no word in this direction")
        case .nothingToUndo: CommandRefusal.Reason(code: .nothingToUndo, reason: "there is nothing of yours left to undo")
        case .nothingToRedo: CommandRefusal.Reason(code: .nothingToRedo, reason: "there is nothing to redo")
        }
    }
}

/// A browser's command: `typedAt` is when it was typed (Unix milliseconds), so commands queued
/// offline are stamped with their own time rather than the time they reached the server.
public struct CommandRequest: Codable, Hashable, Sendable {
    public var gameID: String
    public var id: Int
    public var command: BrowserCommand
    public var typedAt: Int64?

    public init(gameID: String, id: Int, command: BrowserCommand, typedAt: Int64? = nil) {
        self.gameID = gameID
        self.id = id
        self.command = command
        self.typedAt = typedAt
    }
}

/// A finished game's replay for a browser: once every device that wrote has sealed its moves,
/// each step is the square a move changed as it stood after that move (so drawing the steps in
/// order over an empty grid shows the game at any point), with the move's time; until then,
/// how many devices are still to sync their history.
///
/// A replay travels in pages: `steps` and `times` hold the steps from `from` on, at most
/// `pageSteps` of them, of `total` in the whole replay; the browser asks for the next page
/// until it has them all. So no replay frame grows with the length of the game.
public struct ReplayView: Codable, Hashable, Sendable {
    public var gameID: String
    public var ready: Bool
    public var waitingFor: Int
    public var steps: [SquareView]
    /// Each step's wall time, Unix milliseconds.
    public var times: [Int64]
    /// The index of this page's first step in the whole replay.
    public var from: Int
    /// How many steps the whole replay has.
    public var total: Int

    /// Steps in one page: about 110 KB of JSON.
    public static let pageSteps = 1_000

    public init(gameID: String, ready: Bool, waitingFor: Int, steps: [SquareView], times: [Int64], from: Int = 0, total: Int? = nil) {
        self.gameID = gameID
        self.ready = ready
        self.waitingFor = waitingFor
        self.steps = steps
        self.times = times
        self.from = from
        self.total = total ?? steps.count
    }

    /// The replay of `availability` for a `width × height` game, whole.
    public init(gameID: String, width: Int, height: Int, availability: ReplayAvailability) {
        switch availability {
        case let .ready(timeline):
            var grid = GameGrid(width: width, height: height)
            var steps: [SquareView] = []
            for move in timeline.steps where grid.contains(move.position) {
                grid.apply(move)
                steps.append(SquareView(grid.state(at: move.position), at: move.position))
            }
            self.init(
                gameID: gameID, ready: true, waitingFor: 0, steps: steps,
                times: timeline.steps.filter { grid.contains($0.position) }.map(\.timestamp.wallMillis))
        case let .waiting(missing):
            self.init(gameID: gameID, ready: false, waitingFor: missing.count, steps: [], times: [])
        case .unavailable:
            self.init(gameID: gameID, ready: false, waitingFor: 0, steps: [], times: [])
        }
    }

    /// The page of this (whole) replay that starts at step `from` (clamped to the replay).
    public func page(from: Int) -> ReplayView {
        let start = min(max(0, from), steps.count)
        let end = min(steps.count, start + Self.pageSteps)
        return ReplayView(
            gameID: gameID, ready: ready, waitingFor: waitingFor, steps: Array(steps[start..<end]), times: Array(times[start..<end]),
            from: start, total: steps.count)
    }
}

/// Another device's cursor as a browser draws it.
public struct PeerCursorView: Codable, Hashable, Sendable {
    public var deviceID: String
    public var authorID: String
    public var cursor: CursorPosition

    public init(deviceID: String, authorID: String, cursor: CursorPosition) {
        self.deviceID = deviceID
        self.authorID = authorID
        self.cursor = cursor
    }
}
