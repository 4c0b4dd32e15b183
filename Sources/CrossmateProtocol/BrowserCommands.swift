import CrossmateCore
import CrossmateSync

// What a browser asks of its hosted replica (commands) and what it is answered: applied,
// refused, a replay page, peers' cursors.

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

    /// What a browser's command asks, typed: every field it needs there, none it does not. The
    /// wire form above keeps unknown kinds and missing fields readable so a refusal can name
    /// them; this is the one place they are checked.
    public enum Action: Hashable, Sendable {
        /// A command for the mutator (a letter, a deletion, a check, reveal or clear, undo, redo).
        case perform(Command)
        case pause
        case chat(text: String, messageID: String)
        case react(messageKey: String, emoji: String, on: Bool)
        case flag(GridPosition, Direction, on: Bool)
    }

    /// The command as an `Action`, or why it does not describe one.
    public func action() -> Result<Action, CommandRefusal.Reason> {
        let incomplete = CommandRefusal.Reason(code: .invalid, reason: "that command is incomplete (\(kind.name) needs \(Self.needs[kind] ?? ""))")
        switch kind {
        case .pause: return .success(.pause)
        case .chat:
            guard let text, let messageID else { return .failure(incomplete) }
            return .success(.chat(text: text, messageID: messageID))
        case .react:
            guard let messageKey, let emoji, let on else { return .failure(incomplete) }
            return .success(.react(messageKey: messageKey, emoji: emoji, on: on))
        case .flag:
            guard let row, let col, let direction, let on else { return .failure(incomplete) }
            return .success(.flag(GridPosition(row: row, col: col), direction, on: on))
        default: return command().map(Action.perform)
        }
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
