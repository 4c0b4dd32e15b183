import CrossmateCore

/// A player points the others at a clue ("look at 17 Across"): one record per author and clue
/// in the game's zone, the latest (HLC) deciding whether it stands. A flag shows while it
/// stands and its word still has an empty square, so filling the word clears every flag on it
/// on every device alike, with nothing more written.
public struct ClueFlag: Hashable, Sendable, Codable, DecidedByLatest {
    public var gameID: GameID
    /// Stamped by the server from the writing device's token.
    public var authorID: AuthorID
    public var number: Int
    public var direction: Direction
    /// Whether it stands (false: its author took it down).
    public var on: Bool
    public var timestamp: HLCTimestamp

    public init(gameID: GameID, authorID: AuthorID, number: Int, direction: Direction, on: Bool, timestamp: HLCTimestamp) {
        self.gameID = gameID
        self.authorID = authorID
        self.number = number
        self.direction = direction
        self.on = on
        self.timestamp = timestamp
    }

    /// Its key in the game's zone: one per author and clue.
    public var key: String { "\(authorID)|\(number)\(direction == .across ? "A" : "D")" }

    /// Whether this one decides over `other` (same key): the later timestamp, and at a tie the
    /// one that stands.
    public func wins(over other: ClueFlag) -> Bool {
        (timestamp, on ? 1 : 0) > (other.timestamp, other.on ? 1 : 0)
    }
}

public enum Flags {
    /// The flags that show: of each author and clue the deciding one, if it stands, the clue
    /// exists and its word has an empty square, and its author is not one the viewer blocked
    /// (as with their messages); oldest first.
    public static func shown(
        _ flags: some Sequence<ClueFlag>, puzzle: Puzzle, grid: GameGrid, hiding blocked: Set<AuthorID> = []
    ) -> [ClueFlag] {
        [String: ClueFlag](deciding: flags).values.filter { flag in
            guard flag.on, !blocked.contains(flag.authorID), let clue = puzzle.clues(flag.direction).first(where: { $0.number == flag.number }) else {
                return false
            }
            return clue.cells.contains { grid.letter(at: $0).isEmpty }
        }.sorted { ($0.timestamp, $0.key) < ($1.timestamp, $1.key) }
    }

    /// "17 Across".
    public static func name(_ number: Int, _ direction: Direction) -> String {
        "\(number) \(direction == .across ? "Across" : "Down")"
    }
}
