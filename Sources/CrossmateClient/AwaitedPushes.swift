import CrossmateProtocol

/// The pushes sent over the socket and waiting for their answers, each under the id it went with:
/// answered by the server's `pushed` or `pushFailed`, or failed when the socket closes, the engine
/// stops or no answer came in time. Every push waiting is answered exactly once. One job, apart
/// from the engine's others.
struct AwaitedPushes {
    typealias Answer = Result<PushMovesResponse, ServerFailure>
    private var nextID = 1
    private var waiting: [Int: CheckedContinuation<Answer, Never>] = [:]

    /// How many pushes wait for an answer.
    var count: Int { waiting.count }

    /// Keeps `continuation` until the push it waits for is answered: the id the push goes with.
    mutating func wait(_ continuation: CheckedContinuation<Answer, Never>) -> Int {
        let id = nextID
        nextID += 1
        waiting[id] = continuation
        return id
    }

    /// The answer to push `id`; one to a push no longer waiting (answered already, or failed
    /// when it took too long) is dropped.
    mutating func answer(_ id: Int, with answer: Answer) {
        waiting.removeValue(forKey: id)?.resume(returning: answer)
    }

    /// Every push waiting fails: the socket it went on is gone.
    mutating func failAll(_ reason: String) {
        let all = waiting
        waiting = [:]
        for continuation in all.values { continuation.resume(returning: .failure(.unreachable(reason))) }
    }
}

/// The push loop's pause between tries: a sleep that a reconnect or new work cuts short.
struct WakeUp {
    private var sleeper: CheckedContinuation<Void, Never>?

    /// The loop is asleep on `continuation` (one sleeper at a time: an earlier one is woken).
    mutating func sleep(on continuation: CheckedContinuation<Void, Never>) {
        wake()
        sleeper = continuation
    }

    /// Wakes the sleeping loop, if it sleeps.
    mutating func wake() {
        sleeper?.resume()
        sleeper = nil
    }
}
