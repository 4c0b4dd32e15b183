import CrossmateProtocol
import Foundation

/// One device's batch of moves for one game, waiting for a group commit. The bodies are the
/// moves' stored JSON, encoded before the queue (encoding need not take turns).
struct AppendRequest: Sendable {
    var gameID: String
    var authorID: String
    var moves: [MoveRecord]
    var bodies: [String]
    /// The moves the game takes at most: those past it are rejected.
    var maximumMoves: Int
    /// The moves one player stores in the game at most.
    var maximumPlayerMoves: Int = .max
    /// Told of the batch's outcome once it is checked and ordered, before its group commits
    /// (see `Store.appendMoves`).
    var ordered: (@Sendable (AppendOutcome) -> Void)? = nil
    /// Someone hears of these moves before their commit (a relay, a hosted replica): they are
    /// ordered as soon as they arrive, not when a commit window closes (`CommitQueue`).
    var urgent = true
}

/// Appends a whole group of batches in a few statements, whatever its size: the group's games
/// are locked and read at once, every batch is checked in memory, and the moves, replica heads
/// and game rows are written with one multi-row statement each. One statement per move per
/// table was most of PostgreSQL's work (each statement is parsed and planned on its own), and
/// a third of SQLite's.
///
/// `requests` must be in game order, and in arrival order within a game (`CommitQueue` sorts
/// them so): every group then locks its games' rows in the same order, and groups on other
/// connections or server instances cannot deadlock with it.
struct GroupAppend {
    /// Rows per multi-row statement, so the placeholders stay well inside both engines' limits
    /// (SQLite 32,766; PostgreSQL 65,535) and SQLite's statement cache holds few shapes.
    static let rowsPerStatement = 64
    /// Write statements sent together (see `SQLConnection.executeAll`).
    static let statementsPerTrip = 8

    /// The order a group's batches go in, as indices into `gameIDs` (the batches' games in
    /// arrival order): by game, then by arrival.
    static func commitOrder(_ gameIDs: [String]) -> [Int] {
        gameIDs.indices.sorted { (gameIDs[$0], $0) < (gameIDs[$1], $1) }
    }

    /// The key a move is stored under among its game's records.
    static func recordKey(_ move: MoveRecord) -> String { ZoneChange.Record.move(move).key }

    private struct GameState {
        var zoneSeq: Int64
        var moveCount: Int64
        var completion: CompletionRecord?
        var touched = false
    }

    private struct Key: Hashable {
        var game: String
        var id: String
    }

    /// The group's games as they stand, in game order; a missing game is not here.
    private var games: [String: GameState] = [:]
    private var order: [String] = []
    private var revoked: [Key: Bool] = [:]
    /// Each player's moves in each game (the sum of their replicas' heads), and whose each
    /// replica the group moved on is.
    private var playerMoves: [Key: Int64] = [:]
    private var headAuthors: [Key: String] = [:]
    private var heads: [Key: Int64] = [:]
    /// Stored bodies of the moves resent from before the group, and bodies saved in it.
    private var earlier: [Key: String] = [:]
    private var bodiesNow: [Key: String] = [:]
    private var saved: [(game: String, move: SavedMove)] = []
    private var changedHeads: Set<Key> = []

    /// Checks another group of batches against everything taken before it in this transaction
    /// (its games read only when none before named them), and orders their moves; nothing is
    /// written until `write`. So a transaction that takes each urgent batch (one whose moves are
    /// relayed) as a group of its own as it arrives still reads each game once and writes once,
    /// not five statements a push. Only SQLite's writer takes several groups in a transaction;
    /// with PostgreSQL each takes one, and locks its games in order.
    mutating func take(_ requests: [AppendRequest], on db: any SQLConnection, forUpdate: String) async throws -> [Result<AppendOutcome, StoreRefusal>]
    {
        try await read(requests.filter { games[$0.gameID] == nil }, on: db, forUpdate: forUpdate)
        earlier.merge(try await Self.storedBodies(of: requests, below: heads, savedNow: bodiesNow, on: db)) { $1 }
        return requests.map { check($0) }
    }

    /// Writes the moves taken, the replica heads they advanced and the games' counters.
    func write(on db: any SQLConnection) async throws {
        // Each statement touches rows no other touches, so they may go as one.
        let writes = writes()
        for start in stride(from: 0, to: writes.count, by: Self.statementsPerTrip) {
            try await db.executeAll(Array(writes[start..<min(start + Self.statementsPerTrip, writes.count)]))
        }
    }

    /// Locks the games, then reads who may write to them and how far each replica has got.
    private mutating func read(_ requests: [AppendRequest], on db: any SQLConnection, forUpdate: String) async throws {
        guard !requests.isEmpty else { return }
        // Only the games read now: those taken before hold what this transaction did to them.
        let before = order.count
        for chunk in Self.chunks(Array(Set(requests.map(\.gameID))).sorted()) {
            for row in try await db.query(
                """
                SELECT game_id, zone_seq, move_count, completion FROM games WHERE game_id IN (\(Self.placeholders(chunk.count)))
                ORDER BY game_id\(forUpdate)
                """, chunk.map(SQLValue.text))
            {
                let gameID = try row.string("game_id")
                let completion = try row.text("completion").map { try Store.decode(CompletionRecord.self, $0, what: "completion", gameID: gameID) }
                games[gameID] = GameState(zoneSeq: try row.integer("zone_seq"), moveCount: try row.integer("move_count"), completion: completion)
                order.append(gameID)
            }
        }
        for chunk in Self.chunks(Array(order[before...])) {
            // Read after the games are locked, not in the locking statement: under PostgreSQL's
            // READ COMMITTED each statement sees what was committed when it began, so only a
            // later statement sees what a writer that held a lock committed before letting go.
            let list = Self.placeholders(chunk.count)
            for row in try await db.query(
                """
                SELECT 'p' AS kind, game_id, author_id AS id, revoked AS value, '' AS owner FROM participants WHERE game_id IN (\(list))
                UNION ALL SELECT 'h', game_id, replica_id, last_seq, author_id FROM replica_heads WHERE game_id IN (\(list))
                """, (chunk + chunk).map(SQLValue.text))
            {
                let key = Key(game: try row.string("game_id"), id: try row.string("id"))
                if row.text("kind") == "p" {
                    revoked[key] = row.bool("value")
                } else {
                    let head = try row.integer("value")
                    heads[key] = head
                    if let owner = row.text("owner"), !owner.isEmpty { playerMoves[Key(game: key.game, id: owner), default: 0] += head }
                }
            }
        }
    }

    /// One batch, against the group's state so far: its outcome, and its moves taken into the state.
    private mutating func check(_ request: AppendRequest) -> Result<AppendOutcome, StoreRefusal> {
        guard var game = games[request.gameID] else { return .failure(.gameNotFound) }
        let player = Key(game: request.gameID, id: request.authorID)
        switch revoked[player] {
        case nil: return .failure(.notParticipant)
        case true?: return .failure(.revoked)
        case false?: break
        }
        var results: [RecordResult] = []
        var savedHere: [SavedMove] = []
        for (move, body) in zip(request.moves, request.bodies) {
            let replica = Key(game: request.gameID, id: move.replicaID)
            let recordKey = Key(game: request.gameID, id: Self.recordKey(move))
            let head = heads[replica] ?? 0
            if Int64(move.seq) <= head {
                let existing = bodiesNow[recordKey] ?? earlier[recordKey]
                results.append(
                    existing == body
                        ? RecordResult(replicaID: move.replicaID, seq: move.seq, status: .duplicate)
                        : RecordResult(
                            replicaID: move.replicaID, seq: move.seq, status: .rejected,
                            error: ErrorBody(.invalid, "seq \(move.seq) of \(move.replicaID) is already used by a different move")))
                continue
            }
            guard Int64(move.seq) == head + 1 else {
                results.append(
                    RecordResult(
                        replicaID: move.replicaID, seq: move.seq, status: .rejected,
                        error: ErrorBody(.invalid, "seq \(move.seq) leaves a gap: the next seq of \(move.replicaID) is \(head + 1)"),
                        nextSeq: Int(head + 1)))
                continue
            }
            if let completion = game.completion, move.timestamp > completion.at {
                results.append(
                    RecordResult(
                        replicaID: move.replicaID, seq: move.seq, status: .rejected,
                        error: ErrorBody(.readOnly, "the game was completed before this move was made")))
                continue
            }
            guard game.moveCount < request.maximumMoves else {
                results.append(
                    RecordResult(
                        replicaID: move.replicaID, seq: move.seq, status: .rejected,
                        error: ErrorBody(
                            .limitExceeded, "this game holds \(request.maximumMoves) moves, as many as a game keeps; start a new game to go on")))
                continue
            }
            guard playerMoves[player, default: 0] < request.maximumPlayerMoves else {
                results.append(
                    RecordResult(
                        replicaID: move.replicaID, seq: move.seq, status: .rejected,
                        error: ErrorBody(
                            .limitExceeded,
                            "you have made \(request.maximumPlayerMoves) moves in this game, as many as one player keeps in a game; start a new game to go on"
                        )))
                continue
            }
            game.zoneSeq += 1
            game.moveCount += 1
            game.touched = true
            playerMoves[player, default: 0] += 1
            heads[replica] = head + 1
            changedHeads.insert(replica)
            headAuthors[replica] = request.authorID
            bodiesNow[recordKey] = body
            savedHere.append(SavedMove(sequence: game.zoneSeq, move: move, body: body))
            results.append(RecordResult(replicaID: move.replicaID, seq: move.seq, status: .saved, sequence: game.zoneSeq))
        }
        games[request.gameID] = game
        saved += savedHere.map { (request.gameID, $0) }
        return .success(AppendOutcome(results: results, saved: savedHere, zoneSeq: game.zoneSeq, moveCount: game.moveCount))
    }

    /// The group's writes: its moves, the replica heads they advanced and the games' counters.
    private func writes() -> [(sql: String, values: [SQLValue])] {
        var writes: [(sql: String, values: [SQLValue])] = []
        for chunk in Self.chunks(saved) {
            writes.append(
                (
                    """
                    INSERT INTO records (game_id, zone_seq, record_type, record_key, body) VALUES \(Self.rows(chunk.count, of: 5))
                    ON CONFLICT (game_id, record_type, record_key) DO UPDATE SET zone_seq = excluded.zone_seq, body = excluded.body
                    """,
                    chunk.flatMap { game, saved in
                        [
                            .text(game), .integer(saved.sequence), .text(ZoneChange.Record.Kind.move.rawValue), .text(Self.recordKey(saved.move)),
                            .text(saved.body),
                        ]
                    }
                ))
        }
        for chunk in Self.chunks(changedHeads.sorted { ($0.game, $0.id) < ($1.game, $1.id) }) {
            writes.append(
                (
                    """
                    INSERT INTO replica_heads (game_id, replica_id, last_seq, author_id) VALUES \(Self.rows(chunk.count, of: 4))
                    ON CONFLICT (game_id, replica_id) DO UPDATE SET last_seq = excluded.last_seq
                    """, chunk.flatMap { key in [.text(key.game), .text(key.id), .integer(heads[key]!), .text(headAuthors[key] ?? "")] }
                ))
        }
        for chunk in Self.chunks(order.filter { games[$0]!.touched }) {
            // VALUES names its columns column1, column2, … in both engines.
            writes.append(
                (
                    """
                    UPDATE games SET zone_seq = v.column2, move_count = v.column3
                    FROM (VALUES \(Self.rows(chunk.count, of: 3))) AS v WHERE games.game_id = v.column1
                    """, chunk.flatMap { id in [.text(id), .integer(games[id]!.zoneSeq), .integer(games[id]!.moveCount)] }
                ))
        }
        return writes
    }

    /// The stored bodies of moves that a batch sends again (seq at or below its replica's head
    /// as far as taken, and not saved in this transaction), to tell a resend from a different
    /// move reusing a seq.
    private static func storedBodies(
        of requests: [AppendRequest], below heads: [Key: Int64], savedNow: [Key: String],
        on db: any SQLConnection
    ) async throws -> [Key: String] {
        var wanted: [String: Set<String>] = [:]
        for request in requests {
            for move in request.moves where Int64(move.seq) <= heads[Key(game: request.gameID, id: move.replicaID)] ?? 0 {
                let key = recordKey(move)
                if savedNow[Key(game: request.gameID, id: key)] == nil { wanted[request.gameID, default: []].insert(key) }
            }
        }
        var bodies: [Key: String] = [:]
        for (game, keys) in wanted.sorted(by: { $0.key < $1.key }) {
            for chunk in chunks(keys.sorted()) {
                for row in try await db.query(
                    """
                    SELECT record_key, body FROM records WHERE game_id = ? AND record_type = 'move' AND record_key IN (\(placeholders(chunk.count)))
                    """, [.text(game)] + chunk.map(SQLValue.text))
                {
                    bodies[Key(game: game, id: try row.string("record_key"))] = try row.string("body")
                }
            }
        }
        return bodies
    }

    static func chunks<T>(_ items: [T]) -> [ArraySlice<T>] {
        stride(from: 0, to: items.count, by: rowsPerStatement).map { items[$0..<min($0 + rowsPerStatement, items.count)] }
    }

    /// `?, ?, ?` for `count` values.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// `(?, ?), (?, ?)` for `count` rows of `width` values.
    static func rows(_ count: Int, of width: Int) -> String {
        Array(repeating: "(\(placeholders(width)))", count: count).joined(separator: ", ")
    }
}
