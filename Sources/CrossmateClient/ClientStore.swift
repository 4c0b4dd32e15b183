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

    private static func localGame(_ row: GameRow) throws -> LocalGame {
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

    // MARK: Moves and the outbox

    /// This device's own moves, just made: stored as unsent, before anyone is told of them.
    public func recordOwn(_ moves: [Move]) throws {
        try insert(moves, pending: .waiting)
    }

    /// Moves that came from the server (others', or this device's own coming back): a resend is
    /// harmless, and an own move the server has is no longer unsent.
    public func recordReceived(_ moves: [Move]) throws {
        try insert(moves, pending: .held)
    }

    private func insert(_ moves: [Move], pending: MoveRow.Outbox) throws {
        guard !moves.isEmpty else { return }
        let rows = moves.map {
            MoveRow(gameID: $0.gameID, replicaID: $0.replicaID, seq: $0.seq, body: MoveRecord($0).sortedJSON, pending: pending)
        }
        try queue.write { db in
            for row in rows { try row.store(db) }
        }
    }

    /// A game's moves (of one replica, when one is named).
    private static func moves(of gameID: String, replica replicaID: String? = nil) -> QueryInterfaceRequest<MoveRow> {
        let game = MoveRow.filter(MoveRow.Columns.gameID == gameID)
        return replicaID.map { game.filter(MoveRow.Columns.replicaID == $0) } ?? game
    }

    /// This device's moves of a game not yet acknowledged, in seq order.
    public func unsent(gameID: String, limit: Int = 400) throws -> [Move] {
        try queue.read { db in
            try Self.moves(of: gameID).filter(MoveRow.isWaiting)
                .order(MoveRow.Columns.replicaID, MoveRow.Columns.seq).limit(limit).fetchAll(db).map { try Self.move($0.body) }
        }
    }

    /// Forgets everything this device kept (identity, games, moves, outbox, pauses): signing
    /// out, or starting afresh as another account. The schema stays.
    public func erase() throws {
        try queue.write { db in
            _ = try IdentityRow.deleteAll(db)
            _ = try GameRow.deleteAll(db)
            _ = try MoveRow.deleteAll(db)
            _ = try SnapshotRow.deleteAll(db)
            _ = try ParticipantRow.deleteAll(db)
            _ = try SealRow.deleteAll(db)
            _ = try PauseRow.deleteAll(db)
            _ = try MessageRow.deleteAll(db)
            _ = try ReactionRow.deleteAll(db)
            _ = try FlagRow.deleteAll(db)
            _ = try SettingRow.deleteAll(db)
        }
    }

    /// Unsent moves across every game, or of one.
    public func unsentCount(gameID: String? = nil) throws -> Int {
        try queue.read { db in
            let waiting = MoveRow.filter(MoveRow.isWaiting)
            return try (gameID.map { waiting.filter(MoveRow.Columns.gameID == $0) } ?? waiting).fetchCount(db)
        }
    }

    /// The server acknowledged this device's moves of a game up to `seq`.
    public func markSent(gameID: String, replicaID: String, through seq: Int) throws {
        try queue.write { db in
            _ = try Self.moves(of: gameID, replica: replicaID)
                .filter(MoveRow.Columns.seq <= seq).filter(MoveRow.isWaiting)
                .updateAll(db, MoveRow.Columns.pending.set(to: MoveRow.Outbox.held))
        }
    }

    /// The server holds this device's moves of a game only up to `seq` - 1 (it was restored from
    /// a backup): every one from `seq` on goes back in the outbox, in order, to be sent again.
    /// How many; 0 when this device does not hold the move at `seq` (nothing can fill the gap).
    @discardableResult
    public func resend(gameID: String, replicaID: String, from seq: Int) throws -> Int {
        try queue.write { db in
            let replica = Self.moves(of: gameID, replica: replicaID)
            guard try replica.filter(MoveRow.Columns.seq == seq).fetchCount(db) == 1 else { return 0 }
            return try replica.filter(MoveRow.Columns.seq >= seq).filter(!MoveRow.isWaiting)
                .updateAll(db, MoveRow.Columns.pending.set(to: MoveRow.Outbox.waiting))
        }
    }

    /// The server refused one of this device's moves for good (it will never take it): it leaves
    /// the outbox but stays known, marked refused.
    public func markRefused(gameID: String, replicaID: String, seq: Int) throws {
        try queue.write { db in
            _ = try Self.moves(of: gameID, replica: replicaID)
                .filter(MoveRow.Columns.seq == seq).filter(MoveRow.isWaiting)
                .updateAll(db, MoveRow.Columns.pending.set(to: MoveRow.Outbox.refused))
        }
    }

    /// The highest seq S such that the server holds every one of the replica's moves 1…S.
    public func acknowledgedThrough(gameID: String, replicaID: String) throws -> Int {
        try queue.read { db in
            let replica = Self.moves(of: gameID, replica: replicaID)
            let firstNotHeld =
                try replica.filter(MoveRow.Columns.pending != MoveRow.Outbox.held)
                .select(min(MoveRow.Columns.seq), as: Int?.self).fetchOne(db) ?? nil
            if let firstNotHeld { return firstNotHeld - 1 }
            return try replica.select(max(MoveRow.Columns.seq), as: Int?.self).fetchOne(db).flatMap { $0 } ?? 0
        }
    }

    /// Moves of a game this device knows.
    public func moveCount(gameID: String) throws -> Int {
        try queue.read { db in try Self.moves(of: gameID).fetchCount(db) }
    }

    /// Every move of a game this device knows, by replica and seq.
    public func moves(gameID: String) throws -> [Move] {
        try queue.read { db in
            try Self.moves(of: gameID).order(MoveRow.Columns.replicaID, MoveRow.Columns.seq).fetchAll(db).map { try Self.move($0.body) }
        }
    }

    /// Rewrites unsent moves of this device (same replica and seq) with new timestamps: after
    /// the server refused them as stamped too far ahead, before anyone has seen them.
    public func restamp(_ moves: [Move]) throws {
        guard !moves.isEmpty else { return }
        try queue.write { db in
            for move in moves {
                _ = try Self.moves(of: move.gameID, replica: move.replicaID)
                    .filter(MoveRow.Columns.seq == move.seq).filter(MoveRow.isWaiting)
                    .updateAll(db, MoveRow.Columns.body.set(to: MoveRecord(move).sortedJSON))
            }
        }
    }

    /// Games with moves not yet acknowledged.
    public func gamesWithUnsentMoves() throws -> [String] {
        try queue.read { db in
            try MoveRow.filter(MoveRow.isWaiting).select(MoveRow.Columns.gameID, as: String.self).distinct()
                .order(MoveRow.Columns.gameID).fetchAll(db)
        }
    }

    // MARK: Players and seals

    /// A game's participant record as the server last sent it.
    public func saveParticipant(_ participant: ParticipantRecord) throws {
        let row = ParticipantRow(gameID: participant.gameID, authorID: participant.authorID, record: JSONText.sorted(participant))
        try queue.write { db in try row.upsert(db) }
    }

    /// A game's players, each named as every screen shows them (`PlayerNames`: two players whose
    /// names read alike are told apart by a mark of their account).
    public func participants(gameID: String) throws -> [ParticipantRecord] {
        let records = try queue.read { db in
            try ParticipantRow.filter(ParticipantRow.Columns.gameID == gameID).order(ParticipantRow.Columns.authorID).fetchAll(db)
                .map { try Self.decode(ParticipantRecord.self, $0.record, what: "participant") }
        }
        let shown = PlayerNames.shown(records.map { ($0.authorID, $0.displayName) })
        return records.map { record in
            var named = record
            named.displayName = shown[record.authorID] ?? record.displayName
            return named
        }
    }

    /// A device's Seal: every move it made in the finished game is pushed, through `lastSeq`
    /// (a later seal never lowers it).
    public func saveSeal(_ seal: Seal) throws {
        let row = SealRow(gameID: seal.gameID, replicaID: seal.replicaID, lastSeq: seal.lastSeq)
        try queue.write { db in
            _ = try row.upsertAndFetch(db, updating: .noColumnUnlessSpecified) { excluded in
                [SealRow.Columns.lastSeq.set(to: max(SealRow.Columns.lastSeq, excluded[SealRow.Columns.lastSeq]))]
            }
        }
    }

    public func seals(gameID: String) throws -> [Seal] {
        try queue.read { db in
            try SealRow.filter(SealRow.Columns.gameID == gameID).order(SealRow.Columns.replicaID).fetchAll(db)
                .map { Seal(gameID: $0.gameID, replicaID: $0.replicaID, lastSeq: $0.lastSeq) }
        }
    }

    /// A player's pause, heard from the server (the same pause twice is kept once).
    public func savePause(_ pause: Pause) throws {
        let row = PauseRow(gameID: pause.gameID, replicaID: pause.replicaID, at: pause.at, authorID: pause.authorID)
        try queue.write { db in try row.insert(db, onConflict: .ignore) }
    }

    public func pauses(gameID: String) throws -> [Pause] {
        try queue.read { db in
            try PauseRow.filter(PauseRow.Columns.gameID == gameID).order(PauseRow.Columns.at).fetchAll(db)
                .map { Pause(gameID: $0.gameID, authorID: $0.authorID, replicaID: $0.replicaID, at: $0.at) }
        }
    }

    // MARK: Chat

    /// A message this device wrote: kept before anyone hears of it, waiting to be sent.
    public func writeMessage(_ message: ChatMessage) throws {
        try queue.write { db in try MessageRow(message, sequence: nil, pending: .waiting).insert(db, onConflict: .ignore) }
    }

    /// A message heard from the server (one of this device's own among them: it is then sent).
    public func saveMessage(_ message: ChatMessage, sequence: Int64) throws {
        try queue.write { db in
            try MessageRow(message, sequence: sequence, pending: .held).upsert(db)
        }
    }

    /// The server holds this device's message, at `sequence`.
    public func markMessageSent(_ message: ChatMessage, sequence: Int64) throws {
        try saveMessage(message, sequence: sequence)
    }

    /// The server refused the message for good: it leaves the outbox, marked with why.
    public func markMessageRefused(_ message: ChatMessage, reason: String) throws {
        try queue.write { db in
            _ = try MessageRow.filter(key: ["game_id": message.gameID, "replica_id": message.replicaID, "message_id": message.messageID])
                .updateAll(db, MessageRow.Columns.pending.set(to: MoveRow.Outbox.refused), MessageRow.Columns.refusal.set(to: reason))
        }
    }

    /// Gives an unsent message a new timestamp (after the server refused it as stamped ahead).
    public func restampMessage(_ message: ChatMessage) throws {
        try queue.write { db in
            _ = try MessageRow.filter(key: ["game_id": message.gameID, "replica_id": message.replicaID, "message_id": message.messageID])
                .filter(sql: "pending = 1")
                .updateAll(db, Column("wall_millis").set(to: message.timestamp.wallMillis), Column("counter").set(to: Int(message.timestamp.counter)))
        }
    }

    /// Messages written here and not yet sent, oldest first, of every game.
    public func unsentMessages() throws -> [ChatMessage] {
        try queue.read { db in
            try MessageRow.filter(sql: "pending = 1").order(Column("wall_millis"), Column("counter")).fetchAll(db).map(\.message)
        }
    }

    /// A game's conversation as this device holds it: every message, whether the server has it
    /// (its zone sequence) and why it refused one.
    public func messages(gameID: String) throws -> [(message: ChatMessage, sequence: Int64?, refusal: String?)] {
        try queue.read { db in
            try MessageRow.filter(MessageRow.Columns.gameID == gameID).fetchAll(db).map {
                ($0.message, $0.zoneSeq, $0.pending == .refused ? $0.refusal ?? "refused" : nil)
            }
        }
    }

    /// A reaction, kept when it decides over the one held for its author, message and emoji
    /// (`Reaction.wins`): heard from the server (`pending` held), or given here (waiting).
    /// Returns whether it was kept.
    @discardableResult
    public func saveReaction(_ reaction: Reaction, sent: Bool) throws -> Bool {
        try queue.write { db in
            let key: [String: any DatabaseValueConvertible] = [
                "game_id": reaction.gameID, "author_id": reaction.authorID, "message_key": reaction.messageKey, "emoji": reaction.emoji,
            ]
            if let held = try ReactionRow.fetchOne(db, key: key) {
                let kept = held.reaction
                // The server's copy of the one waiting here: it is sent.
                if kept == reaction {
                    if sent, held.pending != .held { try ReactionRow(reaction, pending: .held).update(db) }
                    return false
                }
                guard reaction.wins(over: kept) else { return false }
            }
            try ReactionRow(reaction, pending: sent ? .held : .waiting).save(db)
            return true
        }
    }

    /// A clue flag, kept when it decides over the one held for its author and clue
    /// (`ClueFlag.wins`): heard from the server (`sent`), or raised here (waiting). Returns
    /// whether it was kept.
    @discardableResult
    public func saveFlag(_ flag: ClueFlag, sent: Bool) throws -> Bool {
        try queue.write { db in
            if let held = try FlagRow.fetchOne(db, key: ["game_id": flag.gameID, "key": flag.key]) {
                let kept = try Self.decode(ClueFlag.self, held.body, what: "flag")
                if kept == flag {
                    if sent, held.pending != .held { try FlagRow(gameID: flag.gameID, key: flag.key, body: held.body, pending: .held).update(db) }
                    return false
                }
                guard flag.wins(over: kept) else { return false }
            }
            try FlagRow(gameID: flag.gameID, key: flag.key, body: JSONText.sorted(flag), pending: sent ? .held : .waiting).save(db)
            return true
        }
    }

    /// Flags raised or taken down here and not yet sent.
    public func unsentFlags() throws -> [ClueFlag] {
        try queue.read { db in try FlagRow.filter(sql: "pending = 1").fetchAll(db).map { try Self.decode(ClueFlag.self, $0.body, what: "flag") } }
    }

    /// A game's flags as this device holds them.
    public func flags(gameID: String) throws -> [ClueFlag] {
        try queue.read { db in
            try FlagRow.filter(FlagRow.Columns.gameID == gameID).fetchAll(db).map { try Self.decode(ClueFlag.self, $0.body, what: "flag") }
        }
    }

    /// Reactions given here and not yet sent, oldest first.
    public func unsentReactions() throws -> [Reaction] {
        try queue.read { db in
            try ReactionRow.filter(sql: "pending = 1").order(Column("wall_millis"), Column("counter")).fetchAll(db).map(\.reaction)
        }
    }

    /// A game's reactions as this device holds them.
    public func reactions(gameID: String) throws -> [Reaction] {
        try queue.read { db in try ReactionRow.filter(ReactionRow.Columns.gameID == gameID).fetchAll(db).map(\.reaction) }
    }

    // MARK: Settings

    /// The device's learned offset to the server's clock, in milliseconds (server minus local).
    public func serverOffsetMillis() throws -> Int64 {
        try queue.read { db in try SettingRow.fetchOne(db, key: SettingRow.serverOffsetMillis).flatMap { Int64($0.value) } ?? 0 }
    }

    public func setServerOffsetMillis(_ offset: Int64) throws {
        try queue.write { db in try SettingRow(key: SettingRow.serverOffsetMillis, value: String(offset)).upsert(db) }
    }

    /// The server's last restore from a backup this device has checked its moves against.
    public func checkedRestore() throws -> Int64? {
        try queue.read { db in try SettingRow.fetchOne(db, key: SettingRow.checkedRestore).flatMap { Int64($0.value) } }
    }

    public func setCheckedRestore(_ restoredAt: Int64) throws {
        try queue.write { db in try SettingRow(key: SettingRow.checkedRestore, value: String(restoredAt)).upsert(db) }
    }

    /// Puts this device's last acknowledged move of every game back in the outbox: sent again,
    /// the server answers that it holds it (a duplicate), or that it lost it and where to go
    /// on from (`RecordResult.nextSeq`). How many games.
    public func recheckAcknowledged(replicaID: String) throws -> Int {
        var games = 0
        for gameID in try queue.read({ db in
            try MoveRow.filter(MoveRow.Columns.replicaID == replicaID).select(MoveRow.Columns.gameID, as: String.self).distinct().fetchAll(db)
        }) {
            let through = try acknowledgedThrough(gameID: gameID, replicaID: replicaID)
            if through > 0, try resend(gameID: gameID, replicaID: replicaID, from: through) > 0 { games += 1 }
        }
        return games
    }

    // MARK: Snapshots

    public func saveSnapshot(gameID: String, zoneSeq: Int64, snapshot: Snapshot) throws {
        let row = SnapshotRow(gameID: gameID, zoneSeq: zoneSeq, body: JSONText.sorted(snapshot))
        try queue.write { db in try row.upsert(db) }
    }

    public func snapshot(gameID: String) throws -> (zoneSeq: Int64, snapshot: Snapshot)? {
        try queue.read { db in
            try SnapshotRow.fetchOne(db, key: gameID).map { ($0.zoneSeq, try Self.decode(Snapshot.self, $0.body, what: "snapshot")) }
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
