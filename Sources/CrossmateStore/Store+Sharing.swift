import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

// The store: invitation links and players joining or being removed.
extension Store {
    public func createInvitation(
        tokenHash: String, linkID: String, gameID: String, createdBy: String, now: Int64, expiresAt: Int64?
    ) async throws {
        try await database.transaction { db in
            try await db.execute(
                """
                INSERT INTO invitations (token_hash, link_id, game_id, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
                """, .text(tokenHash), .text(linkID), .text(gameID), .text(createdBy), .integer(now),
                expiresAt.map(SQLValue.integer) ?? .null)
        }
    }

    private static let invitationColumns = "link_id, game_id, created_by, created_at, expires_at, revoked"

    static func invitation(_ row: SQLRow) throws -> StoredInvitation {
        StoredInvitation(
            linkID: try row.string("link_id"), gameID: try row.string("game_id"), createdBy: try row.string("created_by"),
            createdAt: try row.integer("created_at"), expiresAt: row.int("expires_at"), revoked: row.bool("revoked"))
    }

    public func invitation(tokenHash: String) async throws -> StoredInvitation? {
        try await database.read { db in
            try await db.first("SELECT \(Self.invitationColumns) FROM invitations WHERE token_hash = ?", .text(tokenHash))
                .map(Self.invitation)
        }
    }

    /// The game's links that still work at `now`, oldest first (at most `limit`).
    public func liveInvitations(gameID: String, now: Int64, limit: Int) async throws -> [StoredInvitation] {
        try await database.read { db in
            try await db.query(
                """
                SELECT \(Self.invitationColumns) FROM invitations
                WHERE game_id = ? AND revoked = 0 AND (expires_at IS NULL OR expires_at > ?)
                ORDER BY created_at, link_id LIMIT ?
                """, .text(gameID), .integer(now), .integer(Int64(limit))
            ).map(Self.invitation)
        }
    }

    public func revokeInvitation(tokenHash: String) async throws {
        try await database.transaction { db in
            try await db.execute("UPDATE invitations SET revoked = 1 WHERE token_hash = ?", .text(tokenHash))
        }
    }

    /// A player who leaves or is removed takes their links with them, for good.
    static func revokeInvitations(_ db: any SQLConnection, gameID: String, createdBy: String) async throws {
        try await db.execute(
            "UPDATE invitations SET revoked = 1 WHERE game_id = ? AND created_by = ? AND revoked = 0", .text(gameID), .text(createdBy))
    }

    /// Revokes the game's link of that name; false when the game has none.
    public func revokeInvitation(gameID: String, linkID: String) async throws -> Bool {
        try await database.transaction { db in
            guard try await db.first("SELECT 1 FROM invitations WHERE game_id = ? AND link_id = ?", .text(gameID), .text(linkID)) != nil
            else { return false }
            try await db.execute("UPDATE invitations SET revoked = 1 WHERE game_id = ? AND link_id = ?", .text(gameID), .text(linkID))
            return true
        }
    }

    /// Adds a participant (or removes one, with `revoked`) and records it in the zone and their
    /// feed. A removal is for good: nothing written here takes it back.
    public func setParticipant(_ participant: ParticipantRecord, feedState: FeedEntry.State) async throws -> Int64 {
        let forUpdate = database.forUpdate
        return try await database.transaction { db in
            let sequence = try await Self.nextSequence(db, gameID: participant.gameID, forUpdate: forUpdate)
            // A player keeps the place they joined at through every later change (colours).
            var participant = participant
            let kept = try await db.first(
                "SELECT joined, revoked FROM participants WHERE game_id = ? AND author_id = ?", .text(participant.gameID), .text(participant.authorID)
            )
            participant.joined = kept?.int("joined") ?? sequence
            // A removed player's moves stay in the game's history but leave its count: the
            // game's cap bounds what its players can do, and a filler removed frees it again.
            if participant.revoked, let kept, !kept.bool("revoked"),
                let moves = try await db.first(
                    "SELECT CAST(COALESCE(SUM(last_seq), 0) AS BIGINT) AS moves FROM replica_heads WHERE game_id = ? AND author_id = ?",
                    .text(participant.gameID),
                    .text(participant.authorID))?.int("moves"), moves > 0
            {
                try await db.execute(
                    "UPDATE games SET move_count = CASE WHEN move_count > ? THEN move_count - ? ELSE 0 END WHERE game_id = ?", .integer(moves),
                    .integer(moves), .text(participant.gameID))
            }
            try await db.execute(
                """
                INSERT INTO participants (game_id, author_id, role, revoked, joined) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (game_id, author_id) DO UPDATE SET role = excluded.role,
                    revoked = CASE WHEN participants.revoked = 1 THEN 1 ELSE excluded.revoked END
                """, .text(participant.gameID), .text(participant.authorID), .text(participant.role.rawValue), SQLValue(participant.revoked),
                .integer(participant.joined ?? sequence))
            if participant.revoked { try await Self.revokeInvitations(db, gameID: participant.gameID, createdBy: participant.authorID) }
            try await Self.putRecord(db, gameID: participant.gameID, sequence: sequence, .participant(participant))
            try await Self.appendFeed(db, authorID: participant.authorID, gameID: participant.gameID, state: feedState)
            return sequence
        }
    }

    public func participants(gameID: String) async throws -> [StoredParticipant] {
        try await database.read { db in
            try await db.query(
                """
                SELECT \(Self.participantColumns) FROM participants p
                JOIN accounts a ON a.author_id = p.author_id WHERE p.game_id = ? ORDER BY p.joined, p.author_id
                """, .text(gameID)
            ).map(Self.storedParticipant)
        }
    }
}
