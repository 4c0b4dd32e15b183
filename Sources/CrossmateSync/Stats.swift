import CrossmateCore

/// A finished game as the stats read it: derived from the game's stored records whenever it
/// is asked for (there are no counters to drift).
public struct FinishedGame: Hashable, Sendable, Codable {
    public var gameID: GameID
    public var width: Int
    public var height: Int
    /// When it ended (Unix ms): the completion's time.
    public var finishedAt: Int64
    /// Solved, not ended without a solve.
    public var solved: Bool
    /// The shared clock's seconds (`SolvingTime`).
    public var seconds: Int
    /// The accounts that played it.
    public var players: [AuthorID]
    /// Checks and reveals made by anyone, and whether anyone typed with autocheck on.
    public var checks: Int
    public var reveals: Int
    public var autocheck: Bool

    public init(
        gameID: GameID, width: Int, height: Int, finishedAt: Int64, solved: Bool, seconds: Int, players: [AuthorID], checks: Int = 0,
        reveals: Int = 0, autocheck: Bool = false
    ) {
        self.gameID = gameID
        self.width = width
        self.height = height
        self.finishedAt = finishedAt
        self.solved = solved
        self.seconds = seconds
        self.players = players
        self.checks = checks
        self.reveals = reveals
        self.autocheck = autocheck
    }

    /// Solved without a check, a reveal or autocheck.
    public var clean: Bool { solved && checks == 0 && reveals == 0 && !autocheck }
}

/// An account's stats, from its finished games.
public struct AccountStats: Hashable, Sendable, Codable {
    /// Solve times of one grid size ("15×15").
    public struct BySize: Hashable, Sendable, Codable {
        public var size: String
        public var solved: Int
        public var medianSeconds: Int
        public var bestSeconds: Int
    }

    /// Puzzles solved on one of the account's days.
    public struct Day: Hashable, Sendable, Codable {
        /// The day's number (`Stats.compute`'s `day`), and how many were solved on it.
        public var day: Int
        public var solved: Int
    }

    /// The account's games with one other player.
    public struct Together: Hashable, Sendable, Codable {
        public var authorID: AuthorID
        public var solved: Int
        public var medianSeconds: Int
        public var currentStreak: Int
        public var longestStreak: Int
    }

    public var finished: Int
    public var solved: Int
    /// Solved with no help.
    public var clean: Int
    /// Solved games that used checks, reveals, autocheck.
    public var withChecks: Int
    public var withReveals: Int
    public var withAutocheck: Int
    public var bySize: [BySize]
    /// Days in a row with a solved puzzle, up to today (a streak lasts until a day passes
    /// without one: today not yet solved does not end yesterday's), and the longest ever.
    public var currentStreak: Int
    public var longestStreak: Int
    /// The same, counting only days with a clean solve (no check, reveal or autocheck).
    public var cleanCurrentStreak: Int
    public var cleanLongestStreak: Int
    /// The last `Stats.recentDays` days, oldest first (days with none included).
    public var recent: [Day]
    /// Each other player, most solved together first.
    public var together: [Together]
}

public enum Stats {
    /// How many days `AccountStats.recent` covers.
    public static let recentDays = 28

    /// The account's stats from its finished games. `day` numbers the account's calendar days
    /// in its own time zone (the next day is the next number), `today` is today's number.
    public static func compute(_ games: [FinishedGame], me: AuthorID, day: (Int64) -> Int, today: Int) -> AccountStats {
        let solved = games.filter(\.solved)
        let sizes = Dictionary(grouping: solved) { "\($0.width)×\($0.height)" }
        let bySize = sizes.map { size, games in
            let seconds = games.map(\.seconds).sorted()
            return AccountStats.BySize(size: size, solved: games.count, medianSeconds: median(seconds), bestSeconds: seconds.first ?? 0)
        }.sorted { ($0.solved, $1.size) > ($1.solved, $0.size) }
        let days = Dictionary(grouping: solved) { day($0.finishedAt) }.mapValues(\.count)
        let (current, longest) = streaks(Set(days.keys), today: today)
        let (cleanCurrent, cleanLongest) = streaks(Set(solved.filter(\.clean).map { day($0.finishedAt) }), today: today)
        let recent = (today - recentDays + 1...today).map { AccountStats.Day(day: $0, solved: days[$0] ?? 0) }
        var partners: [AuthorID: [FinishedGame]] = [:]
        for game in solved { for player in Set(game.players) where player != me { partners[player, default: []].append(game) } }
        let together = partners.map { partner, games in
            let (current, longest) = streaks(Set(games.map { day($0.finishedAt) }), today: today)
            return AccountStats.Together(
                authorID: partner, solved: games.count, medianSeconds: median(games.map(\.seconds).sorted()), currentStreak: current,
                longestStreak: longest)
        }.sorted { ($0.solved, $1.authorID) > ($1.solved, $0.authorID) }
        return AccountStats(
            finished: games.count, solved: solved.count, clean: solved.count(where: \.clean), withChecks: solved.count { $0.checks > 0 },
            withReveals: solved.count { $0.reveals > 0 }, withAutocheck: solved.count(where: \.autocheck), bySize: bySize, currentStreak: current,
            longestStreak: longest, cleanCurrentStreak: cleanCurrent, cleanLongestStreak: cleanLongest, recent: recent, together: together)
    }

    /// The run of consecutive days ending today (or yesterday, while today has none yet), and
    /// the longest run.
    static func streaks(_ days: Set<Int>, today: Int) -> (current: Int, longest: Int) {
        var longest = 0
        for start in days where !days.contains(start - 1) {
            var end = start
            while days.contains(end + 1) { end += 1 }
            longest = max(longest, end - start + 1)
        }
        var current = 0
        var cursor = days.contains(today) ? today : today - 1
        while days.contains(cursor) {
            current += 1
            cursor -= 1
        }
        return (current, longest)
    }

    /// The middle value of sorted `values` (the lower middle of an even count); 0 when empty.
    static func median(_ values: [Int]) -> Int {
        values.isEmpty ? 0 : values[(values.count - 1) / 2]
    }
}

extension FinishedGame {
    /// A finished game read from its records: the clock's seconds to the completion, the help
    /// its gestures used (a check in the same batch as typing is autocheck), and everyone who
    /// played (the roster's `players` and every author of a move).
    public init(gameID: GameID, puzzle: Puzzle, moves: [Move], pauses: [Pause], completion: Completion, players: [AuthorID]) {
        let end = completion.at.wallMillis
        // A grid completed by a reveal is finished with help, not solved (`Scoreboard.finish`).
        var finalGrid = GameGrid(puzzle: puzzle)
        finalGrid.apply(moves, notAfter: completion.at)
        let finish = Scoreboard.finish(completion, finalGrid: finalGrid, tally: Tally(moves))
        var batches: [String: Set<MoveKind>] = [:]
        for move in moves { batches[move.replicaID + "\u{0}" + move.batchID, default: []].insert(move.kind) }
        self.init(
            gameID: gameID, width: puzzle.width, height: puzzle.height, finishedAt: end, solved: finish.isSolve,
            seconds: SolvingTime.measure(moves: moves.map(\.stamp), pauses: pauses.map(\.stamp), end: end, now: end).seconds,
            players: Set(players + moves.map(\.authorID)).sorted(),
            checks: batches.values.count { $0.contains(.check) && !$0.contains(.input) }, reveals: batches.values.count { $0.contains(.reveal) },
            autocheck: batches.values.contains { $0.contains(.input) && $0.contains(.check) })
    }
}

extension Stats {
    /// The number of the calendar day `millis` falls on, `utcOffsetSeconds` from UTC there (the
    /// offset at that instant, so a change of summer time is counted on its day).
    public static func day(_ millis: Int64, utcOffsetSeconds: Int) -> Int {
        let local = millis + Int64(utcOffsetSeconds) * 1000
        return Int((local >= 0 ? local : local - 86_399_999) / 86_400_000)
    }
}

extension Stats {
    /// A day's number as its date, "2026-11-24" (proleptic Gregorian; day 0 is 1970-01-01).
    public static func date(ofDay day: Int) -> String {
        // Howard Hinnant's days-to-civil.
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPart = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * monthPart + 2) / 5 + 1
        let month = monthPart < 10 ? monthPart + 3 : monthPart - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(dayOfMonth))"
    }
}
