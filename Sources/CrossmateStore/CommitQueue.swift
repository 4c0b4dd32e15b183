/// Group commit: write transactions submitted while another is running wait and then run
/// together, one after another inside a single database transaction, so a burst of pushes
/// shares one BEGIN, one COMMIT and one fsync. Each job's outcome is delivered only after that
/// COMMIT. A job that refuses (`StoreRefusal`) must do so before writing anything; any other
/// error aborts the whole group, and then no job in it is acknowledged. Within a group, jobs
/// run in order of their game, and in arrival order within a game: every group takes its
/// games' row locks in the same order, so groups on other connections (or other server
/// instances) cannot deadlock with it.
actor CommitQueue {
    private struct Job {
        var game: String
        var body: @Sendable (any SQLConnection) async throws -> any Sendable
        var continuation: CheckedContinuation<any Sendable, any Error>
    }

    private let database: any SQLDatabase
    private var pending: [Job] = []
    private var draining = false

    init(database: any SQLDatabase) {
        self.database = database
    }

    func submit<T: Sendable>(game: String, _ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let result = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
            pending.append(Job(game: game, body: { try await body($0) }, continuation: continuation))
            if !draining {
                draining = true
                Task { await drain() }
            }
        }
        guard let typed = result as? T else { preconditionFailure("a commit job returned \(type(of: result)), not \(T.self)") }
        return typed
    }

    private func drain() async {
        while !pending.isEmpty {
            let group = pending.enumerated().sorted { ($0.element.game, $0.offset) < ($1.element.game, $1.offset) }.map(\.element)
            pending = []
            let bodies = group.map(\.body)
            do {
                let outcomes = try await database.transaction { connection -> [Result<any Sendable, StoreRefusal>] in
                    var outcomes: [Result<any Sendable, StoreRefusal>] = []
                    for body in bodies {
                        do {
                            outcomes.append(.success(try await body(connection)))
                        } catch let refusal as StoreRefusal {
                            outcomes.append(.failure(refusal))
                        }
                    }
                    return outcomes
                }
                for (job, outcome) in zip(group, outcomes) { job.continuation.resume(with: outcome.mapError { $0 as any Error }) }
            } catch {
                for job in group { job.continuation.resume(throwing: error) }
            }
        }
        draining = false
    }
}

/// Commit queues side by side, each with a connection of its own at a time; a game always goes
/// to the same one, so its writes stay in order. SQLite has a single writer and so one lane;
/// PostgreSQL commits several groups at once.
struct CommitLanes: Sendable {
    private let lanes: [CommitQueue]

    init(database: any SQLDatabase, count: Int) {
        lanes = (0..<max(1, count)).map { _ in CommitQueue(database: database) }
    }

    func submit<T: Sendable>(game: String, _ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        // A stable choice of lane (String's hash value changes from run to run; that is fine
        // within one process, which is all the lanes need).
        let lane = lanes.count == 1 ? lanes[0] : lanes[Int(UInt(bitPattern: game.hashValue) % UInt(lanes.count))]
        return try await lane.submit(game: game, body)
    }
}
