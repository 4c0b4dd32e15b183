import CrossmateProtocol
import Foundation
import GRDB
import GRDBSQLite
import Logging
import Synchronization

/// The embedded default: one SQLite file in WAL mode, with `synchronous = FULL` so that a
/// transaction is on disk before the server acknowledges it.
///
/// Every call into GRDB here blocks its thread, so none runs on the task pool: transactions run
/// on a writer thread of their own, reads on reader threads (two for quick reads, one for the
/// reads that grow with history, see `ReadLane`).
///
/// GRDB runs statements in synchronous closures, while the store's transactions are async
/// (PostgreSQL needs that). So a transaction here is BEGIN IMMEDIATE … COMMIT issued statement by
/// statement on the pool's single writer connection, and `WriteGate` lets one transaction at a
/// time hold that connection. The statements use GRDB's blocking calls: they take microseconds,
/// and the async calls cost a trip through the task pool's queue for every statement, which
/// under load made the one writer wait behind every other request in turn.
public final class SQLiteDatabase: SQLDatabase {
    private let pool: DatabasePool
    private let gate = WriteGate()
    private let writer = DatabaseThreads(name: "sqlite-writer")
    private let readers = DatabaseThreads(name: "sqlite-read", count: 2)
    private let historyReader = DatabaseThreads(name: "sqlite-history")
    public let path: String

    /// `logPages`: how long the write-ahead log may grow before a commit checkpoints it (see
    /// `defaultLogPages`).
    public init(path: String, logPages: Int = SQLiteDatabase.defaultLogPages, logger: Logger = Logger(label: "crossmate.sqlite")) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        // Transactions here span several accesses to the writer connection (see above); the
        // write gate keeps them from interleaving.
        configuration.allowsUnsafeTransactions = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            // Pages read from the file cost a system call each; a game's rows are spread over
            // the file, so the default 2 MB cache missed often under load.
            try db.execute(sql: "PRAGMA cache_size = -\(SQLiteDatabase.cacheKilobytes)")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            throw DamagedDatabase(path: path, problems: [error.message ?? "\(error)"])
        }
        // Set here, not in `prepareDatabase`: GRDB switches the writer to WAL after preparing it
        // and sets `synchronous = NORMAL` as it does (no sync at commit), so a write acknowledged
        // just before a power cut could be lost. The pool keeps this one writer connection open.
        //
        // A multi-row statement keeps a statement journal (to undo itself alone if it fails), and
        // past 64 KB SQLite moved it into a temporary file: at 1,000 devices about one group
        // commit in three created, wrote and deleted a file (4 % of the server's CPU in a
        // profile). The writer keeps its temporary files in memory; a group is bounded (the
        // commit queue's waiting moves), and so is what its statements journal.
        let frames = LogFrames(logPages: logPages)
        try Self.blockingWrite(pool) { db in
            try db.execute(sql: "PRAGMA synchronous = FULL; PRAGMA temp_store = MEMORY")
            // Most checkpointing happens beside the writer (see `checkpointer`).
            frames.install(on: db)
        }
        self.path = path
        // A damaged file (a log replayed onto a database it does not belong to, a disk that lost
        // writes) is refused before anything is served from it or written into it.
        let problems = try Self.blockingRead(pool) { db in try String.fetchAll(db, sql: "PRAGMA quick_check(5)") }
        guard problems == ["ok"] else {
            try? pool.close()
            throw DamagedDatabase(path: path, problems: problems)
        }
        checkpointer = try LogCheckpointer(path: path, frames: frames, logger: logger)
    }

    /// SQLite's own checkpoints run in the connection that commits, so an acknowledged write
    /// waits while the log is copied into the database and synced, and every write queues behind
    /// it. Here a second connection copies the log passively (it never blocks the writer) up to
    /// twenty times a second, as soon as a few hundred frames wait (`LogCheckpointer`), so the
    /// database keeps up with the log and the commit's checkpoint, when the log reaches
    /// `logPages`, finds little left to copy. (Without the commit's checkpoint the log never
    /// restarts under steady writes and grows without bound: measured at 1 GB in 30 s.) Four
    /// times a second whatever the load saved a few percent of the CPU with 100 devices typing (a
    /// checkpoint copies each page once however many commits rewrote it) but put 2,000 devices'
    /// p99 from 17–20 ms to 22–25 ms: each checkpoint's bigger burst of writes delayed commits'
    /// syncs. Paced by frames, a light load gets the first and a heavy one keeps twenty a second.
    /// Also keeps the writer connection's log hook's `LogFrames` alive.
    private let checkpointer: LogCheckpointer
    /// Page cache per connection.
    static let cacheKilobytes = 32 * 1024
    /// The commit that takes the log past this many pages (32 MB) checkpoints it and lets the
    /// log restart. SQLite's default of 1,000 pages filled in 150 ms under 2,000 moves a second,
    /// and the commits that checkpointed stalled every write behind them for 5-10 ms; a longer
    /// log with the side checkpoints keeping up cut the p99 at 1,000 devices from 12 ms to 5 ms.
    public static let defaultLogPages = 8_000

    public var forUpdate: String { "" }
    public var commitExecutor: (any TaskExecutor)? { writer }
    public var migrationLock: String? { nil }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        // An unstructured task: a cancelled request must not stop a transaction halfway and leave
        // the writer connection inside it. It runs on the writer thread.
        try await Task(executorPreference: writer) { [pool, gate] in
            await gate.enter()
            let connection = Writer(pool: pool)
            // BEGIN travels with the transaction's first query.
            try await connection.execute("BEGIN IMMEDIATE")
            do {
                let result = try await body(connection)
                try await connection.flush(then: "COMMIT")
                await gate.leave()
                return result
            } catch {
                connection.discard()
                try? SQLiteDatabase.blockingWrite(pool) { db in
                    if !db.isInsideTransaction { return }
                    try db.execute(sql: "ROLLBACK")
                }
                await gate.leave()
                throw error
            }
        }.value
    }

    public func read<T: Sendable>(_ lane: ReadLane, _ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let threads = lane == .history ? historyReader : readers
        return try await withTaskExecutorPreference(threads) { [pool] in try await body(Reader(pool: pool)) }
    }

    /// Copies the whole log into the database and closes every connection, so a clean stop
    /// leaves the database file alone, with no `-wal` or `-shm` beside it (SQLite removes them
    /// when its last connection closes after a complete checkpoint).
    public func close() async throws {
        await checkpointer.stop()
        try await Task(executorPreference: writer) { [pool, gate] in
            await gate.enter()
            let checkpoint = Result { try SQLiteDatabase.blockingWrite(pool) { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") } }
            await gate.leave()
            try checkpoint.get()
        }.value
        writer.stop()
        readers.stop()
        historyReader.stop()
        try pool.close()
        // The pool's last connection to close may be a reader, which may not remove the log: a
        // writing connection, alone now, checkpoints and removes it as it closes.
        try Self.removeLog(path)
    }

    /// Opens `path` alone, checkpoints its whole log and closes it: SQLite removes the log and
    /// its index as the last connection closes.
    private static func removeLog(_ path: String) throws {
        let last = try DatabaseQueue(path: path)
        try last.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try last.close()
    }

    /// GRDB's synchronous access (from a synchronous function, so the async overload is not chosen).
    fileprivate static func blockingWrite<T>(_ pool: DatabasePool, _ body: (Database) throws -> T) throws -> T {
        try pool.writeWithoutTransaction(body)
    }

    fileprivate static func blockingRead<T>(_ pool: DatabasePool, _ body: (Database) throws -> T) throws -> T {
        try pool.read(body)
    }

    /// Runs one statement through SQLite's own calls on GRDB's prepared (and cached) statement:
    /// binds `values`, steps it to the end and returns its rows. GRDB's rows and arguments cost
    /// more than the statement itself for the few-row statements a push makes (a tenth of the
    /// server's CPU with 100 devices typing).
    fileprivate static func run(_ db: Database, _ sql: String, _ values: [SQLValue]) throws -> [SQLRow] {
        let statement = try db.cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        defer { sqlite3_reset(handle) }
        guard values.count == Int(sqlite3_bind_parameter_count(handle)) else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "\(values.count) values for \(sqlite3_bind_parameter_count(handle)) placeholders", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            let index = CInt(offset + 1)
            let code: CInt =
                switch value {
                case let .integer(number): sqlite3_bind_int64(handle, index, number)
                case let .text(text): sqlite3_bind_text(handle, index, text, -1, transient)
                case .null: sqlite3_bind_null(handle, index)
                }
            guard code == SQLITE_OK else { throw error(db, code, sql) }
        }
        var rows: [SQLRow] = []
        var columns: SQLColumns?
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else { throw error(db, code, sql) }
            let count = sqlite3_column_count(handle)
            let names = columns ?? SQLColumns(statement.columnNames)
            columns = names
            rows.append(
                SQLRow(
                    (0..<count).map { column in
                        switch sqlite3_column_type(handle, column) {
                        case SQLITE_NULL: .null
                        case SQLITE_INTEGER: .integer(sqlite3_column_int64(handle, column))
                        case SQLITE_FLOAT: .integer(Int64(sqlite3_column_double(handle, column)))
                        default:
                            // Text and blobs alike, read as their bytes (UTF-8 text).
                            .text(
                                sqlite3_column_blob(handle, column).map {
                                    String(
                                        decoding: UnsafeRawBufferPointer(start: $0, count: Int(sqlite3_column_bytes(handle, column))),
                                        as: UTF8.self)
                                } ?? "")
                        }
                    }, columns: names))
        }
    }

    /// SQLite copies bound text (the Swift string's storage is not promised past the call).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func error(_ db: Database, _ code: CInt, _ sql: String) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
    }

    /// The writer connection inside a transaction. Statements whose results nobody reads are
    /// held back and sent with the next query (or the COMMIT), so a transaction costs a few trips
    /// to the writer's queue instead of one per statement. They still run inside the transaction,
    /// in order, before anything that follows them.
    private final class Writer: SQLConnection {
        let pool: DatabasePool
        private let pending = Mutex<[(String, [SQLValue])]>([])

        init(pool: DatabasePool) { self.pool = pool }

        func execute(_ sql: String, _ values: [SQLValue]) async throws {
            pending.withLock { $0.append((sql, values)) }
        }

        func query(_ sql: String, _ values: [SQLValue]) async throws -> [SQLRow] {
            let held = pending.withLock { held in
                defer { held.removeAll() }
                return held
            }
            return try SQLiteDatabase.blockingWrite(pool) { db in
                for (statement, arguments) in held { _ = try SQLiteDatabase.run(db, statement, arguments) }
                return try SQLiteDatabase.run(db, sql, values)
            }
        }

        /// Sends whatever is held back, followed by `sql`.
        func flush(then sql: String) async throws {
            _ = try await query(sql, [])
        }

        /// Drops held statements (before a rollback).
        func discard() { pending.withLock { $0.removeAll() } }
    }

    private struct Reader: SQLConnection {
        let pool: DatabasePool

        func execute(_ sql: String, _ values: [SQLValue]) async throws {
            throw SQLiteReadOnly()
        }

        func query(_ sql: String, _ values: [SQLValue]) async throws -> [SQLRow] {
            try SQLiteDatabase.blockingRead(pool) { db in try SQLiteDatabase.run(db, sql, values) }
        }
    }

    struct SQLiteReadOnly: Error, CustomStringConvertible {
        var description: String { "a read connection cannot write" }
    }
}

/// A database file that fails SQLite's check when the server opens it.
public struct DamagedDatabase: Error, CustomStringConvertible {
    public var path: String
    public var problems: [String]
    public var description: String {
        "\(path) fails SQLite's integrity check (\(problems.prefix(3).joined(separator: "; "))), so it is not served: "
            + "move it away with its -wal and -shm files and restore the latest backup (`crossmate restore`, README \"Hosting Crossmate\")"
    }
}

/// An async mutex: one holder at a time, others wait in order.
actor WriteGate {
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        if !held {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            held = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
