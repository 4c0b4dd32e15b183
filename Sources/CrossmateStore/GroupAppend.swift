import CrossmateProtocol
import Foundation

/// One device's batch of moves for one game, waiting for a group commit. The bodies are the
/// moves' stored JSON, encoded before the queue (encoding need not take turns).
struct AppendRequest: Sendable {
    var gameID: String
    var authorID: String
    var moves: [MoveRecord]
    var bodies: [String]
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
enum GroupAppend {
    /// Rows per multi-row statement, so the placeholders stay well inside both engines' limits
    /// (SQLite 32,766; PostgreSQL 65,535) and SQLite's statement cache holds few shapes.
    static let rowsPerStatement = 64
    /// Write statements sent together (see `SQLConnection.executeAll`).
    static let statementsPerTrip = 8

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

    static func run(_ requests: [AppendRequest], on db: any SQLConnection, forUpdate: String) async throws -> [Result<AppendOutcome, StoreRefusal>] {
        let gameIDs = Array(Set(requests.map(\.gameID))).sorted()
        var games: [String: GameState] = [:]
        for chunk in chunks(gameIDs) {
            for row in try await db.query("""
                SELECT game_id, zone_seq, move_count, completion FROM games WHERE game_id IN (\(placeholders(chunk.count)))
                ORDER BY game_id\(forUpdate)
                """, chunk.map(SQLValue.text)) {
                let completion = row.text(3).flatMap { try? JSONDecoder().decode(CompletionRecord.self, from: Data($0.utf8)) }
                games[row.text(0)!] = GameState(zoneSeq: row.int(1)!, moveCount: row.int(2)!, completion: completion)
            }
        }
        let foundIDs = gameIDs.filter { games[$0] != nil }
        var revoked: [Key: Bool] = [:]
        var heads: [Key: Int64] = [:]
        for chunk in chunks(foundIDs) {
            // Read after the games are locked, not in the locking statement: under PostgreSQL's
            // READ COMMITTED each statement sees what was committed when it began, so only a
            // later statement sees what a writer that held a lock committed before letting go.
            let list = placeholders(chunk.count)
            for row in try await db.query("""
                SELECT 'p', game_id, author_id, revoked FROM participants WHERE game_id IN (\(list))
                UNION ALL SELECT 'h', game_id, replica_id, last_seq FROM replica_heads WHERE game_id IN (\(list))
                """, (chunk + chunk).map(SQLValue.text)) {
                let key = Key(game: row.text(1)!, id: row.text(2)!)
                if row.text(0) == "p" { revoked[key] = row.bool(3) } else { heads[key] = row.int(3)! }
            }
        }
        let earlier = try await storedBodies(of: requests, below: heads, on: db)

        var outcomes: [Result<AppendOutcome, StoreRefusal>] = []
        var bodiesNow: [Key: String] = [:]
        var savedNow: [SavedMove] = []
        var gameOfSaved: [String] = []
        var changedHeads: Set<Key> = []
        for request in requests {
            guard var game = games[request.gameID] else {
                outcomes.append(.failure(.gameNotFound))
                continue
            }
            switch revoked[Key(game: request.gameID, id: request.authorID)] {
            case nil:
                outcomes.append(.failure(.notParticipant))
                continue
            case true?:
                outcomes.append(.failure(.revoked))
                continue
            case false?:
                break
            }
            var results: [RecordResult] = []
            var saved: [SavedMove] = []
            for (move, body) in zip(request.moves, request.bodies) {
                let replica = Key(game: request.gameID, id: move.replicaID)
                let recordKey = Key(game: request.gameID, id: "\(move.replicaID):\(move.seq)")
                let head = heads[replica] ?? 0
                if Int64(move.seq) <= head {
                    let existing = bodiesNow[recordKey] ?? earlier[recordKey]
                    results.append(existing == body
                        ? RecordResult(replicaID: move.replicaID, seq: move.seq, status: .duplicate)
                        : RecordResult(replicaID: move.replicaID, seq: move.seq, status: .rejected,
                                       error: ErrorBody(.invalid, "seq \(move.seq) of \(move.replicaID) is already used by a different move")))
                    continue
                }
                guard Int64(move.seq) == head + 1 else {
                    results.append(RecordResult(replicaID: move.replicaID, seq: move.seq, status: .rejected,
                                                error: ErrorBody(.invalid, "seq \(move.seq) leaves a gap: the next seq of \(move.replicaID) is \(head + 1)")))
                    continue
                }
                if let completion = game.completion, move.timestamp > completion.at {
                    results.append(RecordResult(replicaID: move.replicaID, seq: move.seq, status: .rejected,
                                                error: ErrorBody(.readOnly, "the game was completed before this move was made")))
                    continue
                }
                game.zoneSeq += 1
                game.moveCount += 1
                game.touched = true
                heads[replica] = head + 1
                changedHeads.insert(replica)
                bodiesNow[recordKey] = body
                saved.append(SavedMove(sequence: game.zoneSeq, move: move, body: body))
                results.append(RecordResult(replicaID: move.replicaID, seq: move.seq, status: .saved, sequence: game.zoneSeq))
            }
            games[request.gameID] = game
            savedNow += saved
            gameOfSaved += Array(repeating: request.gameID, count: saved.count)
            outcomes.append(.success(AppendOutcome(results: results, saved: saved, zoneSeq: game.zoneSeq, moveCount: game.moveCount)))
        }

        var writes: [(sql: String, values: [SQLValue])] = []
        for chunk in chunks(Array(zip(gameOfSaved, savedNow))) {
            writes.append(("""
                INSERT INTO records (game_id, zone_seq, record_type, record_key, body) VALUES \(rows(chunk.count, of: 5))
                ON CONFLICT (game_id, record_type, record_key) DO UPDATE SET zone_seq = excluded.zone_seq, body = excluded.body
                """, chunk.flatMap { game, saved in
                    [.text(game), .integer(saved.sequence), .text("move"), .text("\(saved.move.replicaID):\(saved.move.seq)"), .text(saved.body)]
                }))
        }
        for chunk in chunks(changedHeads.sorted { ($0.game, $0.id) < ($1.game, $1.id) }) {
            writes.append(("""
                INSERT INTO replica_heads (game_id, replica_id, last_seq) VALUES \(rows(chunk.count, of: 3))
                ON CONFLICT (game_id, replica_id) DO UPDATE SET last_seq = excluded.last_seq
                """, chunk.flatMap { key in [.text(key.game), .text(key.id), .integer(heads[key]!)] }))
        }
        for chunk in chunks(foundIDs.filter { games[$0]!.touched }) {
            // VALUES names its columns column1, column2, … in both engines.
            writes.append(("""
                UPDATE games SET zone_seq = v.column2, move_count = v.column3
                FROM (VALUES \(rows(chunk.count, of: 3))) AS v WHERE games.game_id = v.column1
                """, chunk.flatMap { id in [.text(id), .integer(games[id]!.zoneSeq), .integer(games[id]!.moveCount)] }))
        }
        // Each touches rows no other touches, so they may go as one statement.
        for start in stride(from: 0, to: writes.count, by: statementsPerTrip) {
            try await db.executeAll(Array(writes[start..<min(start + statementsPerTrip, writes.count)]))
        }
        return outcomes
    }

    /// The stored bodies of moves that a batch sends again (seq at or below its replica's head
    /// when the group began), to tell a resend from a different move reusing a seq.
    private static func storedBodies(of requests: [AppendRequest], below heads: [Key: Int64],
                                     on db: any SQLConnection) async throws -> [Key: String] {
        var wanted: [String: Set<String>] = [:]
        for request in requests {
            for move in request.moves where Int64(move.seq) <= heads[Key(game: request.gameID, id: move.replicaID)] ?? 0 {
                wanted[request.gameID, default: []].insert("\(move.replicaID):\(move.seq)")
            }
        }
        var bodies: [Key: String] = [:]
        for (game, keys) in wanted.sorted(by: { $0.key < $1.key }) {
            for chunk in chunks(keys.sorted()) {
                for row in try await db.query("""
                    SELECT record_key, body FROM records WHERE game_id = ? AND record_type = 'move' AND record_key IN (\(placeholders(chunk.count)))
                    """, [.text(game)] + chunk.map(SQLValue.text)) {
                    bodies[Key(game: game, id: row.text(0)!)] = row.text(1)!
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
