import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

/// What the store knows of a device, found by its token's hash.
public struct StoredDevice: Hashable, Sendable {
    public var deviceID: String
    public var authorID: String
    public var displayName: String
}

/// One of an account's devices, as its owner lists them.
public struct StoredDeviceInfo: Hashable, Sendable {
    public var deviceID: String
    public var createdAt: Int64
}

public struct StoredGame: Hashable, Sendable {
    public var gameID: String
    public var ownerID: String
    public var createdAt: Int64
    public var zoneSeq: Int64
    public var moveCount: Int64
    public var title: String
    public var puzzleJSON: String
    /// How the game ended, once it has: the authority every replica adopts.
    public var completion: CompletionRecord?

    /// The game's puzzle, decoded from its stored JSON (kept as text until a projection needs it).
    public func puzzle() throws(CorruptRecord) -> Puzzle {
        try Store.decode(Puzzle.self, puzzleJSON, what: "puzzle", gameID: gameID)
    }
}

extension EncodedChange {
    /// The change decoded; a stored body that does not decode is a `CorruptRecord` of `gameID`.
    public func decoded(gameID: String) throws(CorruptRecord) -> ZoneChange {
        do {
            return try decoded()
        } catch {
            throw CorruptRecord(what: "\(kind.rawValue) at \(sequence)", gameID: gameID, reason: "\(error)")
        }
    }
}

/// What the games list shows of a game, as of zone sequence `throughSequence`: its size, how
/// many letter squares are filled of all, and its picture (a row a line: `#` block, `~` void,
/// `.` empty, `x` filled, `r` revealed).
public struct StoredGameSummary: Hashable, Sendable {
    public var width: Int
    public var height: Int
    public var filled: Int
    public var total: Int
    public var picture: String
    public var throughSequence: Int64
    /// The wall time (Unix ms) of the latest move the grid shows, 0 before the first.
    public var activeAt: Int64

    public init(width: Int, height: Int, filled: Int, total: Int, picture: String, throughSequence: Int64, activeAt: Int64 = 0) {
        self.width = width
        self.height = height
        self.filled = filled
        self.total = total
        self.picture = picture
        self.throughSequence = throughSequence
        self.activeAt = activeAt
    }
}

/// A completion as stored: the record, the zone sequence its Game record took, and the final
/// grid beside it (the snapshot a joining device and every replica take as the finished grid).
public struct StoredCompletion: Sendable {
    public var completion: CompletionRecord
    public var sequence: Int64
    public var finalSnapshot: StoredSnapshot

    public init(completion: CompletionRecord, sequence: Int64, finalSnapshot: StoredSnapshot) {
        self.completion = completion
        self.sequence = sequence
        self.finalSnapshot = finalSnapshot
    }
}

/// A snapshot of a game's grid and the zone sequence whose moves it folds in.
public struct StoredSnapshot: Sendable {
    public var zoneSeq: Int64
    public var snapshot: Snapshot

    public init(zoneSeq: Int64, snapshot: Snapshot) {
        self.zoneSeq = zoneSeq
        self.snapshot = snapshot
    }
}

/// A stored record that no longer decodes: the store says which, instead of skipping it.
public struct CorruptRecord: Error, CustomStringConvertible {
    public var what: String
    public var gameID: String
    public var reason: String

    public init(what: String, gameID: String, reason: String) {
        self.what = what
        self.gameID = gameID
        self.reason = reason
    }

    public var description: String { "the stored \(what) of game \(gameID) cannot be read (\(reason)); the database needs repair" }
}

public struct StoredParticipant: Hashable, Sendable {
    public var gameID: String
    public var authorID: String
    public var displayName: String
    public var role: ParticipantRecord.Role
    public var revoked: Bool
    /// A removed player who then left: the game is gone from their list, and the removal stays.
    public var hasLeft: Bool
}

/// One Decision of an account about another (`kind` "block" or "color", `key` the other
/// account, `value` the colour's index for a pin): the last write wins, a deletion clears it.
public struct StoredDecision: Hashable, Sendable {
    public var authorID: String
    public var kind: String
    public var key: String
    public var value: String
    public var writtenAt: Int64
    public var writtenBy: String
    public var deleted = false

    public init(authorID: String, kind: String, key: String, value: String, writtenAt: Int64, writtenBy: String, deleted: Bool = false) {
        self.authorID = authorID
        self.kind = kind
        self.key = key
        self.value = value
        self.writtenAt = writtenAt
        self.writtenBy = writtenBy
        self.deleted = deleted
    }
}

public struct StoredFriend: Hashable, Sendable {
    public var authorID: String
    public var displayName: String
    public var gamesTogether: Int
    public var lastPlayed: Int64
}

public struct StoredNudge: Hashable, Sendable {
    public var gameID: String
    public var nudgeID: String
    public var fromAuthor: String
    public var message: String
    public var createdAt: Int64

    public init(gameID: String, nudgeID: String, fromAuthor: String, message: String, createdAt: Int64) {
        self.gameID = gameID
        self.nudgeID = nudgeID
        self.fromAuthor = fromAuthor
        self.message = message
        self.createdAt = createdAt
    }
}

public struct StoredInvitation: Hashable, Sendable {
    /// The link's public name: the owner lists and revokes links by it, never by their token.
    public var linkID: String
    public var gameID: String
    public var createdBy: String
    public var createdAt: Int64
    public var expiresAt: Int64?
    public var revoked: Bool

    /// Usable at `now`: neither revoked nor past its expiry.
    public func isLive(at now: Int64) -> Bool { !revoked && (expiresAt.map { $0 > now } ?? true) }
}

/// A move just stored: where it sits in the zone and the JSON body stored for it.
public struct SavedMove: Sendable {
    public var sequence: Int64
    public var move: MoveRecord
    public var body: String

    public init(sequence: Int64, move: MoveRecord, body: String) {
        self.sequence = sequence
        self.move = move
        self.body = body
    }

    /// The move as a zone change, its stored JSON as it is.
    public var change: EncodedChange { EncodedChange(sequence: sequence, kind: .move, json: body) }
}

/// The outcome of appending a batch of moves.
public struct AppendOutcome: Sendable {
    public var results: [RecordResult]
    /// The moves stored now, with their zone sequences and stored JSON, in zone order.
    public var saved: [SavedMove]
    public var zoneSeq: Int64
    public var moveCount: Int64
}

/// Refusals the store itself decides, inside its transactions.
public enum StoreRefusal: Error, Hashable, Sendable {
    case gameNotFound
    case notParticipant
    case revoked
    /// Too many moves are already waiting to be committed; try again shortly.
    case busy
    /// A Decision names an account this one has never played with.
    case notPlayedWith
    /// The account already holds the most Decisions it may.
    case tooManyDecisions(maximum: Int)
}

/// Crossmate's server persistence, one implementation over any `SQLDatabase` (SQLite or
/// PostgreSQL), so one test suite covers both.
public final class Store: Sendable {
    public let database: any SQLDatabase

    /// Concurrent pushes share transactions (see `CommitQueue`), one group at a time. With
    /// PostgreSQL, two or four groups committing side by side on connections of their own (games
    /// split between them) were measured too, and one had the lowest latency at 1,000 and 2,000
    /// devices: a group costs a few statements whatever its size, so one bigger group beats two
    /// smaller ones competing for the same cores.
    private let commits: CommitQueue

    /// Told of every group commit: how many batches it held and how long its transaction took.
    public typealias GroupCommitObserver = @Sendable (_ batches: Int, _ duration: Duration) -> Void

    /// `maximumWaitingMoves` bounds the moves waiting to be committed (about a kilobyte each);
    /// past it, appends are refused as `StoreRefusal.busy`.
    public init(database: any SQLDatabase, onGroupCommit: GroupCommitObserver? = nil, maximumWaitingMoves: Int = 200_000) {
        self.database = database
        commits = CommitQueue(database: database, onCommit: onGroupCommit, maximumWaitingMoves: maximumWaitingMoves)
    }

    /// Moves submitted and not yet committed or refused.
    public var waitingMoves: Int { get async { await commits.waitingMoves } }

    /// Brings the schema up to date (or up to `version`, for testing a later migration on data
    /// an earlier schema held).
    public func migrate(now: Int64, through version: Int64 = .max) async throws {
        try await Migrations.run(on: database, now: now, through: version)
    }

    /// Records as stored: sorted keys, so an identical resend has an identical body.
    static func json<T: Encodable>(_ value: T) -> String { JSONText.sorted(value) }

    /// A stored record read back; one that does not decode is a `CorruptRecord`, never skipped.
    static func decode<T: Decodable>(_ type: T.Type, _ json: String, what: String, gameID: String) throws(CorruptRecord) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(json.utf8))
        } catch {
            throw CorruptRecord(what: what, gameID: gameID, reason: "\(error)")
        }
    }

    // MARK: Accounts and devices

    public func createAccount(authorID: String, displayName: String, deviceID: String, tokenHash: String, now: Int64) async throws {
        try await database.transaction { db in
            try await db.execute(
                "INSERT INTO accounts (author_id, display_name, created_at) VALUES (?, ?, ?)",
                .text(authorID), .text(displayName), .integer(now))
            try await db.execute(
                "INSERT INTO devices (device_id, author_id, token_hash, created_at) VALUES (?, ?, ?, ?)",
                .text(deviceID), .text(authorID), .text(tokenHash), .integer(now))
        }
    }

    public func device(tokenHash: String) async throws -> StoredDevice? {
        try await database.read { db in
            try await db.first(
                """
                SELECT d.device_id, d.author_id, a.display_name FROM devices d
                JOIN accounts a ON a.author_id = d.author_id WHERE d.token_hash = ?
                """, .text(tokenHash)
            ).map {
                StoredDevice(deviceID: $0.text(0)!, authorID: $0.text(1)!, displayName: $0.text(2)!)
            }
        }
    }

    /// A one-time link code made by `deviceID`; it works only while that device does.
    public func createLinkCode(codeHash: String, authorID: String, issuedBy deviceID: String, expiresAt: Int64) async throws {
        try await database.transaction { db in
            try await db.execute(
                "INSERT INTO link_codes (code_hash, author_id, issued_by, expires_at) VALUES (?, ?, ?, ?)",
                .text(codeHash), .text(authorID), .text(deviceID), .integer(expiresAt))
        }
    }

    /// Uses a one-time link code to add a device; `nil` when the code is unknown, used or
    /// expired, or the device that made it has been revoked.
    public func linkDevice(codeHash: String, deviceID: String, tokenHash: String, now: Int64) async throws -> StoredDevice? {
        let forUpdate = database.forUpdate
        return try await database.transaction { db -> StoredDevice? in
            guard
                let code = try await db.first(
                    "SELECT author_id, expires_at, used, issued_by FROM link_codes WHERE code_hash = ?\(forUpdate)", .text(codeHash)),
                !code.bool(2), (code.int(1) ?? 0) > now, let authorID = code.text(0), let issuer = code.text(3),
                try await db.first("SELECT device_id FROM devices WHERE device_id = ? AND author_id = ?", .text(issuer), .text(authorID)) != nil
            else { return nil }
            try await db.execute("UPDATE link_codes SET used = 1 WHERE code_hash = ?", .text(codeHash))
            try await db.execute(
                "INSERT INTO devices (device_id, author_id, token_hash, created_at) VALUES (?, ?, ?, ?)",
                .text(deviceID), .text(authorID), .text(tokenHash), .integer(now))
            let name = try await db.first("SELECT display_name FROM accounts WHERE author_id = ?", .text(authorID))?.text(0) ?? ""
            return StoredDevice(deviceID: deviceID, authorID: authorID, displayName: name)
        }
    }

    /// The account's devices, oldest first.
    public func devices(of authorID: String) async throws -> [StoredDeviceInfo] {
        try await database.read { db in
            try await db.query(
                "SELECT device_id, created_at FROM devices WHERE author_id = ? ORDER BY created_at, device_id",
                .text(authorID)
            ).map { StoredDeviceInfo(deviceID: $0.text(0)!, createdAt: $0.int(1)!) }
        }
    }

    /// Revokes one of the account's devices: its token stops working, and what it issued (socket
    /// tickets, link codes) goes with it. False when the account has no such device.
    public func revokeDevice(_ deviceID: String, of authorID: String) async throws -> Bool {
        try await database.transaction { db in
            guard
                try await db.first(
                    "SELECT device_id FROM devices WHERE device_id = ? AND author_id = ?",
                    .text(deviceID), .text(authorID)) != nil
            else { return false }
            try await db.execute("DELETE FROM socket_tickets WHERE device_id = ?", .text(deviceID))
            try await db.execute("DELETE FROM link_codes WHERE issued_by = ?", .text(deviceID))
            try await db.execute("DELETE FROM devices WHERE device_id = ?", .text(deviceID))
            return true
        }
    }

    /// A single-use socket ticket for a device, good until `expiresAt`. Expired tickets are
    /// cleared as new ones are made.
    public func createSocketTicket(ticketHash: String, deviceID: String, now: Int64, expiresAt: Int64) async throws {
        try await database.transaction { db in
            try await db.execute("DELETE FROM socket_tickets WHERE expires_at <= ?", .integer(now))
            try await db.execute(
                "INSERT INTO socket_tickets (ticket_hash, device_id, expires_at) VALUES (?, ?, ?)",
                .text(ticketHash), .text(deviceID), .integer(expiresAt))
        }
    }

    /// Uses up a socket ticket: the device it was made for, or nil when it is unknown, used or
    /// expired.
    public func useSocketTicket(ticketHash: String, now: Int64) async throws -> StoredDevice? {
        try await database.transaction { db in
            guard
                let row = try await db.first(
                    "DELETE FROM socket_tickets WHERE ticket_hash = ? RETURNING device_id, expires_at",
                    .text(ticketHash)),
                row.int(1)! > now, let deviceID = row.text(0)
            else { return nil }
            return try await db.first(
                """
                SELECT d.device_id, d.author_id, a.display_name FROM devices d
                JOIN accounts a ON a.author_id = d.author_id WHERE d.device_id = ?
                """, .text(deviceID)
            ).map {
                StoredDevice(deviceID: $0.text(0)!, authorID: $0.text(1)!, displayName: $0.text(2)!)
            }
        }
    }

    // MARK: Games

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

    private static func putSummary(_ db: any SQLConnection, gameID: String, _ summary: StoredGameSummary) async throws {
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

    // MARK: Zone changes

    /// Appends a device's moves to a game. Inside one transaction (shared with concurrent batches,
    /// see `GroupAppend`) it checks that the author is a participant with access, that each
    /// replica's seqs continue without gaps, and that nothing is stamped after the game's
    /// completion; a resent move is reported as a duplicate. Throws `StoreRefusal` for a missing
    /// game or an author without access.
    public func appendMoves(gameID: String, authorID: String, moves: [MoveRecord]) async throws -> AppendOutcome {
        try await commits.submit(AppendRequest(gameID: gameID, authorID: authorID, moves: moves, bodies: moves.map(\.sortedJSON)))
    }

    /// Records a completion with the final grid, unless the game already has one; returns the
    /// completion in force, whichever it is, with its final grid. The snapshot is stored at
    /// `snapshot.zoneSeq`, the sequence whose moves it folds in (not the completion's own, which
    /// can be later: moves committed meanwhile stay outside it, so a device joining from it
    /// still fetches them). No newer snapshot outlives it: the finished grid is the latest.
    public func complete(gameID: String, completion: CompletionRecord, game: GameRecord, snapshot: StoredSnapshot) async throws -> StoredCompletion {
        let forUpdate = database.forUpdate
        return try await database.transaction { db in
            guard let row = try await db.first("SELECT zone_seq, completion FROM games WHERE game_id = ?\(forUpdate)", .text(gameID)) else {
                throw StoreRefusal.gameNotFound
            }
            if let existing = row.text(1) {
                let recorded = try Self.decode(CompletionRecord.self, existing, what: "completion", gameID: gameID)
                guard let final = try await Self.latestSnapshot(db, gameID: gameID) else {
                    throw CorruptRecord(what: "final snapshot", gameID: gameID, reason: "a completed game has no snapshot")
                }
                return StoredCompletion(completion: recorded, sequence: row.int(0)!, finalSnapshot: final)
            }
            let sequence = row.int(0)! + 1
            var record = game
            record.completion = completion
            try await db.execute(
                "UPDATE games SET completion = ?, zone_seq = ? WHERE game_id = ?",
                .text(Self.json(completion)), .integer(sequence), .text(gameID))
            try await Self.putRecord(db, gameID: gameID, sequence: sequence, .game(record))
            try await db.execute("DELETE FROM snapshots WHERE game_id = ? AND zone_seq > ?", .text(gameID), .integer(snapshot.zoneSeq))
            try await db.execute(
                """
                INSERT INTO snapshots (game_id, zone_seq, body) VALUES (?, ?, ?)
                ON CONFLICT (game_id, zone_seq) DO UPDATE SET body = excluded.body
                """, .text(gameID), .integer(snapshot.zoneSeq), .text(Self.json(snapshot.snapshot)))
            return StoredCompletion(completion: completion, sequence: sequence, finalSnapshot: snapshot)
        }
    }

    /// Removes a participant who left: the zone says they are gone and their feed drops the game.
    /// A player in good standing loses their row (an invitation can bring them back); a player
    /// the owner removed keeps it, marked as left, so that no invitation undoes the removal.
    public func removeParticipant(_ participant: ParticipantRecord) async throws -> Int64 {
        let forUpdate = database.forUpdate
        return try await database.transaction { db in
            guard let row = try await db.first("SELECT zone_seq FROM games WHERE game_id = ?\(forUpdate)", .text(participant.gameID)) else {
                throw StoreRefusal.gameNotFound
            }
            let sequence = row.int(0)! + 1
            try await db.execute(
                "DELETE FROM participants WHERE game_id = ? AND author_id = ? AND revoked = 0",
                .text(participant.gameID), .text(participant.authorID))
            try await db.execute(
                "UPDATE participants SET left_game = 1 WHERE game_id = ? AND author_id = ?",
                .text(participant.gameID), .text(participant.authorID))
            try await Self.revokeInvitations(db, gameID: participant.gameID, createdBy: participant.authorID)
            try await db.execute("UPDATE games SET zone_seq = ? WHERE game_id = ?", .integer(sequence), .text(participant.gameID))
            try await Self.putRecord(db, gameID: participant.gameID, sequence: sequence, .participant(participant))
            try await Self.appendFeed(db, authorID: participant.authorID, gameID: participant.gameID, state: .removed)
            return sequence
        }
    }

    /// Writes a record that replaces its earlier version (participant, seal) under a new sequence.
    /// Marks a device as a browser: the server makes its moves (see migration 9).
    public func markBrowser(deviceID: String) async throws {
        try await database.transaction { db in
            try await db.execute("UPDATE devices SET browser = 1 WHERE device_id = ? AND browser = 0", .text(deviceID))
        }
    }

    /// The browser devices that wrote moves in a game and have no Seal yet, with their last seq.
    public func unsealedBrowsers(gameID: String) async throws -> [(deviceID: String, lastSeq: Int)] {
        try await database.read { db in
            try await db.query(
                """
                SELECT h.replica_id, h.last_seq FROM replica_heads h JOIN devices d ON d.device_id = h.replica_id
                WHERE h.game_id = ? AND d.browser = 1 AND NOT EXISTS (
                    SELECT 1 FROM records r WHERE r.game_id = h.game_id AND r.record_type = 'seal' AND r.record_key = h.replica_id)
                ORDER BY h.replica_id
                """, .text(gameID)
            ).map { (deviceID: $0.text(0)!, lastSeq: Int($0.int(1)!)) }
        }
    }

    /// Writes a record that is not a move (a seal, a pause) under the zone's next sequence,
    /// replacing an earlier record of its kind and key; its sequence.
    public func putRecord(gameID: String, _ record: ZoneChange.Record) async throws -> Int64 {
        let forUpdate = database.forUpdate
        return try await database.transaction { db in
            guard let row = try await db.first("SELECT zone_seq FROM games WHERE game_id = ?\(forUpdate)", .text(gameID)) else {
                throw StoreRefusal.gameNotFound
            }
            let sequence = row.int(0)! + 1
            try await db.execute("UPDATE games SET zone_seq = ? WHERE game_id = ?", .integer(sequence), .text(gameID))
            try await Self.putRecord(db, gameID: gameID, sequence: sequence, record)
            return sequence
        }
    }

    static func putRecord(_ db: any SQLConnection, gameID: String, sequence: Int64, _ record: ZoneChange.Record) async throws {
        try await db.execute(
            """
            INSERT INTO records (game_id, zone_seq, record_type, record_key, body) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (game_id, record_type, record_key) DO UPDATE SET zone_seq = excluded.zone_seq, body = excluded.body
            """, .text(gameID), .integer(sequence), .text(record.kind.rawValue), .text(record.key), .text(record.sortedJSON))
    }

    /// Changes after `sequence`, oldest first, at most `limit`.
    public func changes(gameID: String, after sequence: Int64, limit: Int) async throws -> [EncodedChange] {
        try await database.read { db in
            try await db.query(
                """
                SELECT zone_seq, record_type, body FROM records WHERE game_id = ? AND zone_seq > ? ORDER BY zone_seq LIMIT ?
                """, .text(gameID), .integer(sequence), .integer(Int64(limit))
            ).map { try Self.encodedChange($0, gameID: gameID) }
        }
    }

    /// The game's records other than moves (the game, participants, seals) at or before
    /// `sequence`: what a device loading a snapshot needs beside it, since the changes after the
    /// snapshot hold only what changed later.
    public func keyedRecords(gameID: String, through sequence: Int64) async throws -> [EncodedChange] {
        try await database.read { db in
            try await db.query(
                """
                SELECT zone_seq, record_type, body FROM records
                WHERE game_id = ? AND zone_seq <= ? AND record_type <> 'move' ORDER BY zone_seq
                """, .text(gameID), .integer(sequence)
            ).map { try Self.encodedChange($0, gameID: gameID) }
        }
    }

    /// A change read from `zone_seq, record_type, body`.
    static func encodedChange(_ row: SQLRow, gameID: String) throws(CorruptRecord) -> EncodedChange {
        let sequence = row.int(0)!
        guard let kind = ZoneChange.Record.Kind(rawValue: row.text(1)!) else {
            throw CorruptRecord(what: "record at \(sequence)", gameID: gameID, reason: "unknown record type \(row.text(1)!)")
        }
        return EncodedChange(sequence: sequence, kind: kind, json: row.text(2)!)
    }

    /// Stores a periodic snapshot, unless the game is complete: then its final grid stays the
    /// latest snapshot.
    public func saveSnapshot(gameID: String, zoneSeq: Int64, snapshot: Snapshot) async throws {
        try await database.transaction { db in
            try await db.execute(
                """
                INSERT INTO snapshots (game_id, zone_seq, body) SELECT ?, ?, ? WHERE EXISTS
                (SELECT 1 FROM games WHERE game_id = ? AND completion IS NULL)
                ON CONFLICT (game_id, zone_seq) DO UPDATE SET body = excluded.body
                """, .text(gameID), .integer(zoneSeq), .text(Self.json(snapshot)), .text(gameID))
        }
    }

    /// The newest snapshot: for a completed game, its final grid.
    public func latestSnapshot(gameID: String) async throws -> StoredSnapshot? {
        try await database.read { db in try await Self.latestSnapshot(db, gameID: gameID) }
    }

    static func latestSnapshot(_ db: any SQLConnection, gameID: String) async throws -> StoredSnapshot? {
        guard
            let row = try await db.first(
                "SELECT zone_seq, body FROM snapshots WHERE game_id = ? ORDER BY zone_seq DESC LIMIT 1",
                .text(gameID))
        else { return nil }
        return StoredSnapshot(zoneSeq: row.int(0)!, snapshot: try decode(Snapshot.self, row.text(1)!, what: "snapshot", gameID: gameID))
    }

    // MARK: Sharing

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

    private static func invitation(_ row: SQLRow) -> StoredInvitation {
        StoredInvitation(
            linkID: row.text(0)!, gameID: row.text(1)!, createdBy: row.text(2)!, createdAt: row.int(3)!,
            expiresAt: row.int(4), revoked: row.bool(5))
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
    private static func revokeInvitations(_ db: any SQLConnection, gameID: String, createdBy: String) async throws {
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
            guard let row = try await db.first("SELECT zone_seq FROM games WHERE game_id = ?\(forUpdate)", .text(participant.gameID)) else {
                throw StoreRefusal.gameNotFound
            }
            let sequence = row.int(0)! + 1
            try await db.execute(
                """
                INSERT INTO participants (game_id, author_id, role, revoked) VALUES (?, ?, ?, ?)
                ON CONFLICT (game_id, author_id) DO UPDATE SET role = excluded.role,
                    revoked = CASE WHEN participants.revoked = 1 THEN 1 ELSE excluded.revoked END
                """, .text(participant.gameID), .text(participant.authorID), .text(participant.role.rawValue), SQLValue(participant.revoked))
            if participant.revoked { try await Self.revokeInvitations(db, gameID: participant.gameID, createdBy: participant.authorID) }
            try await db.execute("UPDATE games SET zone_seq = ? WHERE game_id = ?", .integer(sequence), .text(participant.gameID))
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
                JOIN accounts a ON a.author_id = p.author_id WHERE p.game_id = ? ORDER BY p.author_id
                """, .text(gameID)
            ).map(Self.storedParticipant)
        }
    }

    // MARK: Presence and read horizons

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
                    .text(presence.authorID))?.int(0) ?? 0
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
                (try? JSONDecoder().decode(CursorPosition.self, from: Data(row.text(2)!.utf8))).map { (row.text(0)!, row.text(1)!, $0) }
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
                DevicePresence(gameID: gameID, deviceID: $0.text(0)!, authorID: authorID, leaseUntil: $0.int(1)!, readThrough: $0.int(2)!)
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
                DevicePresence(gameID: gameID, deviceID: deviceID, authorID: $0.text(0)!, leaseUntil: $0.int(1)!, readThrough: $0.int(2)!)
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
                ).map { ($0.int(0)!, $0.text(1)!) }
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
                .int(0) ?? 0
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

    // MARK: The account zone, friends and nudges

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
                let stored = (row.int(0)!, row.text(1)!)
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
                let held = try await db.first("SELECT COUNT(*) FROM decisions WHERE author_id = ?", .text(decision.authorID))?.int(0) ?? 0
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
                    authorID: authorID, kind: $0.text(0)!, key: $0.text(1)!, value: $0.text(2)!, writtenAt: $0.int(3)!, writtenBy: $0.text(4)!)
            }
        }
    }

    /// Sets the account's preferred colour (nil clears it); the later write wins.
    public func putPreferredColor(_ color: Int?, authorID: String, writtenAt: Int64) async throws {
        try await database.transaction { db in
            let stored = try await db.first("SELECT written_at FROM preferences WHERE author_id = ?\(self.database.forUpdate)", .text(authorID))?.int(
                0)
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
            try await db.first("SELECT color FROM preferences WHERE author_id = ?", .text(authorID))?.int(0).map { Int($0) }
        }
    }

    /// The accounts `authorID` has played with: their name, how many games together and when
    /// the last of them was created.
    public func friends(of authorID: String) async throws -> [StoredFriend] {
        try await database.read { db in
            try await db.query(
                """
                SELECT other.author_id, a.display_name, COUNT(*), MAX(g.created_at)
                FROM participants mine JOIN participants other ON other.game_id = mine.game_id AND other.author_id <> mine.author_id
                JOIN accounts a ON a.author_id = other.author_id JOIN games g ON g.game_id = mine.game_id
                WHERE mine.author_id = ? GROUP BY other.author_id, a.display_name ORDER BY MAX(g.created_at) DESC, other.author_id
                """, .text(authorID)
            ).map { StoredFriend(authorID: $0.text(0)!, displayName: $0.text(1)!, gamesTogether: Int($0.int(2)!), lastPlayed: $0.int(3)!) }
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
            ).map { StoredNudge(gameID: gameID, nudgeID: $0.text(0)!, fromAuthor: $0.text(1)!, message: $0.text(2)!, createdAt: $0.int(3)!) }
        }
    }

    // MARK: Database feed

    static func appendFeed(_ db: any SQLConnection, authorID: String, gameID: String, state: FeedEntry.State) async throws {
        guard
            let row = try await db.first(
                "UPDATE accounts SET feed_seq = feed_seq + 1 WHERE author_id = ? RETURNING feed_seq",
                .text(authorID)), let sequence = row.int(0)
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
                FeedEntry(gameID: $0.text(0)!, state: FeedEntry.State(rawValue: $0.text(1)!) ?? .active, sequence: $0.int(2)!)
            }
        }
    }

    public func feedSequence(authorID: String) async throws -> Int64 {
        try await database.read { db in
            try await db.first("SELECT feed_seq FROM accounts WHERE author_id = ?", .text(authorID))?.int(0) ?? 0
        }
    }
}
