import Foundation
import Synchronization

/// Group commit: batches of moves submitted while another group is being written wait and then
/// go together into a single database transaction (`GroupAppend`), up to `transactionBatches` of
/// them, so a burst of pushes shares one BEGIN, a few statements, one COMMIT and one fsync. Each
/// batch's outcome is delivered only after that COMMIT. A refusal (`StoreRefusal`) refuses only
/// its own batch; any other error aborts the whole group, and then no batch in it is
/// acknowledged. Within a group, batches go in order of their game, and in arrival order within a
/// game: every group takes its games' row locks in the same order, so groups on other
/// connections (or other server instances) cannot deadlock with it.
///
/// Not an actor: a push hands its batch over under a lock, without a hop to another executor,
/// and the one draining task takes whatever has gathered each time the last group is done.
final class CommitQueue: Sendable {
    private struct Job {
        var request: AppendRequest
        var continuation: CheckedContinuation<AppendOutcome, any Error>
    }

    private struct State {
        var pending: [Job] = []
        var draining = false
        /// Moves submitted and not yet answered (waiting or in the group committing): bounded, so
        /// a database slower than the pushes arriving refuses more (`StoreRefusal.busy`, a client
        /// retries later) instead of holding them all in memory.
        var waitingMoves = 0
        /// When the last group started (none yet: the first does not wait).
        var lastStart: ContinuousClock.Instant?
        /// The writer waits for more batches (see `window`, `park`).
        var parked = false
        /// Some pending batch is to be ordered as soon as it can be (`AppendRequest.urgent`).
        var pendingUrgent = false
        /// Batches the open transaction has taken.
        var openBatches = 0
        /// Whether more batches are on their way (an adaptive window's measure).
        var pace: CommitPace

        /// Whether the writer should go on now rather than wait for more: a batch is urgent, or
        /// enough have gathered.
        var enoughToGo: Bool { pendingUrgent || openBatches + pending.count >= CommitQueue.windowBatches }
    }

    private let database: any SQLDatabase
    private let onCommit: Store.GroupCommitObserver?
    private let state: Mutex<State>
    private let maximumWaitingMoves: Int
    /// The least time from one group's start to the next one's (`Store.init`).
    private let interval: Duration
    /// How long a transaction stays open after its first group at most, taking the groups that
    /// arrive meanwhile into its one COMMIT (`Store.init`).
    private let window: Duration
    /// Whether it stays open only while more batches are on their way (`CommitWindow.adaptive`,
    /// `CommitPace`), else for the whole window.
    private let adaptive: Bool
    /// The batches past which a transaction stops gathering (see `more`). Four closed the window
    /// within a millisecond or two under load (400 commits a second at 2,000 devices); sixteen
    /// saved another 7 % there but waited the whole window at 500 devices (peer_bench p99 17 ms,
    /// close to the 20 allowed). Eight, against four: 500 devices 118 → 96 µs of CPU a delivery,
    /// p99 10 → 13 ms; 2,000 devices about 7 % less CPU a keystroke, p99 alike (alternating runs).
    static let windowBatches = 8
    /// The batches one transaction takes at most, in arrival order; the rest go in the next.
    /// After a stall (an 80 ms fsync, seen at 2,000 devices) about 320 waited and went in one
    /// transaction: 19 ms of statements and a 7 ms COMMIT before the first was answered, then the
    /// writer idle while the event loop sent all their answers and pokes. In transactions of this
    /// many the first are answered while the next are written, and none grows with a backlog.
    static let transactionBatches = 64
    /// Signalled when a batch arrives for a parked transaction.
    private let wakeup = NSCondition()
    /// Waits until the next group may start (a sleep; a test may hold it instead).
    private let waitUntil: Store.CommitWait
    /// Called in each group's transaction after its moves were relayed, just before COMMIT (a
    /// test of what a crash there leaves behind stops the process here).
    private let beforeCommit: (@Sendable () -> Void)?

    init(
        database: any SQLDatabase, onCommit: Store.GroupCommitObserver?, maximumWaitingMoves: Int, interval: Duration = .zero,
        window: CommitWindow = .fixed(.zero), waitUntil: @escaping Store.CommitWait, beforeCommit: (@Sendable () -> Void)? = nil
    ) {
        self.beforeCommit = beforeCommit
        self.database = database
        self.onCommit = onCommit
        self.maximumWaitingMoves = maximumWaitingMoves
        self.interval = interval
        // Only a database with a thread of its own for commits (SQLite's writer) may hold it
        // while the window is open; elsewhere a transaction commits at once.
        self.window = database.commitExecutor == nil ? .zero : window.maximum
        if case .adaptive = window { adaptive = true } else { adaptive = false }
        state = Mutex(State(pace: CommitPace(window: window.maximum, windowBatches: Self.windowBatches)))
        self.waitUntil = waitUntil
    }

    var waitingMoves: Int { state.withLock { $0.waitingMoves } }

    func submit(_ request: AppendRequest) async throws -> AppendOutcome {
        let count = request.moves.count
        return try await withCheckedThrowingContinuation { continuation in
            enum Admitted {
                case refused
                case queued(wake: Bool)
                case drainNow
            }
            let admitted = state.withLock { state -> Admitted in
                guard state.waitingMoves + count <= maximumWaitingMoves else { return .refused }
                state.waitingMoves += count
                if adaptive { state.pace.arrived(at: .now) }
                state.pending.append(Job(request: request, continuation: continuation))
                state.pendingUrgent = state.pendingUrgent || request.urgent
                if state.draining { return .queued(wake: state.parked && state.enoughToGo) }
                state.draining = true
                return .drainNow
            }
            switch admitted {
            case .refused: continuation.resume(throwing: StoreRefusal.busy)
            // A writer waiting for more goes on now.
            case let .queued(wake):
                if wake {
                    // Taking the lock once makes sure a writer that saw no reason to go on is
                    // already waiting; signalled after unlocking, so that it does not wake only to
                    // block on the lock still held here.
                    wakeup.lock()
                    wakeup.unlock()
                    wakeup.signal()
                }
            // On the thread the transactions run on, when the database has one.
            case .drainNow: Task(executorPreference: database.commitExecutor) { await self.drain() }
            }
        }
    }

    /// Commits groups until nothing waits, then stops (the next submit starts it again).
    ///
    /// With a window, the batches of up to `window` share one transaction and its COMMIT: an
    /// urgent batch (one whose moves someone here hears before their commit) is checked, ordered
    /// and relayed as soon as it arrives, in a group of its own within the open transaction;
    /// the others wait for the window to close (or for `windowBatches` to gather) and go in one
    /// group. An adaptive window closes as soon as no more batches are on their way
    /// (`CommitPace`): at once for a lone push. Only the acknowledgements (and the pokes after
    /// the commit) wait for the fsync.
    private func drain() async {
        let forUpdate = database.forUpdate
        while true {
            guard
                let due = state.withLock({ state -> ContinuousClock.Instant? in
                    if state.pending.isEmpty {
                        state.draining = false
                        return nil
                    }
                    return state.lastStart.map { $0 + interval } ?? .now
                })
            else { return }
            if due > ContinuousClock.now { await waitUntil(due) }
            let closes = ContinuousClock.now + window
            // Batches nobody hears before their commit wait here for the others of the window.
            if window > .zero { park(until: closes) }
            // The batches this transaction took, whatever becomes of it, and when it stopped
            // taking them.
            let taken = Mutex<[Job]>([])
            let closed = Mutex(ContinuousClock.now)
            let started = ContinuousClock.now
            let outcomes: Result<[Result<AppendOutcome, StoreRefusal>], any Error>
            do {
                let beforeCommit = beforeCommit
                outcomes = .success(
                    try await database.transaction { connection in
                        var outcomes: [Result<AppendOutcome, StoreRefusal>] = []
                        var last = false
                        // The transaction's groups are checked one after another and written once.
                        var append = GroupAppend()
                        repeat {
                            let group = self.takePending()
                            taken.withLock { $0 += group }
                            let requests = group.map(\.request)
                            let each = try await append.take(requests, on: connection, forUpdate: forUpdate)
                            // Ordered and checked: relayed before the COMMIT (see `Store.appendMoves`).
                            for (request, outcome) in zip(requests, each) {
                                if let ordered = request.ordered, case let .success(appended) = outcome, !appended.saved.isEmpty { ordered(appended) }
                            }
                            outcomes += each
                        } while await self.more(before: closes, last: &last)
                        try await append.write(on: connection)
                        closed.withLock { $0 = .now }
                        beforeCommit?()
                        return outcomes
                    })
                let now = ContinuousClock.now
                onCommit?(taken.withLock(\.count), now - started)
                if adaptive {
                    let committing = now - closed.withLock { $0 }
                    state.withLock { $0.pace.committed(in: committing) }
                }
            } catch {
                outcomes = .failure(error)
            }
            let group = taken.withLock { $0 }
            let answered = group.reduce(0) { $0 + $1.request.moves.count }
            state.withLock {
                $0.waitingMoves -= answered
                $0.openBatches = 0
            }
            switch outcomes {
            case let .success(each):
                for (job, outcome) in zip(group, each) { job.continuation.resume(with: outcome.mapError { $0 as any Error }) }
            case let .failure(error):
                for job in group { job.continuation.resume(throwing: error) }
            }
        }
    }

    /// What waits, in commit order, up to the batches a transaction takes (the group starts now).
    private func takePending() -> [Job] {
        state.withLock { state in
            state.lastStart = ContinuousClock.now
            let room = max(0, Self.transactionBatches - state.openBatches)
            let taken = state.pending.prefix(room)
            let group = GroupAppend.commitOrder(taken.map(\.request.gameID)).map { taken[taken.startIndex + $0] }
            state.pending.removeFirst(taken.count)
            state.pendingUrgent = state.pending.contains { $0.request.urgent }
            state.openBatches += group.count
            return group
        }
    }

    /// Whether the open transaction takes another group before it commits. While the window is
    /// open it waits for an urgent batch (taken at once, after the interval since the last
    /// group) or for `windowBatches` to gather. When the window closes, when enough have
    /// gathered (under load the fsync is shared enough: more would only wait longer) or when the
    /// moves waiting reach half of what may wait (the commit then makes room), whatever waits
    /// goes in one last group (`last`).
    private func more(before closes: ContinuousClock.Instant, last: inout Bool) async -> Bool {
        guard window > .zero, !last else { return false }
        while true {
            enum Next {
                case take, close
                case pace(ContinuousClock.Instant)
                case sleep
            }
            let now = ContinuousClock.now
            let next = state.withLock { state -> Next in
                if now >= closes || state.waitingMoves * 2 >= maximumWaitingMoves
                    || state.openBatches + state.pending.count >= Self.windowBatches
                    || (adaptive && !state.pace.moreOnTheirWay(at: now))
                {
                    return .close
                }
                guard state.pendingUrgent else { return .sleep }
                let due = state.lastStart.map { $0 + interval } ?? now
                return due <= now ? .take : .pace(min(due, closes))
            }
            switch next {
            case .take: return true
            case .close:
                last = true
                return state.withLock { !$0.pending.isEmpty && $0.openBatches < Self.transactionBatches }
            case let .pace(until): await waitUntil(until)
            case .sleep: park(until: closes)
            }
        }
    }

    /// Blocks the writer's own thread (a window is only kept where the database has one) until
    /// it should go on (`State.enoughToGo`), `closes`, or, with an adaptive window, no more
    /// batches are on their way (the next one due did not come). Nothing else runs there
    /// meanwhile: other writes (a new game, a presence) wait at most the window, as they would
    /// behind the open transaction anyway.
    private func park(until closes: ContinuousClock.Instant) {
        wakeup.lock()
        defer { wakeup.unlock() }
        while true {
            let (waits, until) = state.withLock { state -> (Bool, ContinuousClock.Instant) in
                let now = ContinuousClock.now
                state.parked = !state.enoughToGo && now < closes && (!adaptive || state.pace.moreOnTheirWay(at: now))
                return (state.parked, adaptive ? state.pace.nextDue(closes: closes) : closes)
            }
            guard waits else { break }
            // Woken by a batch that made enough, or the time ran out: looked at again (a batch
            // that came meanwhile makes the next one due later).
            _ = wakeup.wait(until: Date(after: ContinuousClock.now.duration(to: until)))
        }
        state.withLock { $0.parked = false }
    }
}
