import CrossmateCore
import Foundation
import Testing

@testable import CrossmateSync

/// The finish summary and the solving clock are the game's: a device that joined from a snapshot
/// (and holds only the moves after it) tells them exactly as one holding every move.
@Suite struct TallyTests {
    /// Two players solve with checks, reveals, long gaps and pauses, and finish; `moves` in the
    /// order the server stored them.
    struct Played {
        var moves: [Move]
        var pauses: [SolvingTime.Stamp]
        var completion: Completion
        var finalGrid: GameGrid
    }

    func play(seed: UInt64, finishByRevealing: Bool) throws -> Played {
        var random = SeededRandom(seed: seed)
        let puzzle = Puzzles.greenLight
        var replicas = [
            GameReplica(puzzle: puzzle, gameID: "g", replicaID: "ann-1", authorID: "ann"),
            GameReplica(puzzle: puzzle, gameID: "g", replicaID: "ben-1", authorID: "ben"),
        ]
        let squares = puzzle.letterPositions
        var moves: [Move] = []
        var pauses: [SolvingTime.Stamp] = []
        var now: Int64 = 1_700_000_000_000
        var completion: Completion?
        while completion == nil {
            // Mostly quick keystrokes; now and then a long think (longer than the clock's minute).
            now +=
                Bool.random(using: &random) && Int.random(in: 0..<20, using: &random) == 0 ? 150_000 : Int64.random(in: 200...4_000, using: &random)
            let who = Int.random(in: 0..<2, using: &random)
            let position = squares.randomElement(using: &random)!
            let solution = puzzle.cell(at: position).solution ?? "A"
            let roll = Int.random(in: 0..<100, using: &random)
            let command: Command =
                switch roll {
                case 0..<3: .check(.word(position, .across))
                case 3..<5: .reveal(.square(position))
                case 5..<6: .check(.puzzle)
                default: .setLetter(position, roll < 80 ? solution : "Q")
                }
            if roll == 99 { pauses.append(SolvingTime.Stamp(authorID: replicas[who].authorID, at: now + 1)) }
            var made = (try? replicas[who].perform(command, wallMillis: now)) ?? []
            if moves.count > 150 && finishByRevealing { made += (try? replicas[who].perform(.reveal(.puzzle), wallMillis: now + 1)) ?? [] }
            moves += made
            replicas[1 - who].receive(made)
            completion = replicas[who].completion ?? replicas[1 - who].completion
            if moves.count > 5_000 { break }
        }
        let ending = try #require(completion)
        var final = GameGrid(puzzle: puzzle)
        final.apply(moves, notAfter: ending.at)
        return Played(moves: moves, pauses: pauses, completion: ending, finalGrid: final)
    }

    func summary(_ tally: Tally, _ played: Played) -> FinishSummary {
        let seconds = SolvingTime.measure(moves: tally.stamps, pauses: played.pauses, end: played.completion.at.wallMillis, now: 0).seconds
        return FinishSummary(played.completion, finalGrid: played.finalGrid, tally: tally, seconds: seconds)
    }

    @Test(arguments: 0..<12)
    func aJoinerFromAnySnapshotTellsTheSameFinishAsTheWholeLog(seed: UInt64) throws {
        let played = try play(seed: seed, finishByRevealing: seed % 3 == 0)
        let whole = summary(Tally(played.moves), played)
        // The clock from the tally is the clock from every move.
        let fromMoves = SolvingTime.measure(
            moves: played.moves.map(\.stamp), pauses: played.pauses, end: played.completion.at.wallMillis, now: 0)
        #expect(whole.seconds == fromMoves.seconds)
        #expect(whole.scores.contains { $0.squaresChecked > 0 || $0.squaresRevealed > 0 })
        var random = SeededRandom(seed: seed ^ 0x5eed)
        for _ in 0..<8 {
            // A snapshot every so many moves (the server's), handed through JSON as it travels;
            // the joiner holds the moves after it, and some before (they are skipped).
            let cut = Int.random(in: 0...played.moves.count, using: &random)
            var snapshot = Snapshot(width: Puzzles.greenLight.width, height: Puzzles.greenLight.height)
            for start in stride(from: 0, to: cut, by: 37) { snapshot = snapshot.extended(with: played.moves[start..<min(cut, start + 37)]) }
            let travelled = try JSONDecoder().decode(Snapshot.self, from: JSONEncoder().encode(snapshot))
            #expect(travelled == snapshot)
            let held = played.moves[max(0, cut - Int.random(in: 0...20, using: &random))...]
            let joined = summary(travelled.tally(adding: held.shuffled(using: &random)), played)
            #expect(joined == whole, "seed \(seed), cut \(cut)")
        }
    }

    @Test func aGestureASnapshotSplitsCountsOnce() throws {
        var ann = GameReplica(puzzle: Puzzles.greenLight, gameID: "g", replicaID: "ann-1", authorID: "ann")
        let checked = try ann.perform(.reveal(.word(at(1, 0), .across)), wallMillis: 1_000)
        #expect(checked.count > 2)
        let snapshot = Snapshot(width: Puzzles.greenLight.width, height: Puzzles.greenLight.height).extended(with: checked.prefix(2))
        let tally = snapshot.tally(adding: checked)
        #expect(tally.help["ann"] == Tally.Help(reveals: 1, squaresRevealed: checked.count))
        #expect(tally == Tally(checked))
    }

    @Test func snapshotsStoredBeforeTalliesAreTalliedAgainFromTheirMoves() throws {
        var ann = GameReplica(puzzle: Puzzles.greenLight, gameID: "g", replicaID: "ann-1", authorID: "ann")
        var moves = try ann.perform(.setLetter(at(1, 0), "G"), wallMillis: 1_000)
        moves += try ann.perform(.check(.puzzle), wallMillis: 2_000)
        let snapshot = Snapshot.build(width: Puzzles.greenLight.width, height: Puzzles.greenLight.height, moves: moves)
        var json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(snapshot)) as? [String: Any])
        json["tally"] = nil
        let old = try JSONDecoder().decode(Snapshot.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.tally == nil && old.grid == snapshot.grid)
        // A device holding such a snapshot counts the moves it holds, all there is.
        #expect(old.tally(adding: moves) == Tally(moves))
        #expect(old.tallied(from: moves) == snapshot)
    }

    @Test func moveTimesTravelAsGapsAndMustAscend() throws {
        var tally = Tally()
        for (seq, time) in [5_000, 1_000, 3_000, 3_000, 9_000].enumerated() {
            tally.count(move("r", seq + 1, at: at(0, 0), "A", time: Int64(time), author: "ann"))
        }
        #expect(tally.moveTimes["ann"] == [1_000, 3_000, 5_000, 9_000])
        let json = String(decoding: try JSONEncoder().encode(tally), as: UTF8.self)
        #expect(json.contains("[1000,2000,2000,4000]"))
        #expect(try JSONDecoder().decode(Tally.self, from: Data(json.utf8)) == tally)
        let backwards = json.replacingOccurrences(of: "[1000,2000,2000,4000]", with: "[1000,-2000]")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Tally.self, from: Data(backwards.utf8)) }
    }

    @Test func theHeadlineIsOneLineForEveryFinish() {
        let scores = [PlayerScore(authorID: "ann", squaresChecked: 3, squaresRevealed: 1), PlayerScore(authorID: "ben", squaresChecked: 2)]
        #expect(Scoreboard.headline(.solved, scores: [], seconds: 245) == "Solved in 4:05!")
        #expect(
            Scoreboard.headline(.solvedWithHelp, scores: scores, seconds: 760) == "Solved with help (1 square revealed, 5 squares checked) in 12:40.")
        #expect(
            Scoreboard.headline(.finishedWithHelp, scores: scores, seconds: 3_729)
                == "Finished with help (1 square revealed, 5 squares checked) in 1:02:09.")
        #expect(Scoreboard.headline(.resigned, scores: [], seconds: 190) == "Ended without a solve, after 3:10.")
    }
}
