/// The schema, as an append-only numbered list. A migration that has shipped is never edited:
/// changes go in a new one. Column types are BIGINT and TEXT only, which both engines share.
enum Migrations {
    static let all: [(version: Int64, statements: [String])] = [
        (
            1,
            [
                """
                CREATE TABLE accounts (
                    author_id TEXT PRIMARY KEY, display_name TEXT NOT NULL,
                    created_at BIGINT NOT NULL, feed_seq BIGINT NOT NULL DEFAULT 0)
                """,
                """
                CREATE TABLE devices (
                    device_id TEXT PRIMARY KEY, author_id TEXT NOT NULL REFERENCES accounts (author_id),
                    token_hash TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE link_codes (
                    code_hash TEXT PRIMARY KEY, author_id TEXT NOT NULL REFERENCES accounts (author_id),
                    expires_at BIGINT NOT NULL, used BIGINT NOT NULL DEFAULT 0)
                """,
                """
                CREATE TABLE games (
                    game_id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES accounts (author_id),
                    created_at BIGINT NOT NULL, zone_seq BIGINT NOT NULL, move_count BIGINT NOT NULL DEFAULT 0,
                    title TEXT NOT NULL, puzzle TEXT NOT NULL, completion TEXT)
                """,
                """
                CREATE TABLE records (
                    game_id TEXT NOT NULL REFERENCES games (game_id), zone_seq BIGINT NOT NULL,
                    record_type TEXT NOT NULL, record_key TEXT NOT NULL, body TEXT NOT NULL,
                    PRIMARY KEY (game_id, record_type, record_key))
                """,
                "CREATE INDEX records_by_sequence ON records (game_id, zone_seq)",
                """
                CREATE TABLE replica_heads (
                    game_id TEXT NOT NULL REFERENCES games (game_id), replica_id TEXT NOT NULL,
                    last_seq BIGINT NOT NULL, PRIMARY KEY (game_id, replica_id))
                """,
                """
                CREATE TABLE participants (
                    game_id TEXT NOT NULL REFERENCES games (game_id), author_id TEXT NOT NULL REFERENCES accounts (author_id),
                    role TEXT NOT NULL, revoked BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (game_id, author_id))
                """,
                "CREATE INDEX participants_by_author ON participants (author_id)",
                """
                CREATE TABLE snapshots (
                    game_id TEXT NOT NULL REFERENCES games (game_id), zone_seq BIGINT NOT NULL,
                    body TEXT NOT NULL, PRIMARY KEY (game_id, zone_seq))
                """,
                """
                CREATE TABLE invitations (
                    token_hash TEXT PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games (game_id),
                    created_by TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT, revoked BIGINT NOT NULL DEFAULT 0)
                """,
                """
                CREATE TABLE feed (
                    author_id TEXT NOT NULL REFERENCES accounts (author_id), seq BIGINT NOT NULL,
                    game_id TEXT NOT NULL, state TEXT NOT NULL, PRIMARY KEY (author_id, seq))
                """,
            ]
        ),
        // The puzzle (kilobytes of JSON) moves out of the games row: every write to a game
        // updates that row's sequence numbers, and SQLite rewrote the puzzle's overflow pages
        // with each update, several pages of log per move.
        (
            2,
            [
                "CREATE TABLE game_puzzles (game_id TEXT PRIMARY KEY REFERENCES games (game_id), puzzle TEXT NOT NULL)",
                "INSERT INTO game_puzzles (game_id, puzzle) SELECT game_id, puzzle FROM games",
                "ALTER TABLE games DROP COLUMN puzzle",
            ]
        ),
        // A removed player who leaves keeps their (revoked) row, so no invitation restores them.
        // Browsers open their socket with a short-lived single-use ticket instead of their token.
        (
            3,
            [
                "ALTER TABLE participants ADD COLUMN left_game BIGINT NOT NULL DEFAULT 0",
                """
                CREATE TABLE socket_tickets (
                    ticket_hash TEXT PRIMARY KEY, device_id TEXT NOT NULL, expires_at BIGINT NOT NULL)
                """,
                "CREATE INDEX devices_by_author ON devices (author_id)",
            ]
        ),
        // Presence per device (a lease and what it has shown), and each account's read horizon
        // per game, which only moves forward.
        (
            4,
            [
                """
                CREATE TABLE presence (
                    game_id TEXT NOT NULL REFERENCES games (game_id), device_id TEXT NOT NULL, author_id TEXT NOT NULL,
                    lease_until BIGINT NOT NULL, read_through BIGINT NOT NULL, PRIMARY KEY (game_id, device_id))
                """,
                "CREATE INDEX presence_by_author ON presence (author_id, game_id)",
                """
                CREATE TABLE horizons (
                    game_id TEXT NOT NULL REFERENCES games (game_id), author_id TEXT NOT NULL,
                    read_through BIGINT NOT NULL, PRIMARY KEY (game_id, author_id))
                """,
            ]
        ),
        // The account zone (an account's Decisions about other accounts, one per kind and key,
        // last writer wins, a deletion kept as a tombstone so an older write cannot revive it;
        // its Preferences) and nudges, written once.
        (
            5,
            [
                """
                CREATE TABLE decisions (
                    author_id TEXT NOT NULL REFERENCES accounts (author_id), kind TEXT NOT NULL, decision_key TEXT NOT NULL,
                    value TEXT NOT NULL, written_at BIGINT NOT NULL, written_by TEXT NOT NULL, deleted BIGINT NOT NULL DEFAULT 0,
                    PRIMARY KEY (author_id, kind, decision_key))
                """,
                """
                CREATE TABLE preferences (
                    author_id TEXT PRIMARY KEY REFERENCES accounts (author_id), color BIGINT, written_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE nudges (
                    game_id TEXT NOT NULL REFERENCES games (game_id), nudge_id TEXT NOT NULL, from_author TEXT NOT NULL,
                    message TEXT NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (game_id, nudge_id))
                """,
                "CREATE INDEX nudges_by_time ON nudges (game_id, created_at)",
            ]
        ),
        // Each device's last cursor in a game, stored at most every few seconds.
        (6, ["ALTER TABLE presence ADD COLUMN last_cursor TEXT"]),
        // A link code names the device that made it, so revoking that device voids its codes
        // (codes made before this knew no issuer: they go, and are made again in a moment).
        (
            7,
            [
                "DELETE FROM link_codes",
                "ALTER TABLE link_codes ADD COLUMN issued_by TEXT NOT NULL DEFAULT ''",
                "CREATE INDEX link_codes_by_issuer ON link_codes (issued_by)",
            ]
        ),
        // What the games list shows of each game (size, progress, the little picture), stored so
        // that a list reads rows instead of building every game's grid from its moves.
        (
            8,
            [
                """
                CREATE TABLE game_summaries (
                    game_id TEXT PRIMARY KEY REFERENCES games (game_id), width BIGINT NOT NULL, height BIGINT NOT NULL,
                    filled BIGINT NOT NULL, total BIGINT NOT NULL, picture TEXT NOT NULL, through_seq BIGINT NOT NULL)
                """
            ]
        ),
        // Devices whose moves the server made (browsers' hosted replicas): every move they have is
        // stored, so a finished game seals them at once and no replay waits for them.
        (9, ["ALTER TABLE devices ADD COLUMN browser BIGINT NOT NULL DEFAULT 0"]),
        // When each game last saw a move, so the list can put the game with news first (0 until
        // the game's summary is next written).
        (10, ["ALTER TABLE game_summaries ADD COLUMN active_at BIGINT NOT NULL DEFAULT 0"]),
        // Invitation links get a public name (the owner lists and revokes links without their
        // secret token) and are found by game; a link made before is named by its hash's start.
        (
            11,
            [
                "ALTER TABLE invitations ADD COLUMN link_id TEXT",
                "UPDATE invitations SET link_id = substr(token_hash, 1, 16)",
                "CREATE INDEX invitations_by_game ON invitations (game_id, created_at)",
            ]
        ),
        // Chat messages are records of the zone; the list counts a game's unread ones without
        // reading its moves.
        (12, ["CREATE INDEX records_messages ON records (game_id, zone_seq) WHERE record_type = 'message'"]),
        // What each finished game contributes to its players' stats, worked out once from its
        // history (as it finishes, or when first asked) and never again.
        (
            13,
            [
                """
                CREATE TABLE finished_games (
                    game_id TEXT PRIMARY KEY REFERENCES games (game_id), body TEXT NOT NULL)
                """
            ]
        ),
        // Web Push: each device's one subscription, when moves last called each player back to
        // each game, and the server's own secrets (its VAPID key), shared by every instance.
        (
            14,
            [
                """
                CREATE TABLE push_subscriptions (
                    device_id TEXT PRIMARY KEY, author_id TEXT NOT NULL, endpoint TEXT NOT NULL, p256dh TEXT NOT NULL,
                    auth TEXT NOT NULL, created_at BIGINT NOT NULL)
                """,
                "CREATE INDEX push_subscriptions_by_author ON push_subscriptions (author_id)",
                """
                CREATE TABLE call_backs (
                    author_id TEXT NOT NULL, game_id TEXT NOT NULL, called_at BIGINT NOT NULL, PRIMARY KEY (author_id, game_id))
                """,
                "CREATE TABLE server_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
            ]
        ),
        // The zone sequence at which each player joined: colours are handed out in joining order.
        // Players of older games keep 0 and sort by account id among themselves, as before.
        (15, ["ALTER TABLE participants ADD COLUMN joined BIGINT NOT NULL DEFAULT 0"]),
        // Whose each replica is: a player's moves in a game are the sum of their replicas' heads
        // (seqs run from 1 without gaps), bounded per player; a removed player's leave the
        // game's count. Replicas of devices since revoked stay unattributed.
        (
            16,
            [
                "ALTER TABLE replica_heads ADD COLUMN author_id TEXT NOT NULL DEFAULT ''",
                """
                UPDATE replica_heads SET author_id = COALESCE((SELECT d.author_id FROM devices d WHERE d.device_id = replica_heads.replica_id), '')
                """,
            ]
        ),
        // Link codes are short (LinkCode) and one per account: a new one replaces the account's
        // last, found by its account. Long codes made before this go (a new one takes a moment).
        (
            17,
            [
                "DELETE FROM link_codes",
                "CREATE INDEX link_codes_by_author ON link_codes (author_id)",
            ]
        ),
    ]

    /// The newest schema this build knows: a database recording a later one was written by a
    /// newer Crossmate, and is refused (`SchemaTooNew`).
    static let newestVersion = all.map(\.version).max() ?? 0

    /// The table that records which migrations a database has had.
    static let ledger = "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)"

    /// Applies every migration not yet recorded (up to `version`), each in its own transaction;
    /// throws `SchemaTooNew`, changing nothing, for a database a newer build has migrated.
    /// Returns the schema version found and the one left.
    @discardableResult
    static func run(on database: any SQLDatabase, now: Int64, through version: Int64 = .max) async throws -> SchemaChange {
        let lock = database.migrationLock
        let found = try await database.unhurriedTransaction { connection -> Int64 in
            if let lock { _ = try await connection.query(lock) }
            try await connection.execute(ledger)
            let newest = try await connection.first("SELECT MAX(version) AS newest FROM schema_migrations")?.int("newest") ?? 0
            if newest > newestVersion { throw SchemaTooNew(found: newest) }
            return newest
        }
        for migration in all where migration.version <= version {
            try await database.unhurriedTransaction { connection in
                if let lock { _ = try await connection.query(lock) }
                let applied = try await connection.first(
                    "SELECT version FROM schema_migrations WHERE version = ?\(database.forUpdate)", .integer(migration.version))
                guard applied == nil else { return }
                for statement in migration.statements { try await connection.execute(statement) }
                try await connection.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    .integer(migration.version), .integer(now))
            }
        }
        return SchemaChange(found: found, now: min(version, newestVersion))
    }
}

/// What bringing the schema up to date did: the version the database recorded before, and the one
/// it records now (the same when nothing was to be done).
public struct SchemaChange: Sendable, Equatable {
    public var found: Int64
    public var now: Int64
}
