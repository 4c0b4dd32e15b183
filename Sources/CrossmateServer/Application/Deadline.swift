import Synchronization

/// Runs `work`, waiting for it at most `deadline`: its result, or nil when it took longer (it
/// goes on, unwatched, and is cancelled). For a check that must answer in time whatever a
/// dependency does (`/healthz` while the database is away: a connection attempt can take a
/// minute).
func withinDeadline<T: Sendable>(_ deadline: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T? {
    let answer = OnceAnswer<T?>()
    return try await withCheckedThrowingContinuation { continuation in
        answer.set(continuation)
        let task = Task {
            do { answer.resume(.success(try await work())) } catch { answer.resume(.failure(error)) }
        }
        Task {
            try? await Task.sleep(for: deadline)
            answer.resume(.success(nil))
            task.cancel()
        }
    }
}

/// A continuation resumed once, by whichever of several tasks gets there first.
final class OnceAnswer<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)

    func set(_ waiting: CheckedContinuation<T, any Error>) {
        continuation.withLock { $0 = waiting }
    }

    func resume(_ result: Result<T, any Error>) {
        continuation.withLock { waiting in
            waiting?.resume(with: result)
            waiting = nil
        }
    }
}
