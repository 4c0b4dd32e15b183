import Foundation

/// A thread of its own that runs SQLite write transactions from start to COMMIT. The statements
/// block (GRDB's synchronous calls, the COMMIT's fsync among them), so they must not run on a
/// thread that also serves sockets; and running the whole transaction here means no trip
/// through another executor's queue between one statement and the next.
final class WriterThread: TaskExecutor, @unchecked Sendable {
    // The queue and the stop flag are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread finish what is queued and end.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty && stopped {
                condition.unlock()
                return
            }
            let batch = jobs
            jobs = []
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
