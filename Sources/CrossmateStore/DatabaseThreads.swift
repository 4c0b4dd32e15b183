import Foundation

/// Threads of their own that run blocking SQLite work: the write transactions from start to
/// COMMIT (one thread, `writer`), and reads (a few threads per lane). The statements block
/// (GRDB's synchronous calls, the COMMIT's fsync among them), so they must not run on the task
/// pool's threads, which every socket and request shares: two blocking reads there stopped
/// every other player on a 2-core machine. Running a whole transaction here also means no trip
/// through another executor's queue between one statement and the next.
public final class DatabaseThreads: TaskExecutor, @unchecked Sendable {
    // The queue and the stop flag are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var stopped = false
    /// A lane of one thread takes everything queued in one turn of the lock.
    private let batches: Bool

    public init(name: String, count: Int = 1) {
        precondition(count >= 1)
        batches = count == 1
        for index in 0..<count {
            let named = count == 1 ? name : "\(name)-\(index)"
            let thread = Thread { [self] in
                nameThisThread(named)
                run()
            }
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.unlock()
        // Signalled after unlocking: a thread woken while the lock is still held would only
        // block on it again (two context switches instead of one, measured per commit).
        condition.signal()
    }

    /// How many jobs wait for a thread (a lane's queue length).
    public var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }

    /// Lets the threads finish what is queued and end.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Takes one job at a time (another thread of the lane may take the next), or, for a lane of
    /// one thread, everything queued in one turn of the lock.
    private func run() {
        while true {
            condition.lock()
            while head == jobs.count && !stopped { condition.wait() }
            if head == jobs.count && stopped {
                condition.unlock()
                return
            }
            let batch: ArraySlice<UnownedJob>
            if batches {
                batch = jobs[head...]
                jobs = []
                head = 0
            } else {
                batch = jobs[head...head]
                head += 1
                if head == jobs.count || head >= 1_024 {
                    jobs.removeFirst(head)
                    head = 0
                }
            }
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}

extension Date {
    /// `duration` from now, as a condition's `wait(until:)` takes it.
    init(after duration: Duration) {
        let parts = duration.components
        self.init(timeIntervalSinceNow: Double(parts.seconds) + Double(parts.attoseconds) / 1e18)
    }
}

/// Names the calling thread as the system shows it (`top -H`, `/proc/PID/task/*/comm`, `perf`):
/// at most 15 bytes on Linux. (`Thread.name` names it only for Foundation.)
func nameThisThread(_ name: String) {
    #if os(Linux)
        try? Data(name.utf8.prefix(15)).write(to: URL(fileURLWithPath: "/proc/thread-self/comm"))
    #endif
}
