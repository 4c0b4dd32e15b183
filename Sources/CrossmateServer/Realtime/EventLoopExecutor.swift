import NIOCore

/// A socket's event loop as a task executor: a socket's messages are handled on the thread that
/// read them, and its answers and the pokes it causes are written there, without a trip through
/// the task pool's threads (each trip a wake-up and a context switch; on a lightly loaded
/// 2-core machine they were a third of the server's CPU per keystroke). What awaits another
/// executor (the database's threads) comes back to the loop.
final class EventLoopExecutor: TaskExecutor, @unchecked Sendable {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
