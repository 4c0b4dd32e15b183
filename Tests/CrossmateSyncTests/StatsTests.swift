import CrossmateCore
import Foundation
import Testing

@testable import CrossmateSync

/// Stats and streaks from a fixture of finished games: days counted in the account's time zone
/// (a solve just after midnight in Tokyo is the day before in Los Angeles), streaks that survive
/// a today not yet solved, medians and bests by grid size, help, and games with each friend.
@Suite struct StatsTests {
    /// 2026-11-20 00:00 UTC.
    static let nov20: Int64 = 1_795_132_800_000
    static let hour: Int64 = 3_600_000

    func game(
        _ id: String, at millis: Int64, seconds: Int, size: Int = 15, solved: Bool = true, with players: [String] = ["me"], reveals: Int = 0,
        autocheck: Bool = false
    ) -> FinishedGame {
        FinishedGame(
            gameID: id, width: size, height: size, finishedAt: millis, solved: solved, seconds: seconds, players: players, reveals: reveals,
            autocheck: autocheck)
    }

    func days(in zone: String) -> (Int64) -> Int {
        let zone = TimeZone(identifier: zone)!
        return { Stats.day($0, utcOffsetSeconds: zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double($0) / 1000))) }
    }

    @Test func theDaysAreTheAccountsAndAStreakLastsUntilADayPassesWithoutOne() {
        // Solves at 15:30 UTC on the 20th, 21st and 22nd: 00:30 the next day in Tokyo, 07:30 the
        // same day in Los Angeles. And one at 07:30 UTC on the 23rd: 23:30 on the 22nd in LA.
        let games = [
            game("a", at: Self.nov20 + 15 * Self.hour + 30 * 60_000, seconds: 600),
            game("b", at: Self.nov20 + 39 * Self.hour + 30 * 60_000, seconds: 400),
            game("c", at: Self.nov20 + 63 * Self.hour + 30 * 60_000, seconds: 900, size: 5),
            game("d", at: Self.nov20 + 79 * Self.hour + 30 * 60_000, seconds: 300),
        ]
        let now = Self.nov20 + 90 * Self.hour  // 18:00 UTC on the 23rd
        let la = days(in: "America/Los_Angeles")
        let inLA = Stats.compute(games, me: "me", day: la, today: la(now))
        // LA: solves on the 20th, 21st, 22nd (two) — today the 23rd has none yet: a streak of 3.
        #expect(inLA.currentStreak == 3 && inLA.longestStreak == 3)
        #expect(inLA.recent.last?.solved == 0 && inLA.recent.dropLast().last?.solved == 2)
        #expect(Stats.date(ofDay: inLA.recent.last!.day) == "2026-11-23")
        let tokyo = days(in: "Asia/Tokyo")
        let inTokyo = Stats.compute(games, me: "me", day: tokyo, today: tokyo(now))
        // Tokyo: solves on the 21st, 22nd, 23rd and 23rd: today (the 24th there) none yet.
        #expect(inTokyo.currentStreak == 3 && inTokyo.recent.last.map { Stats.date(ofDay: $0.day) } == "2026-11-24")
        #expect(inTokyo.recent.dropLast().last?.solved == 2)
        // A day later with nothing more: the streak is over, the longest stays.
        let later = Stats.compute(games, me: "me", day: la, today: la(now + 48 * Self.hour))
        #expect(later.currentStreak == 0 && later.longestStreak == 3)
        #expect(Stats.date(ofDay: 0) == "1970-01-01" && Stats.date(ofDay: -1) == "1969-12-31" && Stats.date(ofDay: 20_507) == "2026-02-23")
        #expect(Stats.day(-1, utcOffsetSeconds: 0) == -1)
    }

    @Test func timesHelpAndFriends() {
        let day = { (millis: Int64) in Stats.day(millis, utcOffsetSeconds: 0) }
        let games = [
            game("a", at: Self.nov20, seconds: 600, with: ["me", "ben"]),
            game("b", at: Self.nov20 + 24 * Self.hour, seconds: 300, with: ["me", "ben", "cy"], reveals: 2),
            game("c", at: Self.nov20 + 48 * Self.hour, seconds: 900, with: ["me", "ben"], autocheck: true),
            game("d", at: Self.nov20 + 48 * Self.hour, seconds: 120, size: 5, with: ["me", "cy"]),
            game("e", at: Self.nov20 + 72 * Self.hour, seconds: 50, solved: false, with: ["me", "ben"]),
        ]
        let stats = Stats.compute(games, me: "me", day: day, today: day(Self.nov20 + 72 * Self.hour))
        #expect(stats.finished == 5 && stats.solved == 4 && stats.clean == 2 && stats.withReveals == 1 && stats.withAutocheck == 1)
        #expect(stats.bySize.map(\.size) == ["15×15", "5×5"])
        #expect(stats.bySize[0].medianSeconds == 600 && stats.bySize[0].bestSeconds == 300 && stats.bySize[1].bestSeconds == 120)
        #expect(stats.together.map(\.authorID) == ["ben", "cy"])
        #expect(stats.together[0].solved == 3 && stats.together[0].medianSeconds == 600 && stats.together[0].currentStreak == 3)
        #expect(stats.together[1].solved == 2 && stats.together[1].longestStreak == 2)
        // The resigned game on the 23rd does not keep the streak going on its own.
        #expect(stats.currentStreak == 3 && stats.longestStreak == 3)
    }

    @Test func aFinishedGameReadFromItsMoves() throws {
        let puzzle = try Puzzle(title: "T", width: 2, height: 1, cells: [.letter("A"), .letter("B")], across: [], down: [])
        var ann = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "d1", authorID: "ann")
        var moves = try ann.perform(.setLetter(GridPosition(row: 0, col: 0), "X", autocheck: true), wallMillis: 1_000)
        moves += try ann.perform(.reveal(.puzzle), wallMillis: 61_000)
        let pause = Pause(gameID: "g", authorID: "ann", replicaID: "d1", at: 2_000)
        let finished = FinishedGame(
            gameID: "g", puzzle: puzzle, moves: moves, pauses: [pause],
            completion: Completion(kind: .solved, at: HLCTimestamp(wallMillis: 61_000), by: "ann"),
            players: ["ben"])
        #expect(finished.autocheck && finished.reveals == 1 && finished.checks == 0 && finished.players == ["ann", "ben"])
        #expect(finished.seconds == SolvingTime.measure(moves: moves.map(\.stamp), pauses: [pause.stamp], end: 61_000, now: 61_000).seconds)
        #expect(!finished.clean && finished.width == 2)
    }
}
