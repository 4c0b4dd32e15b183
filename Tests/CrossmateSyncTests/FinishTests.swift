import CrossmateCore
import Foundation
import Testing

@testable import CrossmateSync

/// Help counted honestly: squares, not clicks; a grid completed by a reveal is finished with
/// help, not solved, in the banner and the stats.
@Suite struct FinishTests {
    let puzzle = try! Puzzle(title: "T", width: 3, height: 1, cells: [.letter("A"), .letter("B"), .letter("C")], across: [], down: [])

    func completion(after moves: [Move], kind: Completion.Kind = .solved) -> Completion {
        let last = moves.map(\.timestamp).max() ?? HLCTimestamp(wallMillis: 0, counter: 0)
        return Completion(kind: kind, at: HLCTimestamp(wallMillis: last.wallMillis + 1, counter: 0), by: "ann")
    }

    @Test func typedToTheEndIsSolvedAndAnyHelpBeforeItSaysSo() throws {
        var ann = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "d1", authorID: "ann")
        var moves: [Move] = []
        for (col, letter) in ["A", "B", "C"].enumerated() {
            moves += try ann.perform(.setLetter(GridPosition(row: 0, col: col), letter), wallMillis: 1_000 + Int64(col))
        }
        #expect(Scoreboard.finish(completion(after: moves), finalGrid: ann.grid, tally: Tally(moves)) == .solved)

        var ben = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "d2", authorID: "ben")
        var helped = try ben.perform(.setLetter(GridPosition(row: 0, col: 0), "A"), wallMillis: 1_000)
        helped += try ben.perform(.check(.puzzle), wallMillis: 1_001)
        helped += try ben.perform(.setLetter(GridPosition(row: 0, col: 1), "B"), wallMillis: 1_002)
        helped += try ben.perform(.setLetter(GridPosition(row: 0, col: 2), "C"), wallMillis: 1_003)
        #expect(Scoreboard.finish(completion(after: helped), finalGrid: ben.grid, tally: Tally(helped)) == .solvedWithHelp)
        #expect(Scoreboard.finish(completion(after: helped, kind: .resigned), finalGrid: ben.grid, tally: Tally(helped)) == .resigned)
    }

    @Test func aGridCompletedByARevealIsFinishedWithHelpAndCountedInSquares() throws {
        var ann = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "d1", authorID: "ann")
        var moves = try ann.perform(.setLetter(GridPosition(row: 0, col: 0), "A"), wallMillis: 1_000)
        moves += try ann.perform(.reveal(.puzzle), wallMillis: 2_000)
        let ending = completion(after: moves)
        #expect(Scoreboard.finish(ending, finalGrid: ann.grid, tally: Tally(moves)) == .finishedWithHelp)
        let score = try #require(Scoreboard.scores(finalGrid: ann.grid, moves: moves).first { $0.authorID == "ann" })
        #expect(score.revealsUsed == 1 && score.squaresRevealed == 2 && score.lettersAuthored == 1)
        let finished = FinishedGame(gameID: "g", puzzle: puzzle, moves: moves, pauses: [], completion: ending, players: ["ann"])
        #expect(!finished.solved && !finished.clean)
        // Not a solve: no streak, no solve count.
        let stats = Stats.compute([finished], me: "ann", day: { Int($0 / 86_400_000) }, today: 0)
        #expect(stats.solved == 0 && stats.currentStreak == 0 && stats.finished == 1)
    }

    @Test func cleanSolvesHaveAStreakOfTheirOwn() {
        let day: Int64 = 86_400_000
        let games = [
            FinishedGame(gameID: "a", width: 5, height: 5, finishedAt: 10 * day, solved: true, seconds: 60, players: ["ann"]),
            FinishedGame(gameID: "b", width: 5, height: 5, finishedAt: 11 * day, solved: true, seconds: 60, players: ["ann"], checks: 1),
            FinishedGame(gameID: "c", width: 5, height: 5, finishedAt: 12 * day, solved: true, seconds: 60, players: ["ann"]),
        ]
        let stats = Stats.compute(games, me: "ann", day: { Int($0 / day) }, today: 12)
        #expect(stats.currentStreak == 3 && stats.cleanCurrentStreak == 1 && stats.cleanLongestStreak == 1 && stats.clean == 2)
    }

    @Test func scoresWrittenBeforeSquaresWereCountedStillRead() throws {
        let old = #"{"authorID":"ann","lettersAuthored":3,"checksUsed":1,"revealsUsed":0}"#
        let score = try JSONDecoder().decode(PlayerScore.self, from: Data(old.utf8))
        #expect(score.squaresChecked == 0 && score.checksUsed == 1)
    }
}
