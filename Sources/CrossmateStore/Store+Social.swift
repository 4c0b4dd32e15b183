import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

// The store: the account zone (decisions, preferred colour), friends and nudges.
extension Store {
    /// Writes a Decision (or, with `deleted`, clears it) unless a later write is already stored:
    /// last writer wins by (`writtenAt`, `writtenBy`). Returns whether this write won. A new key
    /// must be an account `authorID` has played with, and an account holds at most
    /// `maximumDecisions` (tombstones included); otherwise `StoreRefusal`.
    @discardableResult
    public func putDecision(_ decision: StoredDecision, maximumDecisions: Int = .max) async throws -> Bool {
        try await database.transaction { db in
            if let row = try await db.first(
                "SELECT written_at, written_by FROM decisions WHERE author_id = ? AND kind = ? AND decision_key = ?\(self.database.forUpdate)",
                .text(decision.authorID), .text(decision.kind), .text(decision.key))
            {
                let stored = (try row.integer("written_at"), try row.string("written_by"))
                guard (decision.writtenAt, decision.writtenBy) > stored else { return false }
            } else {
                // A decision about another account needs a game together; a setting is about no one.
                if decision.kind != DecisionKind.setting.rawValue {
                    guard
                        try await db.first(
                            """
                            SELECT 1 FROM participants mine JOIN participants other ON other.game_id = mine.game_id
                            WHERE mine.author_id = ? AND other.author_id = ? LIMIT 1
                            """, .text(decision.authorID), .text(decision.key)) != nil
                    else { throw StoreRefusal.notPlayedWith }
                }
                let held =
                    try await db.first("SELECT COUNT(*) AS held FROM decisions WHERE author_id = ?", .text(decision.authorID))?.int("held") ?? 0
                guard held < maximumDecisions else { throw StoreRefusal.tooManyDecisions(maximum: maximumDecisions) }
            }
            try await db.execute(
                """
                INSERT INTO decisions (author_id, kind, decision_key, value, written_at, written_by, deleted) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (author_id, kind, decision_key) DO UPDATE SET value = excluded.value, written_at = excluded.written_at,
                    written_by = excluded.written_by, deleted = excluded.deleted
                """, .text(decision.authorID), .text(decision.kind), .text(decision.key), .text(decision.value),
                .integer(decision.writtenAt), .text(decision.writtenBy), .integer(decision.deleted ? 1 : 0))
            return true
        }
    }

    /// The account's Decisions in force (tombstones left out).
    public func decisions(of authorID: String) async throws -> [StoredDecision] {
        try await database.read { db in
            try await db.query(
                "SELECT kind, decision_key, value, written_at, written_by FROM decisions WHERE author_id = ? AND deleted = 0 ORDER BY kind, decision_key",
                .text(authorID)
            ).map {
                StoredDecision(
                    authorID: authorID, kind: try $0.string("kind"), key: try $0.string("decision_key"), value: try $0.string("value"),
                    writtenAt: try $0.integer("written_at"), writtenBy: try $0.string("written_by"))
            }
        }
    }

    /// Sets the account's preferred colour (nil clears it); the later write wins.
    public func putPreferredColor(_ color: Int?, authorID: String, writtenAt: Int64) async throws {
        try await database.transaction { db in
            let stored = try await db.first("SELECT written_at FROM preferences WHERE author_id = ?\(self.database.forUpdate)", .text(authorID))?.int(
                "written_at")
            guard stored.map({ writtenAt > $0 }) ?? true else { return }
            try await db.execute(
                """
                INSERT INTO preferences (author_id, color, written_at) VALUES (?, ?, ?)
                ON CONFLICT (author_id) DO UPDATE SET color = excluded.color, written_at = excluded.written_at
                """, .text(authorID), color.map { .integer(Int64($0)) } ?? .null, .integer(writtenAt))
        }
    }

    public func preferredColor(of authorID: String) async throws -> Int? {
        try await database.read { db in
            try await db.first("SELECT color FROM preferences WHERE author_id = ?", .text(authorID))?.int("color").map { Int($0) }
        }
    }

    /// The accounts `authorID` has played with: their name, how many games together and when
    /// the last of them was created.
    public func friends(of authorID: String) async throws -> [StoredFriend] {
        try await database.read { db in
            try await db.query(
                """
                SELECT other.author_id, a.display_name, COUNT(*) AS games_together, MAX(g.created_at) AS last_played
                FROM participants mine JOIN participants other ON other.game_id = mine.game_id AND other.author_id <> mine.author_id
                JOIN accounts a ON a.author_id = other.author_id JOIN games g ON g.game_id = mine.game_id
                WHERE mine.author_id = ? GROUP BY other.author_id, a.display_name ORDER BY MAX(g.created_at) DESC, other.author_id
                """, .text(authorID)
            ).map {
                StoredFriend(
                    authorID: try $0.string("author_id"), displayName: try $0.string("display_name"),
                    gamesTogether: Int(try $0.integer("games_together")),
                    lastPlayed: try $0.integer("last_played"))
            }
        }
    }

    /// Stores a nudge (written once: the same id again changes nothing).
    public func putNudge(_ nudge: StoredNudge) async throws {
        try await database.transaction { db in
            try await db.execute(
                """
                INSERT INTO nudges (game_id, nudge_id, from_author, message, created_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (game_id, nudge_id) DO NOTHING
                """, .text(nudge.gameID), .text(nudge.nudgeID), .text(nudge.fromAuthor), .text(nudge.message), .integer(nudge.createdAt))
        }
    }

    /// A game's nudges since `since`, newest first, at most `limit`.
    public func nudges(gameID: String, since: Int64, limit: Int = 20) async throws -> [StoredNudge] {
        try await database.read { db in
            try await db.query(
                """
                SELECT nudge_id, from_author, message, created_at FROM nudges WHERE game_id = ? AND created_at >= ?
                ORDER BY created_at DESC, nudge_id LIMIT ?
                """, .text(gameID), .integer(since), .integer(Int64(limit))
            ).map {
                StoredNudge(
                    gameID: gameID, nudgeID: try $0.string("nudge_id"), fromAuthor: try $0.string("from_author"), message: try $0.string("message"),
                    createdAt: try $0.integer("created_at"))
            }
        }
    }
}
