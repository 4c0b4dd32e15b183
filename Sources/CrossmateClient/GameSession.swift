import CrossmateCore
import CrossmateProtocol
import CrossmateSync

/// Everything a UI draws for one game, at one moment.
public struct GameView: Sendable {
    public var gameID: String
    public var title: String
    public var puzzle: Puzzle
    /// The merged grid: each square's letter, mark and author.
    public var grid: GameGrid
    public var completion: Completion?
    public var canUndo: Bool
    public var canRedo: Bool
    public var readOnly: Bool
    public var players: [ParticipantRecord]
    public var cursors: [PeerCursor]
    /// This device's account.
    public var me: String
    /// This device has pushed everything it made and written its Seal.
    public var sealed: Bool
    /// The other players with a device showing the game now.
    public var here: Set<String>
    /// The clues players flagged for the others, as they show (`Flags.shown`).
    public var flags: [ClueFlag] = []

    public init(
        gameID: String, title: String, puzzle: Puzzle, grid: GameGrid, completion: Completion?, canUndo: Bool, canRedo: Bool,
        readOnly: Bool, players: [ParticipantRecord], cursors: [PeerCursor], me: String, sealed: Bool, here: Set<String> = [],
        flags: [ClueFlag] = []
    ) {
        self.flags = flags
        self.gameID = gameID
        self.title = title
        self.puzzle = puzzle
        self.grid = grid
        self.completion = completion
        self.canUndo = canUndo
        self.canRedo = canRedo
        self.readOnly = readOnly
        self.players = players
        self.cursors = cursors
        self.me = me
        self.sealed = sealed
        self.here = here
    }

    /// Letter squares holding a letter, of all letter squares.
    public var progress: (filled: Int, total: Int) {
        let squares = puzzle.letterPositions
        return (squares.count { !grid.letter(at: $0).isEmpty }, squares.count)
    }

    /// A player's name as the game knows it ("Player" and a short id when unknown, never blank).
    public func name(of authorID: String) -> String {
        if let player = players.first(where: { $0.authorID == authorID }), !player.displayName.isEmpty {
            return player.displayName
        }
        return PlayerColors.placeholderName(authorID)
    }
}

/// The calls a game screen makes (what an iOS view model would hold): each command goes through
/// the engine, which stores its moves before they are shown and pushes them.
public struct GameSession: Sendable {
    public let engine: SyncEngine
    public let gameID: String

    /// Types a letter (several for a rebus), in pen or pencil.
    @discardableResult
    public func type(_ letter: String, at position: GridPosition, pencil: Bool = false) async throws(SessionRefusal) -> [Move] {
        try await engine.perform(.setLetter(position, letter, pencil: pencil), in: gameID)
    }

    @discardableResult
    public func delete(at position: GridPosition) async throws(SessionRefusal) -> [Move] {
        try await engine.perform(.delete(position), in: gameID)
    }

    @discardableResult
    public func check(_ scope: Scope) async throws(SessionRefusal) -> [Move] {
        try await engine.perform(.check(scope), in: gameID)
    }

    @discardableResult
    public func reveal(_ scope: Scope) async throws(SessionRefusal) -> [Move] {
        try await engine.perform(.reveal(scope), in: gameID)
    }

    @discardableResult
    public func clear(_ scope: Scope) async throws(SessionRefusal) -> [Move] {
        try await engine.perform(.clear(scope), in: gameID)
    }

    @discardableResult
    public func undo() async throws(SessionRefusal) -> [Move] {
        try await engine.perform(.undo, in: gameID)
    }

    @discardableResult
    public func redo() async throws(SessionRefusal) -> [Move] {
        try await engine.perform(.redo, in: gameID)
    }

    /// Moves this device's cursor (sent to the other players live, throttled).
    public func moveCursor(to position: GridPosition, direction: Direction) async {
        await engine.moveCursor(position, direction: direction, in: gameID)
    }

    public func view() async throws(SessionRefusal) -> GameView {
        try await engine.view(gameID)
    }

    /// The finish as every device tells it, once the game has ended (`FinishSummary`).
    public func summary() async throws(SessionRefusal) -> FinishSummary? {
        try await engine.summary(gameID)
    }

    public func replay() async throws(SessionRefusal) -> ReplayAvailability {
        try await engine.replay(gameID)
    }
}
