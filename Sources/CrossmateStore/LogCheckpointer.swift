import Foundation
import GRDB
import GRDBSQLite
import Logging
import Synchronization

/// Copies SQLite's write-ahead log into the database beside the writer, on a thread and a
/// connection of its own, so that no commit pays for it (see `SQLiteDatabase`).
///
/// It looks every `tick` and checkpoints once `batchFrames` frames have been written since the
/// last checkpoint, or once any have been and `longestWait` has passed. Under load that is every
/// tick, in small copies that keep commits' syncs short (fewer, bigger copies lengthened the
/// tail at 2,000 devices); lightly loaded, a few commits a tick, it is a few times a second
/// instead of twenty, each copy syncing the log and the database once for many commits.
///
/// The writer connection's log hook counts the frames (`LogFrames`) and also does what SQLite's
/// own autocheckpoint would: the commit that takes the log past `logPages` checkpoints it, so
/// the log stays bounded even if this thread falls behind.
final class LogCheckpointer: @unchecked Sendable {
    static let tick = Duration.milliseconds(50)
    static let batchFrames = 256
    static let longestWait = Duration.seconds(1)

    let frames: LogFrames
    private let queue: DatabaseQueue
    private let logger: Logger
    // `stopped`, `ended` and `waiter` are guarded by `condition`.
    private let condition = NSCondition()
    private var stopped = false
    private var ended = false
    private var waiter: CheckedContinuation<Void, Never>?

    init(path: String, frames: LogFrames, logger: Logger) throws {
        queue = try DatabaseQueue(path: path)
        self.frames = frames
        self.logger = logger
        let thread = Thread { [self] in
            nameThisThread("sqlite-ckpt")
            run()
        }
        thread.start()
    }

    /// Ends the thread (no checkpoint starts after this) and closes its connection.
    func stop() async {
        await withCheckedContinuation { continuation in
            condition.lock()
            stopped = true
            condition.signal()
            if ended {
                condition.unlock()
                continuation.resume()
            } else {
                waiter = continuation
                condition.unlock()
            }
        }
    }

    private func run() {
        var checkpointed = frames.written
        var last = ContinuousClock.now
        while waitForTick() {
            let written = frames.written
            let now = ContinuousClock.now
            guard written - checkpointed >= Self.batchFrames || (written > checkpointed && now - last >= Self.longestWait) else { continue }
            do {
                let result = try queue.writeWithoutTransaction { db in try db.checkpoint(.passive) }
                last = now
                // A passive checkpoint copies only what no reader still needs: the rest waits for
                // the next look (after `longestWait`), however few frames come meanwhile. (Taking
                // a partial copy for a whole one left a lightly written log out of the database
                // file for good.)
                if result.checkpointedFrameCount >= result.walFrameCount { checkpointed = written }
            } catch {
                // The log then grows until a later checkpoint succeeds; nothing is lost.
                logger.warning("SQLite checkpoint failed", metadata: ["error": "\(error)"])
            }
        }
        try? queue.close()
        condition.lock()
        ended = true
        let waiter = waiter
        condition.unlock()
        waiter?.resume()
    }

    /// Waits one tick; false once stopped.
    private func waitForTick() -> Bool {
        let deadline = Date(after: Self.tick)
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            if !condition.wait(until: deadline) { break }
        }
        return !stopped
    }
}

/// The frames the writer connection has added to the write-ahead log, counted by SQLite's log
/// hook after each commit, which also checkpoints at `logPages` as SQLite's autocheckpoint does
/// (a connection has one hook, and setting it turns the autocheckpoint off).
final class LogFrames: Sendable {
    private let total = Atomic<Int>(0)
    /// The log's length after the last commit; touched only by the hook, on the writer's thread.
    private let length = Atomic<Int>(0)
    let logPages: Int

    init(logPages: Int) {
        self.logPages = logPages
    }

    /// Frames written since the database opened.
    var written: Int { total.load(ordering: .relaxed) }

    /// Installs the hook on the writer connection.
    func install(on db: Database) {
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, name, frames in
                let counter = Unmanaged<LogFrames>.fromOpaque(context!).takeUnretainedValue()
                counter.committed(Int(frames))
                if frames >= counter.logPages { sqlite3_wal_checkpoint(connection, name) }
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// A commit left the log `frames` long: it grew by the difference, or restarted at the start.
    private func committed(_ frames: Int) {
        let before = length.exchange(frames, ordering: .relaxed)
        total.add(frames >= before ? frames - before : frames, ordering: .relaxed)
    }
}
