import Foundation
import GRDB
import GRDBSQLite

/// A consistent copy of a server's SQLite database, taken while the server runs and writes
/// (SQLite's online backup API, read in one snapshot: a reader never stops the server's writer
/// in WAL mode), and put back into an empty data directory. The copy is one file: the server's
/// secrets (its VAPID key) are in it, and nothing else in the data directory is needed.
///
/// Both directions copy pages through SQLite into a file created here, owner-only, that was not
/// there before (never through a link), and leave it in rollback-journal mode, so no `-wal` or
/// `-shm` file is left beside it. A restore checks the copy it made (its tables and indexes
/// are exactly the ones its schema version creates, SQLite's integrity check passes, within
/// `checkSeconds`) before it takes the database's name, and never meets a log left by another
/// database.
public enum SQLiteBackup {
    /// What a backup holds, to say so.
    public struct Summary: Sendable, Equatable {
        public var schema: Int64
        public var accounts: Int
        public var games: Int
        public var moves: Int
    }

    /// The longest a restore's or a backup's check of a file may take.
    public static let checkSeconds = 120

    /// The files SQLite keeps beside a database: its log and its shared-memory index (WAL mode)
    /// or its rollback journal. A database's log replayed onto another database corrupts it.
    static func companions(of database: String) -> [String] {
        [database + "-wal", database + "-shm", database + "-journal"]
    }

    /// Copies the database at `database` to a new file `destination` and checks the copy.
    public static func backup(database: String, to destination: String) throws(BackupFailure) -> Summary {
        guard FileManager.default.fileExists(atPath: database) else {
            throw BackupFailure("\(database): no Crossmate database there (is --data the server's data directory?)")
        }
        if let leftover = companions(of: destination).first(where: exists) {
            throw BackupFailure("\(leftover) is in the way (SQLite would take it for the new file's journal): remove it or name another file")
        }
        try createExclusively(destination, what: "name a new file, so that no backup is overwritten")
        do {
            var configuration = Configuration()
            configuration.readonly = true
            // The server may be in the middle of a commit: wait for it rather than fail.
            configuration.busyMode = .timeout(10)
            let source = try DatabaseQueue(path: database, configuration: configuration)
            defer { try? source.close() }
            try copy(from: source, to: destination)
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            throw BackupFailure("the backup could not be made (\(error)); nothing was written to \(destination)")
        }
        return try check(destination)
    }

    /// Puts a backup in place as the database at `database`, which must not exist yet, and
    /// nor may a log or journal beside it (a running server's database is never overwritten, and
    /// an old log would be replayed onto the restored file). The copy is checked before it
    /// takes the database's name.
    public static func restore(from backup: String, into database: String) throws(BackupFailure) -> Summary {
        guard FileManager.default.fileExists(atPath: backup) else { throw BackupFailure("\(backup): no such file") }
        let name = (database as NSString).lastPathComponent
        guard !exists(database) else {
            throw BackupFailure(
                "\(database) already exists: restore into a new data directory (--data), or stop the server and move the old database away first "
                    + "(\(name) with its \(name)-wal and \(name)-shm files, if there are any)")
        }
        // A log with frames in it, or a rollback journal, would be replayed onto the restored file.
        // An empty log and the log's index hold nothing (a read-only look at a stopped server's
        // database leaves them): they are removed.
        let (log, index, journal) = (database + "-wal", database + "-shm", database + "-journal")
        if let leftover = [journal, log].first(where: { exists($0) && !isEmptyFile($0) }) {
            throw BackupFailure(
                "\(leftover) is still there: it belongs to the database that was moved away and would be replayed onto the restored one, "
                    + "corrupting it; move it away with that database (or restore into a new data directory), then restore again")
        }
        for file in [log, index] where exists(file) {
            do { try FileManager.default.removeItem(atPath: file) } catch {
                throw BackupFailure("\(file) could not be removed (\(error.localizedDescription)); remove it, then restore again")
            }
        }
        let directory = (database as NSString).deletingLastPathComponent
        let partial = database + ".restoring"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw BackupFailure("\(directory) could not be made (\(error.localizedDescription))")
        }
        for file in [partial] + companions(of: partial) where exists(file) { try? FileManager.default.removeItem(atPath: file) }
        try createExclusively(partial, what: "a restore may be running into the same directory")
        let summary: Summary
        do throws(BackupFailure) {
            do {
                var configuration = Configuration()
                configuration.readonly = true
                let source = try DatabaseQueue(path: backup, configuration: configuration)
                defer { try? source.close() }
                try copy(from: source, to: partial)
            } catch {
                throw BackupFailure("\(backup) cannot be read as a Crossmate database (\(error))")
            }
            // What is checked is the copy that will be served, not the file it came from.
            summary = try check(partial, naming: backup)
            do { try markRestored(partial) } catch { throw BackupFailure("\(partial) could not be written (\(error))") }
            guard rename(partial, database) == 0 else {
                throw BackupFailure("\(database) could not be written (\(String(cString: strerror(errno))))")
            }
        } catch {
            for file in [partial] + companions(of: partial) { try? FileManager.default.removeItem(atPath: file) }
            throw error
        }
        return summary
    }

    /// How far a restore moves every game's and every feed's next sequence number on.
    public static let sequenceJump: Int64 = 1 << 32

    /// Moves every game's zone sequence and every account's feed sequence `sequenceJump` on.
    /// Devices hold change tokens from before the disaster, past what the backup holds: without
    /// the jump, the records the restored server writes next would take sequence numbers those
    /// devices have already read past, and they would never fetch them. With it, every token a
    /// device holds is behind everything written after the restore. (The moves the backup
    /// lost come back from the devices that made them: `RecordResult.nextSeq`.)
    ///
    /// Also records when the restore happened (`restored-at`, in the games list as
    /// `restoredAt`), so each device checks once that the server holds its acknowledged moves.
    static func markRestored(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { db in
            try db.execute(sql: "UPDATE games SET zone_seq = zone_seq + ?", arguments: [sequenceJump])
            try db.execute(sql: "UPDATE accounts SET feed_seq = feed_seq + ?", arguments: [sequenceJump])
            // The table came with schema 14; an older backup gains it as the server migrates it,
            // and its devices are not told (they send again what they hold once they type).
            if try db.tableExists("server_secrets") {
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                try db.execute(
                    sql: "INSERT INTO server_secrets (name, value) VALUES ('restored-at', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                    arguments: [String(now)])
            }
        }
    }

    /// Whether `path` is a whole Crossmate database this build can serve: its tables and
    /// indexes exactly those its schema version has (so nothing in it runs when it is read),
    /// SQLite's integrity check, and a schema no newer than this build's. `naming`: the file to
    /// name in messages, when `path` is a copy of it.
    public static func check(_ path: String, naming: String? = nil) throws(BackupFailure) -> Summary {
        let shown = naming ?? path
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.inDatabase { db throws -> Summary in
                let deadline = CheckDeadline(seconds: checkSeconds)
                deadline.install(on: db)
                defer { deadline.remove(from: db) }
                do {
                    let schema = try structure(db, shown: shown)
                    let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check(10)")
                    guard integrity == ["ok"] else {
                        throw BackupFailure("\(shown) is damaged: \(integrity.prefix(3).joined(separator: "; "))")
                    }
                    return Summary(
                        schema: schema, accounts: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM accounts") ?? 0,
                        games: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM games") ?? 0,
                        moves: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM records WHERE record_type = 'move'") ?? 0)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
                    throw BackupFailure("\(shown) could not be checked within \(checkSeconds) s; it was not used")
                }
            }
        } catch let failure as BackupFailure {
            throw failure
        } catch {
            throw BackupFailure("\(shown) cannot be read as a Crossmate database (\(error))")
        }
    }

    /// The schema version of the database `db`, after checking that its tables and indexes
    /// are exactly the ones the migrations up to that version make (with the same columns), and
    /// that it has nothing else: no view, no trigger, no table of another name.
    static func structure(_ db: Database, shown: String) throws -> Int64 {
        let found = try shape(db)
        guard found.objects["schema_migrations"] == "table" else {
            throw BackupFailure("\(shown) is not a Crossmate database (it has no schema_migrations table)")
        }
        let schema = try Int64.fetchOne(db, sql: "SELECT MAX(version) FROM schema_migrations") ?? 0
        if schema > Migrations.newestVersion { throw BackupFailure(SchemaTooNew(found: schema).description) }
        let expected = try referenceShape(through: schema)
        if found != expected {
            let unexpected = found.objects.filter { expected.objects[$0.key] != $0.value }.map { "\($0.value) \($0.key)" }
            let missing = expected.objects.filter { found.objects[$0.key] != $0.value }.map { "\($0.value) \($0.key)" }
            let columns = expected.columns.filter { found.columns[$0.key] != nil && found.columns[$0.key] != $0.value }.map {
                "the columns of \($0.key)"
            }
            let differences = (unexpected.sorted().map { "unexpected \($0)" } + missing.sorted().map { "no \($0)" } + columns.sorted())
            throw BackupFailure(
                "\(shown) does not have the tables of a Crossmate database at schema \(schema) (\(differences.prefix(3).joined(separator: "; "))); it was not used"
            )
        }
        return schema
    }

    /// A database's tables, indexes, views and triggers by name, and each table's columns.
    struct Shape: Equatable {
        var objects: [String: String] = [:]
        var columns: [String: [String]] = [:]
    }

    static func shape(_ db: Database) throws -> Shape {
        var shape = Shape()
        // SQLite's own tables (sqlite_sequence, sqlite_stat1, automatic indexes) are not the schema's.
        for row in try Row.fetchAll(db, sql: "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'") {
            let type: String = row["type"]
            let name: String = row["name"]
            shape.objects[name] = type
            if type == "table" {
                shape.columns[name] = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [name])
            }
        }
        return shape
    }

    /// The shape the migrations through `version` give an empty database.
    static func referenceShape(through version: Int64) throws -> Shape {
        let reference = try DatabaseQueue()
        return try reference.inDatabase { db in
            try db.execute(sql: Migrations.ledger)
            for migration in Migrations.all where migration.version <= version {
                for statement in migration.statements { try db.execute(sql: statement) }
            }
            return try shape(db)
        }
    }

    /// Copies every page of `source` into the empty file at `destination`, which is left in
    /// rollback-journal mode (the pages say WAL when the source is a server's database; a WAL
    /// copy would grow a `-wal` and `-shm` the first time it is opened).
    static func copy(from source: DatabaseQueue, to destination: String) throws {
        let copy = try DatabaseQueue(path: destination)
        defer { try? copy.close() }
        try source.backup(to: copy)
        try copy.inDatabase { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
    }

    /// Creates `path` as a new empty file readable by its owner only; fails if anything is there
    /// already, a symbolic link included (a dangling link is not written through).
    static func createExclusively(_ path: String, what advice: String) throws(BackupFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { throw BackupFailure("\(path) already exists: \(advice)") }
            throw BackupFailure("\(path) could not be created (\(String(cString: strerror(errno))))")
        }
        fchmod(descriptor, 0o600)
        close(descriptor)
    }

    /// Whether `path` is a regular file of no bytes.
    static func isEmptyFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && status.st_size == 0
    }

    /// Whether anything is at `path`, a dangling symbolic link included.
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }
}

/// Stops SQLite's work on a connection once `seconds` have passed (a progress handler, asked
/// every few thousand steps), so a check ends in bounded time whatever the file holds.
final class CheckDeadline: @unchecked Sendable {
    private let end: ContinuousClock.Instant

    init(seconds: Int) { end = .now + .seconds(seconds) }

    var expired: Bool { ContinuousClock.now >= end }

    func install(on db: Database) {
        let context = Unmanaged.passRetained(self).toOpaque()
        sqlite3_progress_handler(
            db.sqliteConnection, 10_000,
            { context in
                guard let context else { return 0 }
                return Unmanaged<CheckDeadline>.fromOpaque(context).takeUnretainedValue().expired ? 1 : 0
            }, context)
    }

    func remove(from db: Database) {
        sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil)
        Unmanaged.passUnretained(self).release()
    }
}

/// Why a backup or a restore did not happen, in words a person can act on.
public struct BackupFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A database whose schema is newer than this build's: an older `crossmate` must not serve it
/// (it would not know what the newer one stores).
public struct SchemaTooNew: Error, CustomStringConvertible {
    public var found: Int64
    public var description: String {
        "this data was written by a newer Crossmate (schema \(found); this crossmate knows schemas up to \(Migrations.newestVersion)): "
            + "run the newer crossmate, or restore a backup this one made"
    }
}
