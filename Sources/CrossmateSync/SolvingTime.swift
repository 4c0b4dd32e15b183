/// The shared solving clock: it starts at a game's first move and runs while anyone is solving.
/// A move keeps its player solving for a minute (a longer gap counts as one minute: they were
/// away), or until that player pauses, whichever comes first; the clock counts every moment at
/// least one player is solving. So a player's pause stops the clock unless another is solving.
/// A game still open counts on for up to a minute past its last move.
public enum SolvingTime {
    /// The longest gap between moves that counts in full.
    public static let idleMillis: Int64 = 60_000

    /// A move or a pause: who, and when (wall-clock Unix milliseconds).
    public struct Stamp: Hashable, Sendable {
        public var authorID: String
        public var at: Int64

        public init(authorID: String, at: Int64) {
            self.authorID = authorID
            self.at = at
        }
    }

    /// Seconds solved so far, and how many more seconds count if nothing else happens (zero
    /// once the game has ended at `end`, or while nobody is solving). Stamps come in any order.
    public static func measure(moves: [Stamp], pauses: [Stamp], end: Int64?, now: Int64) -> (seconds: Int, countsFor: Int) {
        let counted = moves.filter { end == nil || $0.at <= end! }
        guard let last = counted.map(\.at).max() else { return (0, 0) }
        // The clock stops at the end, else now (or at the latest move, if a clock ran ahead).
        let limit = end ?? max(now, last)
        var pausesBy: [String: [Int64]] = [:]
        for pause in pauses where pause.at <= limit { pausesBy[pause.authorID, default: []].append(pause.at) }
        for author in pausesBy.keys { pausesBy[author]!.sort() }
        // Each move's stretch of solving: a minute, cut short by its player's next pause.
        let stretches = counted.map { move -> (from: Int64, to: Int64) in
            var to = move.at + idleMillis
            if let paused = pausesBy[move.authorID], let next = firstIndex(in: paused, atLeast: move.at), paused[next] < to {
                to = paused[next]
            }
            return (move.at, to)
        }.sorted { $0.from < $1.from }
        var total: Int64 = 0
        var open = stretches[0]
        for stretch in stretches.dropFirst() {
            if stretch.from <= open.to {
                open.to = max(open.to, stretch.to)
            } else {
                total += max(0, min(open.to, limit) - open.from)
                open = stretch
            }
        }
        total += max(0, min(open.to, limit) - open.from)
        guard end == nil, open.from <= now, now < open.to else { return (Int(total / 1000), 0) }
        return (Int(total / 1000), Int((open.to - now) / 1000))
    }

    /// Seconds solved from the moves' wall times alone (no pauses, one player's rule).
    public static func measure<Stamps: Sequence<Int64>>(moveTimes: Stamps, end: Int64?, now: Int64) -> (seconds: Int, countsFor: Int) {
        measure(moves: moveTimes.map { Stamp(authorID: "", at: $0) }, pauses: [], end: end, now: now)
    }

    /// "4:05", "12:40" or "1:02:09": a solving time as every device shows it.
    public static func clock(_ seconds: Int) -> String {
        let (hours, minutes, secs) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }

    /// The first index of a sorted array whose value is at least `value`, by bisection.
    private static func firstIndex(in sorted: [Int64], atLeast value: Int64) -> Int? {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count ? low : nil
    }
}

/// A player paused the game at `at` (wall-clock Unix ms, the server's): their solving stops
/// there until their next move (`SolvingTime`). Write-once, one per pause.
public struct Pause: Hashable, Sendable, Codable {
    public var gameID: GameID
    public var authorID: AuthorID
    public var replicaID: ReplicaID
    public var at: Int64

    public init(gameID: GameID, authorID: AuthorID, replicaID: ReplicaID, at: Int64) {
        self.gameID = gameID
        self.authorID = authorID
        self.replicaID = replicaID
        self.at = at
    }

    /// Its key in the game's zone: one record per device and instant.
    public var key: String { "\(replicaID):\(at)" }
    public var stamp: SolvingTime.Stamp { SolvingTime.Stamp(authorID: authorID, at: at) }
}

extension Move {
    /// When and by whom, as the solving clock counts it.
    public var stamp: SolvingTime.Stamp { SolvingTime.Stamp(authorID: authorID, at: timestamp.wallMillis) }
}
