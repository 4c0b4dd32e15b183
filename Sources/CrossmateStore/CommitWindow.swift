/// How long a group commit's transaction stays open for the pushes that follow its first, to
/// share its COMMIT and fsync (only with a database that has a writer thread of its own, SQLite;
/// elsewhere a transaction commits at once). A push someone hears before its commit is ordered
/// and relayed as it arrives, whatever the window; only acknowledgements wait for the COMMIT.
public enum CommitWindow: Sendable, Equatable {
    /// Open this long, or until `Store.commitWindowBatches` gathered (zero: it commits at once).
    case fixed(Duration)
    /// Open only while more pushes are on their way (`CommitPace`), and never longer than
    /// `maximum`: a lone push on an idle server commits at once; under load a transaction waits
    /// for the next, and takes more.
    case adaptive(maximum: Duration)

    /// The longest a transaction stays open.
    public var maximum: Duration {
        switch self {
        case let .fixed(duration), let .adaptive(maximum: duration): duration
        }
    }
}

/// Whether more pushes are on their way to an open transaction (`CommitWindow.adaptive`). It
/// keeps the mean gap between batches arriving and the mean time a transaction takes from its
/// last batch to the end of its COMMIT. More are on their way while batches arrive often enough
/// for waiting to pay — faster than a commit takes, or half a window's worth
/// (`CommitQueue.windowBatches`) within the window — and the next is due: the last came less
/// than `patience` mean gaps ago, or the server is so busy that a whole `windowBatches` is due
/// within half the window (then it waits as a fixed window does). Pure: the instants come from
/// the caller.
struct CommitPace {
    typealias Instant = ContinuousClock.Instant

    /// The longest one gap counts for in the mean: after an idle minute the server is idle, and
    /// a few pushes in quick succession say so again (the mean moves an eighth of the way a gap).
    static let longestGap = Duration.milliseconds(100)
    /// The mean gaps past the last batch a transaction waits for the next. Gaps between pushes
    /// from many devices are random: waiting two closed a transaction early at one gap in seven,
    /// and a loaded server's took fewer pushes (peer_bench, 500 and 1,000 devices: 11–12 % more
    /// CPU a delivery than a fixed window); four closes early at one gap in fifty.
    static let patience = 4
    let window: Duration
    let windowBatches: Int
    private(set) var meanGap: Duration?
    private(set) var lastArrival: Instant?
    private(set) var meanCommit = Duration.milliseconds(1)

    init(window: Duration, windowBatches: Int) {
        self.window = window
        self.windowBatches = windowBatches
    }

    /// A batch arrived.
    mutating func arrived(at now: Instant) {
        if let last = lastArrival {
            let gap = min(now - last, Self.longestGap)
            meanGap = meanGap.map { $0 + (gap - $0) / 8 } ?? gap
        }
        lastArrival = now
    }

    /// A transaction committed, `duration` after it stopped taking batches.
    mutating func committed(in duration: Duration) {
        meanCommit += (duration - meanCommit) / 8
    }

    /// Whether an open transaction should wait for another batch at `now`.
    func moreOnTheirWay(at now: Instant) -> Bool {
        guard let gap = meanGap, let last = lastArrival else { return false }
        let often = gap < meanCommit || gap * (windowBatches / 2) <= window
        return often && (busy(gap) || now - last < gap * Self.patience)
    }

    /// Until when a transaction waits for the next batch: `patience` mean gaps after the last,
    /// and never past `closes` (on a busy server, `closes`).
    func nextDue(closes: Instant) -> Instant {
        guard let gap = meanGap, let last = lastArrival, !busy(gap) else { return closes }
        return min(closes, last + gap * Self.patience)
    }

    /// A whole `windowBatches` is due within half the window: the transaction waits for them as
    /// a fixed window does, whatever the last gap. At this rate the pushes reach the writer in
    /// bursts, as the event loop reads them between writing out the last commit's answers and
    /// pokes, and a pause of `patience` gaps (a millisecond at 4,000 pushes a second) is the loop
    /// busy, not the pushes stopping: closing on it synced the disk a sixth more often than a
    /// fixed window at 2,000 devices (400 commits a second of 9.7 pushes, against 350 of 11.4).
    private func busy(_ gap: Duration) -> Bool {
        gap * windowBatches <= window / 2
    }
}
