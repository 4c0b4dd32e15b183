import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

// The store: devices' presence, last cursors and the accounts' read horizons.
extension Store {
    /// Stores a device's presence (lease and read-through, read-through never backward) and
    /// raises the account's horizon to it. Returns the horizon as it was before: a device
    /// entering takes the catch-up from there, and after this call no sibling device gets it.
    @discardableResult
    public func putPresence(_ presence: DevicePresence) async throws -> Int64 {
        try await database.transaction { db in
            try await db.execute(
                """
                INSERT INTO presence (game_id, device_id, author_id, lease_until, read_through) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (game_id, device_id) DO UPDATE SET lease_until = excluded.lease_until,
                    read_through = CASE WHEN presence.read_through > excluded.read_through THEN presence.read_through ELSE excluded.read_through END
                """, .text(presence.gameID), .text(presence.deviceID), .text(presence.authorID), .integer(presence.leaseUntil),
                .integer(presence.readThrough))
            let previous =
                try await db.first(
                    "SELECT read_through FROM horizons WHERE game_id = ? AND author_id = ?\(self.database.forUpdate)", .text(presence.gameID),
                    .text(presence.authorID))?.int("read_through") ?? 0
            if presence.readThrough > previous {
                try await db.execute(
                    """
                    INSERT INTO horizons (game_id, author_id, read_through) VALUES (?, ?, ?)
                    ON CONFLICT (game_id, author_id) DO UPDATE SET read_through = excluded.read_through
                    """, .text(presence.gameID), .text(presence.authorID), .integer(presence.readThrough))
            }
            return previous
        }
    }

    /// Stores a device's last cursor in a game, beside its presence.
    public func putCursor(gameID: String, deviceID: String, authorID: String, cursor: CursorPosition) async throws {
        try await database.transaction { db in
            try await db.execute(
                """
                INSERT INTO presence (game_id, device_id, author_id, lease_until, read_through, last_cursor) VALUES (?, ?, ?, 0, 0, ?)
                ON CONFLICT (game_id, device_id) DO UPDATE SET last_cursor = excluded.last_cursor
                """, .text(gameID), .text(deviceID), .text(authorID), .text(Self.json(cursor)))
        }
    }

    /// The last cursors stored for a game's devices: device, account and cursor (one that does
    /// not decode is skipped: a cursor is a hint, not a record).
    public func cursors(gameID: String) async throws -> [(deviceID: String, authorID: String, cursor: CursorPosition)] {
        try await database.read { db in
            try await db.query(
                "SELECT device_id, author_id, last_cursor FROM presence WHERE game_id = ? AND last_cursor IS NOT NULL ORDER BY device_id",
                .text(gameID)
            ).compactMap { row in
                (try? JSONDecoder().decode(CursorPosition.self, from: Data((row.text("last_cursor") ?? "").utf8))).flatMap { cursor in
                    row.text("device_id").flatMap { device in row.text("author_id").map { (device, $0, cursor) } }
                }
            }
        }
    }

    /// The presence records of an account's devices in a game.
    public func presence(gameID: String, authorID: String) async throws -> [DevicePresence] {
        try await database.read { db in
            try await db.query(
                "SELECT device_id, lease_until, read_through FROM presence WHERE game_id = ? AND author_id = ? ORDER BY device_id",
                .text(gameID), .text(authorID)
            ).map {
                DevicePresence(
                    gameID: gameID, deviceID: try $0.string("device_id"), authorID: authorID, leaseUntil: try $0.integer("lease_until"),
                    readThrough: try $0.integer("read_through"))
            }
        }
    }

    /// One device's presence in a game, if it has any.
    public func presence(gameID: String, deviceID: String) async throws -> DevicePresence? {
        try await database.read { db in
            try await db.first(
                "SELECT author_id, lease_until, read_through FROM presence WHERE game_id = ? AND device_id = ?", .text(gameID),
                .text(deviceID)
            ).map {
                DevicePresence(
                    gameID: gameID, deviceID: deviceID, authorID: try $0.string("author_id"), leaseUntil: try $0.integer("lease_until"),
                    readThrough: try $0.integer("read_through"))
            }
        }
    }

    /// The zone sequence of the newest move after `sequence` that `authorID` did not make, if
    /// any: read newest first, so it stops at the first (usually the first read), and reads only
    /// what came after the account's horizon.
    public func latestMove(gameID: String, after sequence: Int64, notBy authorID: String) async throws -> Int64? {
        var before = Int64.max
        while true {
            let below = before
            let page = try await database.read { db in
                try await db.query(
                    """
                    SELECT zone_seq, body FROM records WHERE game_id = ? AND record_type = 'move' AND zone_seq > ? AND zone_seq < ?
                    ORDER BY zone_seq DESC LIMIT 200
                    """, .text(gameID), .integer(sequence), .integer(below)
                ).map { (try $0.integer("zone_seq"), try $0.string("body")) }
            }
            for (zoneSeq, body) in page {
                let record = try Self.decode(MoveRecord.self, body, what: "move at \(zoneSeq)", gameID: gameID)
                if record.authorID != authorID { return zoneSeq }
            }
            guard page.count == 200, let last = page.last else { return nil }
            before = last.0
        }
    }

    /// The account's read horizon in a game (0 before any device showed it).
    public func horizon(gameID: String, authorID: String) async throws -> Int64 {
        try await database.read { db in
            try await db.first("SELECT read_through FROM horizons WHERE game_id = ? AND author_id = ?", .text(gameID), .text(authorID))?
                .int("read_through") ?? 0
        }
    }

    /// Renames an account; its games (the participant rows, to be republished) are returned.
    public func renameAccount(authorID: String, displayName: String) async throws -> [StoredParticipant] {
        try await database.transaction { db in
            try await db.execute("UPDATE accounts SET display_name = ? WHERE author_id = ?", .text(displayName), .text(authorID))
            return try await db.query(
                """
                SELECT \(Self.participantColumns) FROM participants p
                JOIN accounts a ON a.author_id = p.author_id WHERE p.author_id = ? AND p.left_game = 0 ORDER BY p.game_id
                """, .text(authorID)
            ).map(Self.storedParticipant)
        }
    }
}
