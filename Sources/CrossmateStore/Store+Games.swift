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
            var owner = owner
            owner.joined = 2
            try await Self.putRecord(db, gameID: game.gameID, sequence: 2, .participant(owner))
            try await db.execute(
                "INSERT INTO participants (game_id, author_id, role, joined) VALUES (?, ?, ?, 2)",
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

    /// What the finished games among `gameIDs` contribute to stats, where it has been kept.
    public func finishedGames(_ gameIDs: [String]) async throws -> [String: FinishedGame] {
        guard !gameIDs.isEmpty else { return [:] }
        return try await database.read { db in
            var found: [String: FinishedGame] = [:]
            for chunk in GroupAppend.chunks(gameIDs) {
                for row in try await db.query(
                    "SELECT game_id, body FROM finished_games WHERE game_id IN (\(GroupAppend.placeholders(chunk.count)))",
                    chunk.map(SQLValue.text))
                {
                    let gameID = try row.string("game_id")
                    found[gameID] = try Self.decode(FinishedGame.self, try row.string("body"), what: "finished game", gameID: gameID)
                }
            }
            return found
        }
    }

    /// Keeps what a finished game contributes to stats (the first one kept stays).
    public func keepFinishedGame(_ game: FinishedGame) async throws {
        let body = Self.json(game)
        try await database.transaction { db in
            try await db.execute(
                "INSERT INTO finished_games (game_id, body) VALUES (?, ?) ON CONFLICT (game_id) DO NOTHING", .text(game.gameID), .text(body))
        }
    }

    /// A game with its puzzle; `lane` `.history` for reads beside the interactive path (exports).
    public func game(_ gameID: String, lane: ReadLane = .interactive) async throws -> StoredGame? {
        try await database.read(lane) { db in
            try await db.first(
                """
                SELECT \(Self.gameColumns) FROM games g JOIN game_puzzles gp ON gp.game_id = g.game_id WHERE g.game_id = ?
                """, .text(gameID)
            ).map { try Self.storedGame($0) }
        }
    }

    /// A game's title and owner and whether it is finished, without its puzzle (what an
    /// invitation's preview shows).
    public func gameHeading(_ gameID: String) async throws -> (title: String, ownerID: String, finished: Bool)? {
        try await database.read { db in
            try await db.first("SELECT title, owner_id, completion FROM games WHERE game_id = ?", .text(gameID)).map {
                (try $0.string("title"), try $0.string("owner_id"), $0.text("completion") != nil)
            }
        }
    }

    /// A game's columns as `storedGame` reads them (`g` the games row, `gp` its puzzle).
    static let gameColumns = gameColumns(puzzle: "gp.puzzle")

    /// A game's columns with the puzzle as `puzzle` says (an expression named `puzzle`).
    static func gameColumns(puzzle: String) -> String {
        "g.game_id, g.owner_id, g.created_at, g.zone_seq, g.move_count, g.title, \(puzzle), g.completion"
    }

    static func storedGame(_ row: SQLRow) throws -> StoredGame {
        let gameID = try row.string("game_id")
        return StoredGame(
            gameID: gameID, ownerID: try row.string("owner_id"), createdAt: try row.integer("created_at"), zoneSeq: try row.integer("zone_seq"),
            moveCount: try row.integer("move_count"), title: try row.string("title"), puzzleJSON: try row.string("puzzle"),
            completion: try row.text("completion").map { try decode(CompletionRecord.self, $0, what: "completion", gameID: gameID) })
    }

    /// The game and the author's participation in it, in one query.
    public func access(gameID: String, authorID: String) async throws -> (StoredGame, StoredParticipant?)? {
        try await database.read { db in
            try await db.first(
                """
                SELECT \(Self.gameColumns), \(Self.participantColumns)
                FROM games g JOIN game_puzzles gp ON gp.game_id = g.game_id LEFT JOIN participants p ON p.game_id = g.game_id AND p.author_id = ?
                LEFT JOIN accounts a ON a.author_id = p.author_id WHERE g.game_id = ?
                """, .text(authorID), .text(gameID)
            ).map { row in
                let game = try Self.storedGame(row)
                let participant = row.text("participant_author_id") == nil ? nil : try Self.storedParticipant(row)
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
                    readable.insert(try row.string("game_id"))
                }
            }
            return readable
        }
    }

    /// A participant's columns as `storedParticipant` reads them (`p` the participants row, `a`
    /// the account, for the display name), named apart from a game's beside them in a join.
    static let participantColumns = """
        p.game_id AS participant_game_id, p.author_id AS participant_author_id, a.display_name AS participant_name, \
        p.role AS participant_role, p.revoked AS participant_revoked, p.left_game AS participant_left, \
        p.joined AS participant_joined
        """

    static func storedParticipant(_ row: SQLRow) throws -> StoredParticipant {
        StoredParticipant(
            gameID: try row.string("participant_game_id"), authorID: try row.string("participant_author_id"),
            displayName: try row.string("participant_name"),
            role: ParticipantRecord.Role(rawValue: try row.string("participant_role")) ?? .player, revoked: row.bool("participant_revoked"),
            hasLeft: row.bool("participant_left"), joined: row.int("participant_joined") ?? 0)
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
                SELECT \(Self.gameColumns(puzzle: "CASE WHEN s.game_id IS NULL THEN gp.puzzle ELSE '' END AS puzzle")),
                       \(Self.participantColumns),
                       s.width, s.height, s.filled, s.total, s.picture, s.through_seq, s.active_at
                FROM participants p JOIN games g ON g.game_id = p.game_id JOIN game_puzzles gp ON gp.game_id = g.game_id
                JOIN accounts a ON a.author_id = p.author_id LEFT JOIN game_summaries s ON s.game_id = g.game_id
                WHERE p.author_id = ? AND p.left_game = 0 AND (g.created_at < ? OR (g.created_at = ? AND g.game_id > ?))
                ORDER BY g.created_at DESC, g.game_id LIMIT ?
                """, .text(authorID), .integer(createdAt), .integer(createdAt), .text(gameID), .integer(Int64(limit))
            ).map { row in
                (
                    try Self.storedGame(row), try Self.storedParticipant(row),
                    try row.int("width").map { width in
                        StoredGameSummary(
                            width: Int(width), height: Int(try row.integer("height")), filled: Int(try row.integer("filled")),
                            total: Int(try row.integer("total")), picture: try row.string("picture"), throughSequence: try row.integer("through_seq"),
                            activeAt: try row.integer("active_at"))
                    }
                )
            }
        }
    }
}
