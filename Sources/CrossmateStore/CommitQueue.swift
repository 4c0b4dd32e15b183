/// Group commit: write transactions submitted while another is running wait and then run
/// together, one after another inside a single database transaction, so a burst of pushes
/// shares one BEGIN, one COMMIT and one fsync. Each job's outcome is delivered only after that
/// COMMIT. A job that refuses (`StoreRefusal`) must do so before writing anything; any other
/// error aborts the whole group, and then no job in it is acknowledged.
actor CommitQueue {
    private struct Job {
        var body: @Sendable (any SQLConnection) async throws -> any Sendable
        var continuation: CheckedContinuation<any Sendable, any Error>
    }

    private let database: any SQLDatabase
    private var pending: [Job] = []
    private var draining = false

    init(database: any SQLDatabase) {
        self.database = database
    }

    func submit<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let result = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
            pending.append(Job(body: { try await body($0) }, continuation: continuation))
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
            let group = pending
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
