import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

// The store: games, their list summaries and who may read or write them.
extension Store {
    /// Creates a game zone with its Game and owner Participant records, and feeds it to the owner.
    public func createGame(
        _ game: GameRecord, title: String, owner: ParticipantRecord, summary: StoredGameSummary? = nil
    ) async throws -> Int64 {
        try await database.transaction { db in
            try await db.execute(
                """
                INSERT INTO games (game_id, owner_id, created_at, zone_seq, title) VALUES (?, ?, ?, 2, ?)
                """, .text(game.gameID), .text(game.ownerID), .integer(game.createdAt), .text(title))
            if let summary { try await Self.putSummary(db, gameID: game.gameID, summary) }
            try await db.execute("INSERT INTO game_puzzles (game_id, puzzle) VALUES (?, ?)", .text(game.gameID), .text(Self.json(game.puzzle)))
            try await Self.putRecord(db, gameID: game.gameID, sequence: 1, .game(game))
            try await Self.putRecord(db, gameID: game.gameID, sequence: 2, .participant(owner))
            try await db.execute(
                "INSERT INTO participants (game_id, author_id, role) VALUES (?, ?, ?)",
                .text(game.gameID), .text(owner.authorID), .text(owner.role.rawValue))
            try await Self.appendFeed(db, authorID: owner.authorID, gameID: game.gameID, state: .active)
            return 2
        }
    }

    /// Stores what the games list shows of a game, unless a summary of a later sequence is
    /// already stored.
    public func putSummary(gameID: String, _ summary: StoredGameSummary) async throws {
        try await putSummaries([gameID: summary])
    }

    /// Stores several games' summaries in one transaction (one sync of the log for all).
    public func putSummaries(_ summaries: [String: StoredGameSummary]) async throws {
        guard !summaries.isEmpty else { return }
        try await database.transaction { db in
            for (gameID, summary) in summaries { try await Self.putSummary(db, gameID: gameID, summary) }
        }
    }

    static func putSummary(_ db: any SQLConnection, gameID: String, _ summary: StoredGameSummary) async throws {
        try await db.execute(
            """
            INSERT INTO game_summaries (game_id, width, height, filled, total, picture, through_seq, active_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (game_id) DO UPDATE SET filled = excluded.filled, total = excluded.total, picture = excluded.picture,
                through_seq = excluded.through_seq, active_at = excluded.active_at WHERE game_summaries.through_seq <= excluded.through_seq
            """, .text(gameID), .integer(Int64(summary.width)), .integer(Int64(summary.height)), .integer(Int64(summary.filled)),
            .integer(Int64(summary.total)), .text(summary.picture), .integer(summary.throughSequence), .integer(summary.activeAt))
    }

    public func game(_ gameID: String) async throws -> StoredGame? {
        try await database.read { db in
            try await db.first(
                """
                SELECT g.game_id, g.owner_id, g.created_at, g.zone_seq, g.move_count, g.title, gp.puzzle, g.completion
                FROM games g JOIN game_puzzles gp ON gp.game_id = g.game_id WHERE g.game_id = ?
                """, .text(gameID)
            ).map { try Self.storedGame($0) }
        }
    }

    /// A game's title and owner, without its puzzle (what an invitation's preview shows).
    public func gameHeading(_ gameID: String) async throws -> (title: String, ownerID: String)? {
        try await database.read { db in
            try await db.first("SELECT title, owner_id FROM games WHERE game_id = ?", .text(gameID)).map { ($0.text(0)!, $0.text(1)!) }
        }
    }

    static func storedGame(_ row: SQLRow) throws -> StoredGame {
        let gameID = row.text(0)!
        return StoredGame(
            gameID: gameID, ownerID: row.text(1)!, createdAt: row.int(2)!, zoneSeq: row.int(3)!,
            moveCount: row.int(4)!, title: row.text(5)!, puzzleJSON: row.text(6)!,
            completion: try row.text(7).map { try decode(CompletionRecord.self, $0, what: "completion", gameID: gameID) })
    }

    /// The game and the author's participation in it, in one query.
    public func access(gameID: String, authorID: String) async throws -> (StoredGame, StoredParticipant?)? {
        try await database.read { db in
            try await db.first(
                """
                SELECT g.game_id, g.owner_id, g.created_at, g.zone_seq, g.move_count, g.title, gp.puzzle, g.completion,
                       \(Self.participantColumns)
                FROM games g JOIN game_puzzles gp ON gp.game_id = g.game_id LEFT JOIN participants p ON p.game_id = g.game_id AND p.author_id = ?
                LEFT JOIN accounts a ON a.author_id = p.author_id WHERE g.game_id = ?
                """, .text(authorID), .text(gameID)
            ).map { row in
                let game = try Self.storedGame(SQLRow(Array(row.values[0..<8])))
                let participant = row.text(8) == nil ? nil : Self.storedParticipant(SQLRow(Array(row.values[8...])))
                return (game, participant)
            }
        }
    }

    public func participant(gameID: String, authorID: String) async throws -> StoredParticipant? {
        try await database.read { db in
            try await db.first(
                """
                SELECT \(Self.participantColumns) FROM participants p
                JOIN accounts a ON a.author_id = p.author_id WHERE p.game_id = ? AND p.author_id = ?
                """, .text(gameID), .text(authorID)
            ).map(Self.storedParticipant)
        }
    }

    /// Which of `gameIDs` the author may read (a participant who has not left), in one query
    /// per 64 games.
    public func readableGames(of authorID: String, among gameIDs: [String]) async throws -> Set<String> {
        try await database.read { db in
            var readable: Set<String> = []
            for chunk in GroupAppend.chunks(Array(Set(gameIDs)).sorted()) {
                for row in try await db.query(
                    """
                    SELECT game_id FROM participants WHERE author_id = ? AND left_game = 0 AND game_id IN (\(GroupAppend.placeholders(chunk.count)))
                    """, [.text(authorID)] + chunk.map(SQLValue.text))
                {
                    readable.insert(row.text(0)!)
                }
            }
            return readable
        }
    }

    /// A participant's columns as `storedParticipant` reads them (`p` the participants row, `a`
    /// the account, for the display name).
    static let participantColumns = "p.game_id, p.author_id, a.display_name, p.role, p.revoked, p.left_game"

    static func storedParticipant(_ row: SQLRow) -> StoredParticipant {
        StoredParticipant(
            gameID: row.text(0)!, authorID: row.text(1)!, displayName: row.text(2)!,
            role: ParticipantRecord.Role(rawValue: row.text(3)!) ?? .player, revoked: row.bool(4), hasLeft: row.bool(5))
    }

    /// The games an account takes part in (including ones it was removed from, now read-only),
    /// newest first: at most `limit`, after the game `after` (created at, game ID) when given.
    public func games(
        of authorID: String, after: (createdAt: Int64, gameID: String)? = nil,
        limit: Int = 100
    ) async throws -> [(StoredGame, StoredParticipant, StoredGameSummary?)] {
        let createdAt = after?.createdAt ?? .max
        let gameID = after?.gameID ?? ""
        return try await database.read { db in
            // A game with a stored summary is listed without its puzzle (the puzzle of a large
            // grid is megabytes); one without (made before summaries were kept) brings it, so
            // the server can make its summary once.
            try await db.query(
                """
                SELECT g.game_id, g.owner_id, g.created_at, g.zone_seq, g.move_count, g.title,
                       CASE WHEN s.game_id IS NULL THEN gp.puzzle ELSE '' END, g.completion,
                       \(Self.participantColumns),
                       s.width, s.height, s.filled, s.total, s.picture, s.through_seq, s.active_at
                FROM participants p JOIN games g ON g.game_id = p.game_id JOIN game_puzzles gp ON gp.game_id = g.game_id
                JOIN accounts a ON a.author_id = p.author_id LEFT JOIN game_summaries s ON s.game_id = g.game_id
                WHERE p.author_id = ? AND p.left_game = 0 AND (g.created_at < ? OR (g.created_at = ? AND g.game_id > ?))
                ORDER BY g.created_at DESC, g.game_id LIMIT ?
                """, .text(authorID), .integer(createdAt), .integer(createdAt), .text(gameID), .integer(Int64(limit))
            ).map { row in
                let summary = SQLRow(Array(row.values[14...]))
                return (
                    try Self.storedGame(SQLRow(Array(row.values[0..<8]))), Self.storedParticipant(SQLRow(Array(row.values[8..<14]))),
                    summary.int(0).map { width in
                        StoredGameSummary(
                            width: Int(width), height: Int(summary.int(1)!), filled: Int(summary.int(2)!), total: Int(summary.int(3)!),
                            picture: summary.text(4)!, throughSequence: summary.int(5)!, activeAt: summary.int(6)!)
                    }
                )
            }
        }
    }
}
