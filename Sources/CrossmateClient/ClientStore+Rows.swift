import CrossmateSync
import GRDB

// The local store's tables as GRDB records: each table's columns are named once, here, and a
// row is decoded once into its typed value (`ClientStore` turns them into the engine's types).

/// The one row saying who this device is (`only` is always 1).
struct IdentityRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "identity"
    var only = 1
    var serverURL: String
    var authorID: String
    var deviceID: String
    var token: String
    var displayName: String

    enum CodingKeys: String, CodingKey {
        case only, token
        case serverURL = "server_url"
        case authorID = "author_id"
        case deviceID = "device_id"
        case displayName = "display_name"
    }
}

/// A game: its record (JSON), its title, and what this device learned of it.
struct GameRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "games"
    var gameID: String
    var record: String
    var title: String
    var readOnly = false
    var changeToken: String?
    var sealed = false

    enum CodingKeys: String, CodingKey {
        case record, title, sealed
        case gameID = "game_id"
        case readOnly = "read_only"
        case changeToken = "change_token"
    }

    enum Columns {
        static let gameID = Column(CodingKeys.gameID)
        static let record = Column(CodingKeys.record)
        static let title = Column(CodingKeys.title)
        static let readOnly = Column(CodingKeys.readOnly)
        static let changeToken = Column(CodingKeys.changeToken)
        static let sealed = Column(CodingKeys.sealed)
    }
}

/// A move this device knows (its body is the record's stored JSON), and where it stands in
/// this device's outbox. Read and written by hand rather than through Codable: moves pass by
/// the thousand in a catch-up, and the coder's reflection was a tenth of it.
struct MoveRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "moves"
    var gameID: String
    var replicaID: String
    var seq: Int
    var body: String
    var pending: Outbox

    /// Where a move stands: the server holds it, it waits to be sent, or the server refused it for
    /// good (it stays known, out of the outbox).
    enum Outbox: Int, Codable, DatabaseValueConvertible {
        case held = 0
        case waiting = 1
        case refused = 2
    }

    enum Columns {
        static let gameID = Column("game_id")
        static let replicaID = Column("replica_id")
        static let seq = Column("seq")
        static let body = Column("body")
        static let pending = Column("pending")
    }

    /// The outbox's moves. The state is written into the SQL, not bound: only then can SQLite
    /// use the partial index on waiting moves (`moves_pending`), and an outbox stays cheap to
    /// read however many moves a game has.
    static let isWaiting = SQL(sql: "\(Columns.pending.name) = \(Outbox.waiting.rawValue)")

    init(gameID: String, replicaID: String, seq: Int, body: String, pending: Outbox) {
        self.gameID = gameID
        self.replicaID = replicaID
        self.seq = seq
        self.body = body
        self.pending = pending
    }

    init(row: Row) throws {
        gameID = row[Columns.gameID]
        replicaID = row[Columns.replicaID]
        seq = row[Columns.seq]
        body = row[Columns.body]
        pending = row[Columns.pending]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.gameID] = gameID
        container[Columns.replicaID] = replicaID
        container[Columns.seq] = seq
        container[Columns.body] = body
        container[Columns.pending] = pending
    }

    /// Stores the move; one already known keeps the lower outbox state (held beats waiting, and
    /// a refusal is not undone by the move coming back). One cached statement, as moves pass by
    /// the thousand.
    func store(_ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO \(Self.databaseTableName) (\(Columns.gameID.name), \(Columns.replicaID.name), \(Columns.seq.name), \(Columns.body.name), \(Columns.pending.name))
                VALUES (?, ?, ?, ?, ?) ON CONFLICT (\(Columns.gameID.name), \(Columns.replicaID.name), \(Columns.seq.name))
                DO UPDATE SET \(Columns.pending.name) = min(\(Columns.pending.name), excluded.\(Columns.pending.name))
                """)
        try statement.execute(arguments: [gameID, replicaID, seq, body, pending])
    }
}

/// A game's latest snapshot (JSON) and the zone sequence it folds in.
struct SnapshotRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "snapshots"
    var gameID: String
    var zoneSeq: Int64
    var body: String

    enum CodingKeys: String, CodingKey {
        case body
        case gameID = "game_id"
        case zoneSeq = "zone_seq"
    }
}

/// A game's participant record (JSON) as the server last sent it.
struct ParticipantRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "participants"
    var gameID: String
    var authorID: String
    var record: String

    enum CodingKeys: String, CodingKey {
        case record
        case gameID = "game_id"
        case authorID = "author_id"
    }

    enum Columns {
        static let gameID = Column(CodingKeys.gameID)
        static let authorID = Column(CodingKeys.authorID)
    }
}

/// A device's seal in a game.
struct SealRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "seals"
    var gameID: String
    var replicaID: String
    var lastSeq: Int

    enum CodingKeys: String, CodingKey {
        case gameID = "game_id"
        case replicaID = "replica_id"
        case lastSeq = "last_seq"
    }

    enum Columns {
        static let gameID = Column(CodingKeys.gameID)
        static let replicaID = Column(CodingKeys.replicaID)
        static let lastSeq = Column(CodingKeys.lastSeq)
    }
}

/// A player's pause in a game.
struct PauseRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pauses"
    var gameID: String
    var replicaID: String
    var at: Int64
    var authorID: String

    enum CodingKeys: String, CodingKey {
        case at
        case gameID = "game_id"
        case replicaID = "replica_id"
        case authorID = "author_id"
    }

    enum Columns {
        static let gameID = Column(CodingKeys.gameID)
        static let at = Column(CodingKeys.at)
    }
}

/// One of the device's settings.
struct SettingRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "settings"
    var key: String
    var value: String

    static let serverOffsetMillis = "server_offset_millis"
    static let checkedRestore = "checked_restore"
}

/// A chat message this device knows: heard from the server (with its zone sequence), or
/// written here and waiting to be sent, or refused for good (it stays, marked, so nothing the
/// player typed disappears without a word).
struct MessageRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "messages"
    var gameID: String
    var replicaID: String
    var messageID: String
    var authorID: String
    var text: String
    var wallMillis: Int64
    var counter: Int
    var zoneSeq: Int64?
    var pending: MoveRow.Outbox
    /// Why the server refused it (refused messages only).
    var refusal: String?

    enum CodingKeys: String, CodingKey {
        case text, counter, pending, refusal
        case gameID = "game_id"
        case replicaID = "replica_id"
        case messageID = "message_id"
        case authorID = "author_id"
        case wallMillis = "wall_millis"
        case zoneSeq = "zone_seq"
    }

    enum Columns {
        static let gameID = Column(CodingKeys.gameID)
        static let replicaID = Column(CodingKeys.replicaID)
        static let messageID = Column(CodingKeys.messageID)
        static let zoneSeq = Column(CodingKeys.zoneSeq)
        static let pending = Column(CodingKeys.pending)
        static let refusal = Column(CodingKeys.refusal)
    }

    init(_ message: ChatMessage, sequence: Int64?, pending: MoveRow.Outbox) {
        gameID = message.gameID
        replicaID = message.replicaID
        messageID = message.messageID
        authorID = message.authorID
        text = message.text
        wallMillis = message.timestamp.wallMillis
        counter = Int(message.timestamp.counter)
        zoneSeq = sequence
        self.pending = pending
    }

    var message: ChatMessage {
        ChatMessage(
            gameID: gameID, authorID: authorID, replicaID: replicaID, messageID: messageID, text: text,
            timestamp: HLCTimestamp(wallMillis: wallMillis, counter: UInt16(clamping: counter)))
    }
}

/// An emoji reaction this device knows (the one that decides for its author, message and
/// emoji), and whether it waits to be sent.
struct ReactionRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "reactions"
    var gameID: String
    var authorID: String
    var messageKey: String
    var emoji: String
    var on: Bool
    var wallMillis: Int64
    var counter: Int
    var pending: MoveRow.Outbox

    enum CodingKeys: String, CodingKey {
        case emoji, on, counter, pending
        case gameID = "game_id"
        case authorID = "author_id"
        case messageKey = "message_key"
        case wallMillis = "wall_millis"
    }

    enum Columns {
        static let gameID = Column(CodingKeys.gameID)
        static let pending = Column(CodingKeys.pending)
    }

    init(_ reaction: Reaction, pending: MoveRow.Outbox) {
        gameID = reaction.gameID
        authorID = reaction.authorID
        messageKey = reaction.messageKey
        emoji = reaction.emoji
        on = reaction.on
        wallMillis = reaction.timestamp.wallMillis
        counter = Int(reaction.timestamp.counter)
        self.pending = pending
    }

    var reaction: Reaction {
        Reaction(
            gameID: gameID, authorID: authorID, messageKey: messageKey, emoji: emoji, on: on,
            timestamp: HLCTimestamp(wallMillis: wallMillis, counter: UInt16(clamping: counter)))
    }
}

/// A clue flag this device knows (the one that decides for its author and clue), and whether it
/// waits to be sent. Kept as the record's JSON: flags are few.
struct FlagRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "flags"
    var gameID: String
    var key: String
    var body: String
    var pending: MoveRow.Outbox

    enum CodingKeys: String, CodingKey {
        case key, body, pending
        case gameID = "game_id"
    }

    enum Columns {
        static let gameID = Column(CodingKeys.gameID)
    }
}
