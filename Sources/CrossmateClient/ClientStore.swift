import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import GRDB

/// Who this device is on which server.
public struct Identity: Hashable, Sendable {
    public var serverURL: String
    public var authorID: String
    public var deviceID: String
    public var token: String
    public var displayName: String

    public init(serverURL: String, authorID: String, deviceID: String, token: String, displayName: String) {
        self.serverURL = serverURL
        self.authorID = authorID
        self.deviceID = deviceID
        self.token = token
        self.displayName = displayName
    }
}

/// A game as this device keeps it.
public struct LocalGame: Hashable, Sendable {
    public var game: GameRecord
    public var title: String
    /// The server said this device may no longer write (removed from the game); the grid stays.
    public var readOnly: Bool
    /// How far this device has read the game's zone.
    public var token: ChangeToken?
    /// This device's Seal is written: everything it made after the completion is pushed.
    public var sealed: Bool
}

/// A stored record that no longer decodes: named, never skipped.
public struct CorruptLocalRecord: Error, CustomStringConvertible {
    public var what: String
    public var reason: String
    public var description: String { "the local store's \(what) cannot be read (\(reason))" }
}

/// A device's local store (SQLite through GRDB): its identity, its games with every move it
/// knows, each zone's change token, snapshots and the outbox of its own moves not yet pushed.
/// A move is stored before anyone is told it was made, with the log synced at every commit, so a
/// restart, even after `kill -9`, resumes exactly, unsent moves included.
public final class ClientStore: Sendable {
    let queue: DatabaseQueue

    public init(path: String) throws {
        try PrivateFiles.prepareDatabase(at: path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try Self.migrator.migrate(queue)
    }

    /// Append-only, numbered: a migration that has shipped is never edited.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE identity (
                        only INTEGER PRIMARY KEY CHECK (only = 1), server_url TEXT NOT NULL, author_id TEXT NOT NULL,
                        device_id TEXT NOT NULL, token TEXT NOT NULL, display_name TEXT NOT NULL);
                    CREATE TABLE games (
                        game_id TEXT PRIMARY KEY, record TEXT NOT NULL, title TEXT NOT NULL,
                        read_only INTEGER NOT NULL DEFAULT 0, change_token TEXT, sealed INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE moves (
                        game_id TEXT NOT NULL, replica_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
                        pending INTEGER NOT NULL, PRIMARY KEY (game_id, replica_id, seq));
                    CREATE INDEX moves_pending ON moves (game_id, pending, seq) WHERE pending = 1;
                    CREATE TABLE snapshots (game_id TEXT PRIMARY KEY, zone_seq INTEGER NOT NULL, body TEXT NOT NULL);
                    """)
        }
        migrator.registerMigration("2") { db in
            try db.execute(
                sql: """
                    CREATE TABLE participants (
                        game_id TEXT NOT NULL, author_id TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (game_id, author_id));
                    CREATE TABLE seals (
                        game_id TEXT NOT NULL, replica_id TEXT NOT NULL, last_seq INTEGER NOT NULL, PRIMARY KEY (game_id, replica_id));
                    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                    """)
        }
        // Pauses stop a player's share of the shared clock (SolvingTime).
        migrator.registerMigration("3") { db in
            try db.execute(
                sql: """
                    CREATE TABLE pauses (
                        game_id TEXT NOT NULL, replica_id TEXT NOT NULL, at INTEGER NOT NULL, author_id TEXT NOT NULL,
                        PRIMARY KEY (game_id, replica_id, at));
                    """)
        }
        // Chat messages: heard from the server, or written here and waiting in the outbox.
        migrator.registerMigration("4") { db in
            try db.execute(
                sql: """
                    CREATE TABLE messages (
                        game_id TEXT NOT NULL, replica_id TEXT NOT NULL, message_id TEXT NOT NULL, author_id TEXT NOT NULL,
                        text TEXT NOT NULL, wall_millis INTEGER NOT NULL, counter INTEGER NOT NULL, zone_seq INTEGER,
                        pending INTEGER NOT NULL, refusal TEXT, PRIMARY KEY (game_id, replica_id, message_id));
                    CREATE INDEX messages_pending ON messages (game_id) WHERE pending = 1;
                    """)
        }
        // Emoji reactions to chat messages: the deciding one per author, message and emoji.
        migrator.registerMigration("5") { db in
            try db.execute(
                sql: """
                    CREATE TABLE reactions (
                        game_id TEXT NOT NULL, author_id TEXT NOT NULL, message_key TEXT NOT NULL, emoji TEXT NOT NULL,
                        "on" INTEGER NOT NULL, wall_millis INTEGER NOT NULL, counter INTEGER NOT NULL, pending INTEGER NOT NULL,
                        PRIMARY KEY (game_id, author_id, message_key, emoji));
                    """)
        }
        // Clue flags: the deciding one per author and clue.
        migrator.registerMigration("6") { db in
            try db.execute(
                sql: """
                    CREATE TABLE flags (
                        game_id TEXT NOT NULL, key TEXT NOT NULL, body TEXT NOT NULL, pending INTEGER NOT NULL, PRIMARY KEY (game_id, key));
                    """)
        }
        return migrator
    }

    /// Whether every commit reaches the disk before it returns (WAL with `synchronous = FULL`).
    public func syncsEveryCommit() throws -> Bool {
        try queue.read { db in
            try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" && Int.fetchOne(db, sql: "PRAGMA synchronous") == 2
        }
    }

    /// The migrations this store has applied, in order.
    public func appliedMigrations() throws -> [String] {
        try queue.read { db in try Self.migrator.appliedMigrations(db) }
    }

    // MARK: Identity

    public func saveIdentity(_ identity: Identity) throws {
        try queue.write { db in
            try IdentityRow(
                serverURL: identity.serverURL, authorID: identity.authorID, deviceID: identity.deviceID, token: identity.token,
                displayName: identity.displayName
            ).upsert(db)
        }
    }

    public func identity() throws -> Identity? {
        try queue.read { db in
            try IdentityRow.fetchOne(db).map {
                Identity(serverURL: $0.serverURL, authorID: $0.authorID, deviceID: $0.deviceID, token: $0.token, displayName: $0.displayName)
            }
        }
    }

    // MARK: This device's own

    /// What this device keeps for itself and never syncs (where its cursor was in a game,
    /// whether it showed a puzzle's notes), by key.
    public func localValue(_ key: String) throws -> String? {
        try queue.read { db in try String.fetchOne(db, sql: "SELECT value FROM settings WHERE key = ?", arguments: [key]) }
    }

    public func setLocalValue(_ key: String, _ value: String) throws {
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                arguments: [key, value])
        }
    }

    // MARK: Games

    /// Stores a game's record and title, keeping what this device has learned of it.
    public func saveGame(_ game: GameRecord, title: String) throws {
        let row = GameRow(gameID: game.gameID, record: JSONText.sorted(game), title: title)
        try queue.write { db in
            _ = try row.upsertAndFetch(db, updating: .noColumnUnlessSpecified) { excluded in
                [GameRow.Columns.record.set(to: excluded[GameRow.Columns.record]), GameRow.Columns.title.set(to: excluded[GameRow.Columns.title])]
            }
        }
    }

    /// When each game last saw a move this device knows of (the move's clock, Unix ms).
    public func lastMoveTimes() throws -> [String: Int64] {
        try queue.read { db in
            let latest = SQL("MAX(json_extract(\(MoveRow.Columns.body), '$.timestamp.wallMillis'))")
            var times: [String: Int64] = [:]
            for row in try MoveRow.select(MoveRow.Columns.gameID, latest).group(MoveRow.Columns.gameID).asRequest(of: Row.self).fetchAll(db) {
                if let gameID: String = row[0], let time: Int64 = row[1] { times[gameID] = time }
            }
            return times
        }
    }

    public func games() throws -> [LocalGame] {
        try queue.read { db in try GameRow.order(GameRow.Columns.gameID).fetchAll(db).map(Self.localGame) }
    }

    public func game(_ gameID: String) throws -> LocalGame? {
        try queue.read { db in try GameRow.fetchOne(db, key: gameID).map(Self.localGame) }
    }

    static func localGame(_ row: GameRow) throws -> LocalGame {
        LocalGame(
            game: try decode(GameRecord.self, row.record, what: "game record"), title: row.title, readOnly: row.readOnly,
            token: try row.changeToken.map { text in
                guard let token = ChangeToken(encoded: text) else { throw CorruptLocalRecord(what: "change token", reason: text) }
                return token
            }, sealed: row.sealed)
    }

    public func setReadOnly(_ gameID: String, _ readOnly: Bool = true) throws {
        try queue.write { db in _ = try GameRow.filter(key: gameID).updateAll(db, GameRow.Columns.readOnly.set(to: readOnly)) }
    }

    /// Remembers how far the game's zone has been read (never moving backward).
    public func setChangeToken(_ token: ChangeToken) throws {
        try queue.write { db in
            let current = try GameRow.fetchOne(db, key: token.zone)?.changeToken
            if let current, let known = ChangeToken(encoded: current), known.sequence >= token.sequence { return }
            _ = try GameRow.filter(key: token.zone).updateAll(db, GameRow.Columns.changeToken.set(to: token.encoded))
        }
    }

    public func markSealed(_ gameID: String) throws {
        try queue.write { db in _ = try GameRow.filter(key: gameID).updateAll(db, GameRow.Columns.sealed.set(to: true)) }
    }

}
