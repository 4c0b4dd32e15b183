/// Group commit: batches of moves submitted while another group is being written wait and then
/// go together into a single database transaction (`GroupAppend`), so a burst of pushes shares
/// one BEGIN, a few statements, one COMMIT and one fsync. Each batch's outcome is delivered only
/// after that COMMIT. A refusal (`StoreRefusal`) refuses only its own batch; any other error
/// aborts the whole group, and then no batch in it is acknowledged. Within a group, batches go in
/// order of their game, and in arrival order within a game: every group takes its games' row
/// locks in the same order, so groups on other connections (or other server instances) cannot
/// deadlock with it.
actor CommitQueue {
    private struct Job {
        var request: AppendRequest
        var continuation: CheckedContinuation<AppendOutcome, any Error>
    }

    private let database: any SQLDatabase
    private let onCommit: Store.GroupCommitObserver?
    private var pending: [Job] = []
    private var draining = false
    /// Moves submitted and not yet answered (waiting or in the group committing): bounded, so a
    /// database slower than the pushes arriving refuses more (`StoreRefusal.busy`, a client
    /// retries later) instead of holding them all in memory.
    private(set) var waitingMoves = 0
    private let maximumWaitingMoves: Int
    /// The least time from one group's start to the next one's (`Store.init`).
    private let interval: Duration
    private var lastStart = ContinuousClock.now - .seconds(1)
    /// Waits until the next group may start (a sleep; a test may hold it instead).
    private let waitUntil: Store.CommitWait

    init(
        database: any SQLDatabase, onCommit: Store.GroupCommitObserver?, maximumWaitingMoves: Int, interval: Duration = .zero,
        waitUntil: @escaping Store.CommitWait
    ) {
        self.database = database
        self.onCommit = onCommit
        self.maximumWaitingMoves = maximumWaitingMoves
        self.interval = interval
        self.waitUntil = waitUntil
    }

    func submit(_ request: AppendRequest) async throws -> AppendOutcome {
        guard waitingMoves + request.moves.count <= maximumWaitingMoves else { throw StoreRefusal.busy }
        waitingMoves += request.moves.count
        defer { waitingMoves -= request.moves.count }
        return try await withCheckedThrowingContinuation { continuation in
            pending.append(Job(request: request, continuation: continuation))
            if !draining {
                draining = true
                Task { await drain() }
            }
        }
    }

    private func drain() async {
        let forUpdate = database.forUpdate
        while !pending.isEmpty {
            let due = lastStart + interval
            if due > ContinuousClock.now { await waitUntil(due) }
            lastStart = ContinuousClock.now
            let group = GroupAppend.commitOrder(pending.map(\.request.gameID)).map { pending[$0] }
            pending = []
            let requests = group.map(\.request)
            let started = ContinuousClock.now
            do {
                let outcomes = try await database.transaction { connection in
                    try await GroupAppend.run(requests, on: connection, forUpdate: forUpdate)
                }
                onCommit?(requests.count, ContinuousClock.now - started)
                for (job, outcome) in zip(group, outcomes) { job.continuation.resume(with: outcome.mapError { $0 as any Error }) }
            } catch {
                for job in group { job.continuation.resume(throwing: error) }
            }
        }
        draining = false
    }
}
