/// The shared solving clock: it starts at a game's first move and counts the time between
/// moves, except that a gap of more than a minute counts as one minute (the players were away).
/// A game still open counts on for up to a minute past its last move.
public enum SolvingTime {
    /// The longest gap between moves that counts in full.
    public static let idleMillis: Int64 = 60_000

    /// Seconds solved so far from the moves' wall times (any order), and how many more seconds
    /// count if no move comes (zero once the game has ended at `end`).
    public static func measure<Stamps: Sequence<Int64>>(moveTimes: Stamps, end: Int64?, now: Int64) -> (seconds: Int, countsFor: Int) {
        let stamps = moveTimes.filter { end == nil || $0 <= end! }.sorted()
        guard var previous = stamps.first else { return (0, 0) }
        var total: Int64 = 0
        for stamp in stamps.dropFirst() {
            total += min(stamp - previous, idleMillis)
            previous = stamp
        }
        guard end == nil else { return (Int(total / 1000), 0) }
        let since = max(0, now - previous)
        total += min(since, idleMillis)
        return (Int(total / 1000), Int(max(0, idleMillis - since) / 1000))
    }
}
