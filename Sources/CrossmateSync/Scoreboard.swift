/// Who did what in a game: letters each player authored in the final grid (revealed squares
/// count for nobody), and the checks and reveals each used (one per gesture).
public struct PlayerScore: Hashable, Sendable, Codable {
    public var authorID: AuthorID
    public var lettersAuthored: Int
    public var checksUsed: Int
    public var revealsUsed: Int

    public init(authorID: AuthorID, lettersAuthored: Int = 0, checksUsed: Int = 0, revealsUsed: Int = 0) {
        self.authorID = authorID
        self.lettersAuthored = lettersAuthored
        self.checksUsed = checksUsed
        self.revealsUsed = revealsUsed
    }
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
            guard gestures.insert(move.replicaID + "\u{0}" + move.batchID).inserted else { continue }
            var score = scores[move.authorID, default: PlayerScore(authorID: move.authorID)]
            if move.kind == .check { score.checksUsed += 1 } else { score.revealsUsed += 1 }
            scores[move.authorID] = score
        }
        for move in moves where scores[move.authorID] == nil {
            scores[move.authorID] = PlayerScore(authorID: move.authorID)
        }
        return scores.values.sorted { ($1.lettersAuthored, $0.authorID) < ($0.lettersAuthored, $1.authorID) }
    }
}
