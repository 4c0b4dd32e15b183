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
/// this device's outbox.
struct MoveRow: Codable, FetchableRecord, PersistableRecord {
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

    enum CodingKeys: String, CodingKey {
        case seq, body, pending
        case gameID = "game_id"
        case replicaID = "replica_id"
    }

    enum Columns {
        static let gameID = Column(CodingKeys.gameID)
        static let replicaID = Column(CodingKeys.replicaID)
        static let seq = Column(CodingKeys.seq)
        static let body = Column(CodingKeys.body)
        static let pending = Column(CodingKeys.pending)
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
}
