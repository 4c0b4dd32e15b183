import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

// The store: each account's feed of games added, changed and removed.
extension Store {
    static func appendFeed(_ db: any SQLConnection, authorID: String, gameID: String, state: FeedEntry.State) async throws {
        guard
            let row = try await db.first(
                "UPDATE accounts SET feed_seq = feed_seq + 1 WHERE author_id = ? RETURNING feed_seq",
                .text(authorID)), let sequence = row.int("feed_seq")
        else { return }
        try await db.execute(
            "INSERT INTO feed (author_id, seq, game_id, state) VALUES (?, ?, ?, ?)",
            .text(authorID), .integer(sequence), .text(gameID), .text(state.rawValue))
    }

    public func feed(authorID: String, after sequence: Int64, limit: Int) async throws -> [FeedEntry] {
        try await database.read { db in
            try await db.query(
                "SELECT game_id, state, seq FROM feed WHERE author_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                .text(authorID), .integer(sequence), .integer(Int64(limit))
            ).map {
                FeedEntry(
                    gameID: try $0.string("game_id"), state: FeedEntry.State(rawValue: try $0.string("state")) ?? .active,
                    sequence: try $0.integer("seq"))
            }
        }
    }

    public func feedSequence(authorID: String) async throws -> Int64 {
        try await database.read { db in
            try await db.first("SELECT feed_seq FROM accounts WHERE author_id = ?", .text(authorID))?.int("feed_seq") ?? 0
        }
    }
}
