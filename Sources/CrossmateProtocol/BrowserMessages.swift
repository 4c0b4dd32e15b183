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
