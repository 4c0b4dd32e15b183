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
    /// Scores for every author of a move or a letter, most letters first, then by authorID:
    /// letters from the final grid (revealed squares count for nobody), help from the tally.
    public static func scores(finalGrid: GameGrid, tally: Tally) -> [PlayerScore] {
        var scores: [AuthorID: PlayerScore] = [:]
        for cell in finalGrid.cells where !cell.letter.isEmpty && !cell.mark.isLocked && !cell.cellAuthorID.isEmpty {
            scores[cell.cellAuthorID, default: PlayerScore(authorID: cell.cellAuthorID)].lettersAuthored += 1
        }
        for author in tally.authors where scores[author] == nil { scores[author] = PlayerScore(authorID: author) }
        for (author, help) in tally.help {
            var score = scores[author, default: PlayerScore(authorID: author)]
            score.checksUsed = help.checks
            score.revealsUsed = help.reveals
            score.squaresChecked = help.squaresChecked
            score.squaresRevealed = help.squaresRevealed
            scores[author] = score
        }
        return scores.values.sorted { ($1.lettersAuthored, $0.authorID) < ($0.lettersAuthored, $1.authorID) }
    }

    public static func scores<Moves: Sequence<Move>>(finalGrid: GameGrid, moves: Moves) -> [PlayerScore] {
        scores(finalGrid: finalGrid, tally: Tally(moves))
    }

    /// How `completion` ended the game: a solve whose last letter came from a reveal (the
    /// final grid's latest write stamped no later than the completion is a revealed square) is
    /// finished with help, not solved; a solve with any check or reveal before it, solved with
    /// help. (Autocheck is a check.)
    public static func finish(_ completion: Completion, finalGrid: GameGrid, tally: Tally) -> Finish {
        guard completion.kind == .solved else { return .resigned }
        var last: CellState?
        for cell in finalGrid.cells {
            guard let key = cell.key, key.timestamp <= completion.at, !cell.letter.isEmpty else { continue }
            if last.flatMap(\.key).map({ key.wins(over: $0) }) ?? true { last = cell }
        }
        if last?.mark.verdict == .revealed { return .finishedWithHelp }
        return tally.helped(notAfter: completion.at) ? .solvedWithHelp : .solved
    }

    /// "3 squares checked", "1 square revealed": help as the finish tells it; nil for none.
    public static func squares(_ count: Int, _ what: String) -> String? {
        count == 0 ? nil : "\(count) square\(count == 1 ? "" : "s") \(what)"
    }

    /// The finish told in one line, the same on every device: "Solved in 4:05!", "Solved with
    /// help (3 squares checked) in 12:40.", "Finished with help (2 squares revealed, 5 squares
    /// checked) in 7:02." or "Ended without a solve, after 3:10."
    public static func headline(_ finish: Finish, scores: [PlayerScore], seconds: Int) -> String {
        let time = SolvingTime.clock(seconds)
        let help = [
            squares(scores.reduce(0) { $0 + $1.squaresRevealed }, "revealed"), squares(scores.reduce(0) { $0 + $1.squaresChecked }, "checked"),
        ].compactMap { $0 }.joined(separator: ", ")
        return switch finish {
        case .solved: "Solved in \(time)!"
        case .solvedWithHelp: "Solved with help (\(help)) in \(time)."
        case .finishedWithHelp: "Finished with help (\(help)) in \(time)."
        case .resigned: "Ended without a solve, after \(time)."
        }
    }
}

/// A finished game's summary, the same on every device that holds the game (from the log or
/// from a snapshot and the moves after it): how it ended, who did what, the solving time and
/// the line that tells it.
public struct FinishSummary: Hashable, Sendable {
    public var finish: Finish
    public var scores: [PlayerScore]
    public var seconds: Int
    public var headline: String

    /// `seconds`: the shared clock's count to the completion (`SolvingTime`).
    public init(_ completion: Completion, finalGrid: GameGrid, tally: Tally, seconds: Int) {
        finish = Scoreboard.finish(completion, finalGrid: finalGrid, tally: tally)
        scores = Scoreboard.scores(finalGrid: finalGrid, tally: tally)
        self.seconds = seconds
        headline = Scoreboard.headline(finish, scores: scores, seconds: seconds)
    }
}
