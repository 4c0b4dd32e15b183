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
    private let queue: DatabaseQueue

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
            try db.execute(
                sql: """
                    INSERT INTO identity (only, server_url, author_id, device_id, token, display_name) VALUES (1, ?, ?, ?, ?, ?)
                    ON CONFLICT (only) DO UPDATE SET server_url = excluded.server_url, author_id = excluded.author_id,
                    device_id = excluded.device_id, token = excluded.token, display_name = excluded.display_name
                    """,
                arguments: [identity.serverURL, identity.authorID, identity.deviceID, identity.token, identity.displayName])
        }
    }

    public func identity() throws -> Identity? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT server_url, author_id, device_id, token, display_name FROM identity").map { row in
                Identity(serverURL: row[0], authorID: row[1], deviceID: row[2], token: row[3], displayName: row[4])
            }
        }
    }

    // MARK: Games

    /// Stores a game's record and title, keeping what this device has learned of it.
    public func saveGame(_ game: GameRecord, title: String) throws {
        let record = JSONText.sorted(game)
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO games (game_id, record, title) VALUES (?, ?, ?)
                    ON CONFLICT (game_id) DO UPDATE SET record = excluded.record, title = excluded.title
                    """, arguments: [game.gameID, record, title])
        }
    }

    /// When each game last saw a move this device knows of (the move's clock, Unix ms).
    public func lastMoveTimes() throws -> [String: Int64] {
        try queue.read { db in
            var times: [String: Int64] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT game_id, MAX(json_extract(body, '$.timestamp.wallMillis')) FROM moves GROUP BY game_id")
            {
                if let gameID: String = row[0], let time: Int64 = row[1] { times[gameID] = time }
            }
            return times
        }
    }

    public func games() throws -> [LocalGame] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT record, title, read_only, change_token, sealed FROM games ORDER BY game_id").map(Self.localGame)
        }
    }

    public func game(_ gameID: String) throws -> LocalGame? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT record, title, read_only, change_token, sealed FROM games WHERE game_id = ?", arguments: [gameID])
                .map(Self.localGame)
        }
    }

    private static func localGame(_ row: Row) throws -> LocalGame {
        let record: String = row[0]
        let token: String? = row[3]
        return LocalGame(
            game: try decode(GameRecord.self, record, what: "game record"), title: row[1], readOnly: row[2],
            token: try token.map { text in
                guard let token = ChangeToken(encoded: text) else { throw CorruptLocalRecord(what: "change token", reason: text) }
                return token
            }, sealed: row[4])
    }

    public func setReadOnly(_ gameID: String, _ readOnly: Bool = true) throws {
        try queue.write { db in
            try db.execute(sql: "UPDATE games SET read_only = ? WHERE game_id = ?", arguments: [readOnly, gameID])
        }
    }

    /// Remembers how far the game's zone has been read (never moving backward).
    public func setChangeToken(_ token: ChangeToken) throws {
        try queue.write { db in
            let current: String? = try String.fetchOne(db, sql: "SELECT change_token FROM games WHERE game_id = ?", arguments: [token.zone])
            if let current, let known = ChangeToken(encoded: current), known.sequence >= token.sequence { return }
            try db.execute(sql: "UPDATE games SET change_token = ? WHERE game_id = ?", arguments: [token.encoded, token.zone])
        }
    }

    public func markSealed(_ gameID: String) throws {
        try queue.write { db in try db.execute(sql: "UPDATE games SET sealed = 1 WHERE game_id = ?", arguments: [gameID]) }
    }

    // MARK: Moves and the outbox

    /// This device's own moves, just made: stored as unsent, before anyone is told of them.
    public func recordOwn(_ moves: [Move]) throws {
        try insert(moves, pending: true)
    }

    /// Moves that came from the server (others', or this device's own coming back): a resend is
    /// harmless, and an own move the server has is no longer unsent.
    public func recordReceived(_ moves: [Move]) throws {
        try insert(moves, pending: false)
    }

    private func insert(_ moves: [Move], pending: Bool) throws {
        guard !moves.isEmpty else { return }
        let rows = moves.map { ($0, MoveRecord($0).sortedJSON) }
        try queue.write { db in
            for (move, body) in rows {
                try db.execute(
                    sql: """
                        INSERT INTO moves (game_id, replica_id, seq, body, pending) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (game_id, replica_id, seq) DO UPDATE SET pending = min(pending, excluded.pending)
                        """, arguments: [move.gameID, move.replicaID, move.seq, body, pending])
            }
        }
    }

    /// This device's moves of a game not yet acknowledged, in seq order.
    public func unsent(gameID: String, limit: Int = 400) throws -> [Move] {
        try queue.read { db in
            try String.fetchAll(
                db, sql: "SELECT body FROM moves WHERE game_id = ? AND pending = 1 ORDER BY replica_id, seq LIMIT ?",
                arguments: [gameID, limit]
            ).map(Self.move)
        }
    }

    /// Forgets everything this device kept (identity, games, moves, outbox): signing out, or
    /// starting afresh as another account. The schema stays.
    public func erase() throws {
        try queue.write { db in
            for table in ["identity", "games", "moves", "snapshots", "participants", "seals", "settings"] {
                try db.execute(sql: "DELETE FROM \(table)")
            }
        }
    }

    /// Unsent moves across every game, or of one.
    public func unsentCount(gameID: String? = nil) throws -> Int {
        try queue.read { db in
            if let gameID {
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM moves WHERE pending = 1 AND game_id = ?", arguments: [gameID]) ?? 0
            }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM moves WHERE pending = 1") ?? 0
        }
    }

    /// The server acknowledged this device's moves of a game up to `seq`.
    public func markSent(gameID: String, replicaID: String, through seq: Int) throws {
        try queue.write { db in
            try db.execute(
                sql: "UPDATE moves SET pending = 0 WHERE game_id = ? AND replica_id = ? AND seq <= ? AND pending = 1",
                arguments: [gameID, replicaID, seq])
        }
    }

    /// The server refused one of this device's moves for good (it will never take it): it leaves
    /// the outbox but stays known, marked refused.
    public func markRefused(gameID: String, replicaID: String, seq: Int) throws {
        try queue.write { db in
            try db.execute(
                sql: "UPDATE moves SET pending = 2 WHERE game_id = ? AND replica_id = ? AND seq = ? AND pending = 1",
                arguments: [gameID, replicaID, seq])
        }
    }

    /// The highest seq S such that the server holds every one of the replica's moves 1…S.
    public func acknowledgedThrough(gameID: String, replicaID: String) throws -> Int {
        try queue.read { db in
            let firstNotHeld = try Int.fetchOne(
                db, sql: "SELECT min(seq) FROM moves WHERE game_id = ? AND replica_id = ? AND pending <> 0",
                arguments: [gameID, replicaID])
            if let firstNotHeld { return firstNotHeld - 1 }
            return try Int.fetchOne(db, sql: "SELECT max(seq) FROM moves WHERE game_id = ? AND replica_id = ?", arguments: [gameID, replicaID])
                ?? 0
        }
    }

    /// Moves of a game this device knows.
    public func moveCount(gameID: String) throws -> Int {
        try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM moves WHERE game_id = ?", arguments: [gameID]) ?? 0 }
    }

    /// Every move of a game this device knows, by replica and seq.
    public func moves(gameID: String) throws -> [Move] {
        try queue.read { db in
            try String.fetchAll(db, sql: "SELECT body FROM moves WHERE game_id = ? ORDER BY replica_id, seq", arguments: [gameID]).map(Self.move)
        }
    }

    /// Rewrites unsent moves of this device (same replica and seq) with new timestamps: after
    /// the server refused them as stamped too far ahead, before anyone has seen them.
    public func restamp(_ moves: [Move]) throws {
        guard !moves.isEmpty else { return }
        try queue.write { db in
            for move in moves {
                try db.execute(
                    sql: "UPDATE moves SET body = ? WHERE game_id = ? AND replica_id = ? AND seq = ? AND pending = 1",
                    arguments: [MoveRecord(move).sortedJSON, move.gameID, move.replicaID, move.seq])
            }
        }
    }

    /// Games with moves not yet acknowledged.
    public func gamesWithUnsentMoves() throws -> [String] {
        try queue.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT game_id FROM moves WHERE pending = 1 ORDER BY game_id") }
    }

    // MARK: Players and seals

    /// A game's participant record as the server last sent it.
    public func saveParticipant(_ participant: ParticipantRecord) throws {
        let record = JSONText.sorted(participant)
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO participants (game_id, author_id, record) VALUES (?, ?, ?)
                    ON CONFLICT (game_id, author_id) DO UPDATE SET record = excluded.record
                    """, arguments: [participant.gameID, participant.authorID, record])
        }
    }

    public func participants(gameID: String) throws -> [ParticipantRecord] {
        try queue.read { db in
            try String.fetchAll(db, sql: "SELECT record FROM participants WHERE game_id = ? ORDER BY author_id", arguments: [gameID])
                .map { try Self.decode(ParticipantRecord.self, $0, what: "participant") }
        }
    }

    /// A device's Seal: every move it made in the finished game is pushed, through `lastSeq`.
    public func saveSeal(_ seal: Seal) throws {
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO seals (game_id, replica_id, last_seq) VALUES (?, ?, ?)
                    ON CONFLICT (game_id, replica_id) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)
                    """, arguments: [seal.gameID, seal.replicaID, seal.lastSeq])
        }
    }

    public func seals(gameID: String) throws -> [Seal] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT replica_id, last_seq FROM seals WHERE game_id = ? ORDER BY replica_id", arguments: [gameID])
                .map { Seal(gameID: gameID, replicaID: $0[0], lastSeq: $0[1]) }
        }
    }

    /// A player's pause, heard from the server (the same pause twice is kept once).
    public func savePause(_ pause: Pause) throws {
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO pauses (game_id, replica_id, at, author_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                arguments: [pause.gameID, pause.replicaID, pause.at, pause.authorID])
        }
    }

    public func pauses(gameID: String) throws -> [Pause] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT replica_id, at, author_id FROM pauses WHERE game_id = ? ORDER BY at", arguments: [gameID])
                .map { Pause(gameID: gameID, authorID: $0[2], replicaID: $0[0], at: $0[1]) }
        }
    }

    // MARK: Settings

    /// The device's learned offset to the server's clock, in milliseconds (server minus local).
    public func serverOffsetMillis() throws -> Int64 {
        try queue.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM settings WHERE key = 'server_offset_millis'").flatMap { Int64($0) } ?? 0
        }
    }

    public func setServerOffsetMillis(_ offset: Int64) throws {
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO settings (key, value) VALUES ('server_offset_millis', ?)
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """, arguments: [String(offset)])
        }
    }

    // MARK: Snapshots

    public func saveSnapshot(gameID: String, zoneSeq: Int64, snapshot: Snapshot) throws {
        let body = JSONText.sorted(snapshot)
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO snapshots (game_id, zone_seq, body) VALUES (?, ?, ?)
                    ON CONFLICT (game_id) DO UPDATE SET zone_seq = excluded.zone_seq, body = excluded.body
                    """, arguments: [gameID, zoneSeq, body])
        }
    }

    public func snapshot(gameID: String) throws -> (zoneSeq: Int64, snapshot: Snapshot)? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT zone_seq, body FROM snapshots WHERE game_id = ?", arguments: [gameID]).map { row in
                let body: String = row[1]
                return (row[0], try Self.decode(Snapshot.self, body, what: "snapshot"))
            }
        }
    }

    // MARK: Encoding

    private static func decode<T: Decodable>(_ type: T.Type, _ json: String, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(json.utf8))
        } catch {
            throw CorruptLocalRecord(what: what, reason: "\(error)")
        }
    }

    private static func move(_ body: String) throws -> Move {
        let record = try decode(MoveRecord.self, body, what: "move")
        do { return try record.move() } catch { throw CorruptLocalRecord(what: "move", reason: error.message) }
    }
}
