/// Who did what in a game: letters each player authored in the final grid (revealed squares
/// count for nobody), the checks and reveals each used (one per gesture), and the squares those
/// checked and revealed (a "Reveal puzzle" is one gesture and may be a hundred squares).
public struct PlayerScore: Hashable, Sendable, Codable {
    public var authorID: AuthorID
    public var lettersAuthored: Int
    public var checksUsed: Int
    public var revealsUsed: Int
    public var squaresChecked: Int
    public var squaresRevealed: Int

    public init(
        authorID: AuthorID, lettersAuthored: Int = 0, checksUsed: Int = 0, revealsUsed: Int = 0, squaresChecked: Int = 0, squaresRevealed: Int = 0
    ) {
        self.authorID = authorID
        self.lettersAuthored = lettersAuthored
        self.checksUsed = checksUsed
        self.revealsUsed = revealsUsed
        self.squaresChecked = squaresChecked
        self.squaresRevealed = squaresRevealed
    }

    private enum CodingKeys: String, CodingKey {
        case authorID, lettersAuthored, checksUsed, revealsUsed, squaresChecked, squaresRevealed
    }

    /// Scores written before squares were counted read as none checked or revealed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            authorID: try container.decode(AuthorID.self, forKey: .authorID),
            lettersAuthored: try container.decode(Int.self, forKey: .lettersAuthored),
            checksUsed: try container.decode(Int.self, forKey: .checksUsed), revealsUsed: try container.decode(Int.self, forKey: .revealsUsed),
            squaresChecked: try container.decodeIfPresent(Int.self, forKey: .squaresChecked) ?? 0,
            squaresRevealed: try container.decodeIfPresent(Int.self, forKey: .squaresRevealed) ?? 0)
    }
}

/// How a game ended, as the finish is told and counted: solved without help, solved with help
/// (checks or reveals along the way), finished by a reveal (the grid was completed by revealing
/// it: not a solve, in the banner or the stats), or ended without a solve.
public enum Finish: String, Hashable, Sendable, Codable {
    case solved
    case solvedWithHelp
    case finishedWithHelp
    case resigned

    /// Counted as a solve (streaks, solve times).
    public var isSolve: Bool { self == .solved || self == .solvedWithHelp }
}

public enum Scoreboard {
    /// Scores for every author of a move or a letter, most letters first, then by authorID.
    public static func scores<Moves: Sequence<Move>>(finalGrid: GameGrid, moves: Moves) -> [PlayerScore] {
        var scores: [AuthorID: PlayerScore] = [:]
        for cell in finalGrid.cells where !cell.letter.isEmpty && !cell.mark.isLocked && !cell.cellAuthorID.isEmpty {
            scores[cell.cellAuthorID, default: PlayerScore(authorID: cell.cellAuthorID)].lettersAuthored += 1
        }
        var gestures: Set<String> = []
        for move in moves where move.kind == .check || move.kind == .reveal {
            var score = scores[move.authorID, default: PlayerScore(authorID: move.authorID)]
            if move.kind == .check { score.squaresChecked += 1 } else { score.squaresRevealed += 1 }
            if gestures.insert(move.replicaID + "\u{0}" + move.batchID).inserted {
                if move.kind == .check { score.checksUsed += 1 } else { score.revealsUsed += 1 }
            }
            scores[move.authorID] = score
        }
        for move in moves where scores[move.authorID] == nil {
            scores[move.authorID] = PlayerScore(authorID: move.authorID)
        }
        return scores.values.sorted { ($1.lettersAuthored, $0.authorID) < ($0.lettersAuthored, $1.authorID) }
    }

    /// How `completion` ended the game: a solve whose last letter came from a reveal is
    /// finished with help, not solved; a solve with any check or reveal before it, solved with
    /// help. (Autocheck is a check.)
    public static func finish<Moves: Sequence<Move>>(_ completion: Completion, moves: Moves) -> Finish {
        guard completion.kind == .solved else { return .resigned }
        var last: Move?
        var helped = false
        for move in moves where move.timestamp <= completion.at {
            if move.kind == .check || move.kind == .reveal { helped = true }
            guard move.kind == .input || move.kind == .reveal, !move.letter.isEmpty else { continue }
            if last.map({ move.writeKey.wins(over: $0.writeKey) }) ?? true { last = move }
        }
        if last?.kind == .reveal { return .finishedWithHelp }
        return helped ? .solvedWithHelp : .solved
    }
}
