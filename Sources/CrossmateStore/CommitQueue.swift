import Synchronization

/// Group commit: batches of moves submitted while another group is being written wait and then
/// go together into a single database transaction (`GroupAppend`), so a burst of pushes shares
/// one BEGIN, a few statements, one COMMIT and one fsync. Each batch's outcome is delivered only
/// after that COMMIT. A refusal (`StoreRefusal`) refuses only its own batch; any other error
/// aborts the whole group, and then no batch in it is acknowledged. Within a group, batches go in
/// order of their game, and in arrival order within a game: every group takes its games' row
/// locks in the same order, so groups on other connections (or other server instances) cannot
/// deadlock with it.
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
    }

    private let database: any SQLDatabase
    private let onCommit: Store.GroupCommitObserver?
    private let state = Mutex(State())
    private let maximumWaitingMoves: Int
    /// The least time from one group's start to the next one's (`Store.init`).
    private let interval: Duration
    /// Waits until the next group may start (a sleep; a test may hold it instead).
    private let waitUntil: Store.CommitWait
    /// Called in each group's transaction after its moves were relayed, just before COMMIT (a
    /// test of what a crash there leaves behind stops the process here).
    private let beforeCommit: (@Sendable () -> Void)?

    init(
        database: any SQLDatabase, onCommit: Store.GroupCommitObserver?, maximumWaitingMoves: Int, interval: Duration = .zero,
        waitUntil: @escaping Store.CommitWait, beforeCommit: (@Sendable () -> Void)? = nil
    ) {
        self.beforeCommit = beforeCommit
        self.database = database
        self.onCommit = onCommit
        self.maximumWaitingMoves = maximumWaitingMoves
        self.interval = interval
        self.waitUntil = waitUntil
    }

    var waitingMoves: Int { state.withLock { $0.waitingMoves } }

    func submit(_ request: AppendRequest) async throws -> AppendOutcome {
        let count = request.moves.count
        return try await withCheckedThrowingContinuation { continuation in
            enum Admitted { case refused, queued, drainNow }
            let admitted = state.withLock { state -> Admitted in
                guard state.waitingMoves + count <= maximumWaitingMoves else { return .refused }
                state.waitingMoves += count
                state.pending.append(Job(request: request, continuation: continuation))
                if state.draining { return .queued }
                state.draining = true
                return .drainNow
            }
            switch admitted {
            case .refused: continuation.resume(throwing: StoreRefusal.busy)
            case .queued: break
            // On the thread the transactions run on, when the database has one.
            case .drainNow: Task(executorPreference: database.commitExecutor) { await self.drain() }
            }
        }
    }

    /// Commits groups until nothing waits, then stops (the next submit starts it again).
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
            let group = state.withLock { state in
                state.lastStart = ContinuousClock.now
                let group = GroupAppend.commitOrder(state.pending.map(\.request.gameID)).map { state.pending[$0] }
                state.pending = []
                return group
            }
            let requests = group.map(\.request)
            let started = ContinuousClock.now
            let outcomes: Result<[Result<AppendOutcome, StoreRefusal>], any Error>
            do {
                let beforeCommit = beforeCommit
                outcomes = .success(
                    try await database.transaction { connection in
                        let outcomes = try await GroupAppend.run(requests, on: connection, forUpdate: forUpdate)
                        // Ordered and checked: relayed before the COMMIT (see `Store.appendMoves`).
                        for (request, outcome) in zip(requests, outcomes) {
                            if let ordered = request.ordered, case let .success(appended) = outcome, !appended.saved.isEmpty { ordered(appended) }
                        }
                        beforeCommit?()
                        return outcomes
                    })
                onCommit?(requests.count, ContinuousClock.now - started)
            } catch {
                outcomes = .failure(error)
            }
            let answered = requests.reduce(0) { $0 + $1.moves.count }
            state.withLock { $0.waitingMoves -= answered }
            switch outcomes {
            case let .success(each):
                for (job, outcome) in zip(group, each) { job.continuation.resume(with: outcome.mapError { $0 as any Error }) }
            case let .failure(error):
                for job in group { job.continuation.resume(throwing: error) }
            }
        }
    }
}
