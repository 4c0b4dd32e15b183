import Foundation
import GRDB

/// A consistent copy of a server's SQLite database, taken while the server runs and writes
/// (SQLite's online backup API, read in one snapshot: a reader never stops the server's writer
/// in WAL mode), and put back into an empty data directory. The copy is one file: the server's
/// secrets (its VAPID key) are in it, and nothing else in the data directory is needed.
public enum SQLiteBackup {
    /// What a backup holds, to say so.
    public struct Summary: Sendable, Equatable {
        public var schema: Int64
        public var accounts: Int
        public var games: Int
        public var moves: Int
    }

    /// Copies the database at `database` to a new file `destination` and checks the copy.
    public static func backup(database: String, to destination: String) throws(BackupFailure) -> Summary {
        guard FileManager.default.fileExists(atPath: database) else {
            throw BackupFailure("\(database): no Crossmate database there (is --data the server's data directory?)")
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw BackupFailure("\(destination) already exists: name a new file, so that no backup is overwritten")
        }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            // The server may be in the middle of a commit: wait for it rather than fail.
            configuration.busyMode = .timeout(10)
            let source = try DatabaseQueue(path: database, configuration: configuration)
            let copy = try DatabaseQueue(path: destination)
            try source.backup(to: copy)
            try copy.close()
            try source.close()
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            throw BackupFailure("the backup could not be made (\(error)); nothing was written to \(destination)")
        }
        return try check(destination)
    }

    /// Puts a backup in place as the database at `database`, which must not exist yet (a
    /// running server's database is never overwritten). Checked first; written atomically.
    public static func restore(from backup: String, into database: String) throws(BackupFailure) -> Summary {
        guard FileManager.default.fileExists(atPath: backup) else { throw BackupFailure("\(backup): no such file") }
        guard !FileManager.default.fileExists(atPath: database) else {
            throw BackupFailure(
                "\(database) already exists: restore into a new data directory (--data), or stop the server and move the old database away first")
        }
        let summary = try check(backup)
        let directory = (database as NSString).deletingLastPathComponent
        let partial = database + ".restoring"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try? FileManager.default.removeItem(atPath: partial)
            try FileManager.default.copyItem(atPath: backup, toPath: partial)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: partial)
            try FileManager.default.moveItem(atPath: partial, toPath: database)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw BackupFailure("\(database) could not be written (\(error.localizedDescription))")
        }
        return summary
    }

    /// Whether `path` is a whole Crossmate database this build can serve: SQLite's integrity
    /// check, and a schema no newer than this build's.
    public static func check(_ path: String) throws(BackupFailure) -> Summary {
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db throws -> Summary in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard integrity == ["ok"] else {
                    throw BackupFailure("\(path) is damaged: \(integrity.prefix(3).joined(separator: "; "))")
                }
                guard try db.tableExists("schema_migrations") else {
                    throw BackupFailure("\(path) is not a Crossmate database (it has no schema_migrations table)")
                }
                let schema = try Int64.fetchOne(db, sql: "SELECT MAX(version) FROM schema_migrations") ?? 0
                if schema > Migrations.newestVersion {
                    throw BackupFailure(SchemaTooNew(found: schema).description)
                }
                return Summary(
                    schema: schema, accounts: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM accounts") ?? 0,
                    games: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM games") ?? 0,
                    moves: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM records WHERE record_type = 'move'") ?? 0)
            }
        } catch let failure as BackupFailure {
            throw failure
        } catch {
            throw BackupFailure("\(path) cannot be read as a Crossmate database (\(error))")
        }
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
