import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

// The store: a game's zone — appended moves, completions, participants leaving, other records,
// change pages and snapshots.
extension Store {
    /// Appends a device's moves to a game. Inside one transaction (shared with concurrent batches,
    /// see `GroupAppend`) it checks that the author is a participant with access, that each
    /// replica's seqs continue without gaps, and that nothing is stamped after the game's
    /// completion; a resent move is reported as a duplicate. Throws `StoreRefusal` for a missing
    /// game or an author without access.
    ///
    /// `ordered` hears the outcome as soon as the batch is checked and its moves have their zone
    /// sequences, before the group's COMMIT and its fsync: what it shows others may still be
    /// lost to a crash (the device that made the moves resends them, as it was never answered),
    /// or to a failed commit (then this throws, and what was shown must be read again). The
    /// answer itself comes only once the moves are on disk. With a commit window, `urgent: false`
    /// (nobody hears of these moves before their commit) lets the batch wait for the window's
    /// others and be ordered with them.
    public func appendMoves(
        gameID: String, authorID: String, moves: [MoveRecord], urgent: Bool = true, ordered: (@Sendable (AppendOutcome) -> Void)? = nil
    ) async throws -> AppendOutcome {
        try await commits.submit(
            AppendRequest(
                gameID: gameID, authorID: authorID, moves: moves, bodies: moves.map(\.sortedJSON), maximumMoves: maximumMovesPerGame,
                maximumPlayerMoves: maximumMovesPerPlayer, ordered: ordered, urgent: urgent))
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
            if let existing = row.text("completion") {
                let recorded = try Self.decode(CompletionRecord.self, existing, what: "completion", gameID: gameID)
                guard let final = try await Self.latestSnapshot(db, gameID: gameID) else {
                    throw CorruptRecord(what: "final snapshot", gameID: gameID, reason: "a completed game has no snapshot")
                }
                return StoredCompletion(completion: recorded, sequence: try row.integer("zone_seq"), finalSnapshot: final)
            }
            let sequence = try row.integer("zone_seq") + 1
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
                """, .text(gameID), .integer(snapshot.zoneSeq), .text(snapshot.snapshot.sortedJSON))
            return StoredCompletion(completion: completion, sequence: sequence, finalSnapshot: snapshot)
        }
    }

    /// Removes a participant who left: the zone says they are gone and their feed drops the game.
    /// A player in good standing loses their row (an invitation can bring them back); a player
    /// the owner removed keeps it, marked as left, so that no invitation undoes the removal.
    public func removeParticipant(_ participant: ParticipantRecord) async throws -> Int64 {
        let forUpdate = database.forUpdate
        return try await database.transaction { db in
            let sequence = try await Self.nextSequence(db, gameID: participant.gameID, forUpdate: forUpdate)
            try await db.execute(
                "DELETE FROM participants WHERE game_id = ? AND author_id = ? AND revoked = 0",
                .text(participant.gameID), .text(participant.authorID))
            try await db.execute(
                "UPDATE participants SET left_game = 1 WHERE game_id = ? AND author_id = ?",
                .text(participant.gameID), .text(participant.authorID))
            try await Self.revokeInvitations(db, gameID: participant.gameID, createdBy: participant.authorID)
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
            ).map { (deviceID: try $0.string("replica_id"), lastSeq: Int(try $0.integer("last_seq"))) }
        }
    }

    /// Writes a record that is not a move (a seal, a pause) under the zone's next sequence,
    /// replacing an earlier record of its kind and key; its sequence.
    public func putRecord(gameID: String, _ record: ZoneChange.Record) async throws -> Int64 {
        let forUpdate = database.forUpdate
        return try await database.transaction { db in
            let sequence = try await Self.nextSequence(db, gameID: gameID, forUpdate: forUpdate)
            try await Self.putRecord(db, gameID: gameID, sequence: sequence, record)
            return sequence
        }
    }

    /// Stores a chat message (a record the zone keeps once) under the zone's next sequence,
    /// unless one is kept under its key already: then that one and its sequence (a resend after
    /// a lost answer changes nothing). `isNew` says which.
    public func putMessage(
        _ message: ChatMessage, maximum: Int = Chat.maximumMessagesPerGame, by deviceID: String? = nil
    ) async throws -> (
        sequence: Int64, kept: ChatMessage, isNew: Bool
    ) {
        // Written once: the one kept never gives way.
        try await putLatest(message, as: ZoneChange.Record.message, gameID: message.gameID, maximum: maximum, by: deviceID) {
            if case let .message(kept) = $0 { kept } else { nil }
        } wins: { _, _ in
            false
        }
    }

    /// Stores a reaction under the zone's next sequence unless the one kept under its key
    /// decides over it (`Reaction.wins`): then that one stays, with its sequence, and `isNew` is
    /// false.
    public func putReaction(
        _ reaction: Reaction, maximum: Int = Chat.maximumReactionsPerGame, by deviceID: String? = nil
    ) async throws -> (
        sequence: Int64, kept: Reaction, isNew: Bool
    ) {
        try await putLatest(reaction, as: ZoneChange.Record.reaction, gameID: reaction.gameID, maximum: maximum, by: deviceID) {
            if case let .reaction(kept) = $0 { kept } else { nil }
        } wins: {
            $0.wins(over: $1)
        }
    }

    /// Stores a clue flag as `putReaction` stores a reaction (`ClueFlag.wins` decides).
    public func putFlag(_ flag: ClueFlag, by deviceID: String? = nil) async throws -> (sequence: Int64, kept: ClueFlag, isNew: Bool) {
        try await putLatest(flag, as: ZoneChange.Record.flag, gameID: flag.gameID, by: deviceID) {
            if case let .flag(kept) = $0 { kept } else { nil }
        } wins: {
            $0.wins(over: $1)
        }
    }

    /// A record whose latest decides (or, with `wins` never true, one written once): stored
    /// under the zone's next sequence unless the one kept under its key wins over it, and only
    /// while the game holds fewer than `maximum` of its kind. The game's row is locked first, so
    /// two devices' records decide in one order and two resends cannot both be stored.
    private func putLatest<Value: Equatable & Sendable>(
        _ value: Value, as record: @escaping @Sendable (Value) -> ZoneChange.Record, gameID: String, maximum: Int? = nil, by deviceID: String?,
        read: @escaping @Sendable (ZoneChange.Record) -> Value?, wins: @escaping @Sendable (Value, Value) -> Bool
    ) async throws -> (sequence: Int64, kept: Value, isNew: Bool) {
        let written = record(value)
        let forUpdate = database.forUpdate
        return try await database.transaction { db in
            if let deviceID { try await Self.requireDevice(db, deviceID, forUpdate: forUpdate) }
            guard try await db.first("SELECT zone_seq FROM games WHERE game_id = ?\(forUpdate)", .text(gameID)) != nil else {
                throw StoreRefusal.gameNotFound
            }
            if let row = try await db.first(
                "SELECT zone_seq, record_type, body FROM records WHERE game_id = ? AND record_type = ? AND record_key = ?", .text(gameID),
                .text(written.kind.rawValue), .text(written.key))
            {
                let change = try Self.encodedChange(row, gameID: gameID)
                guard let kept = read(try change.decoded(gameID: gameID).record) else {
                    throw CorruptRecord(
                        what: "\(written.kind.rawValue) at \(change.sequence)", gameID: gameID, reason: "it is another kind of record")
                }
                if kept == value || !wins(value, kept) { return (change.sequence, kept, false) }
            } else if let maximum {
                try await Self.requireRoom(db, gameID: gameID, for: written.kind, maximum: maximum)
            }
            let sequence = try await Self.nextSequence(db, gameID: gameID, forUpdate: forUpdate)
            try await Self.putRecord(db, gameID: gameID, sequence: sequence, written)
            return (sequence, value, true)
        }
    }

    /// Refuses a new record of `kind` when the game holds `maximum` already.
    static func requireRoom(_ db: any SQLConnection, gameID: String, for kind: ZoneChange.Record.Kind, maximum: Int) async throws {
        let held =
            try await db.first("SELECT count(*) AS held FROM records WHERE game_id = ? AND record_type = ?", .text(gameID), .text(kind.rawValue))?
            .int("held") ?? 0
        guard held < Int64(maximum) else { throw StoreRefusal.tooManyRecords(kind, maximum: maximum) }
    }

    /// Whether the game's zone holds a record of `kind` under `key`.
    public func holds(gameID: String, _ kind: ZoneChange.Record.Kind, key: String) async throws -> Bool {
        try await database.read { db in
            try await db.first(
                "SELECT zone_seq FROM records WHERE game_id = ? AND record_type = ? AND record_key = ?", .text(gameID), .text(kind.rawValue),
                .text(key)) != nil
        }
    }

    static func putRecord(_ db: any SQLConnection, gameID: String, sequence: Int64, _ record: ZoneChange.Record) async throws {
        try await db.execute(
            """
            INSERT INTO records (game_id, zone_seq, record_type, record_key, body) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (game_id, record_type, record_key) DO UPDATE SET zone_seq = excluded.zone_seq, body = excluded.body
            """, .text(gameID), .integer(sequence), .text(record.kind.rawValue), .text(record.key), .text(record.sortedJSON))
    }

    /// The game's chat messages stored after `sequence`, oldest first, at most `limit` (the
    /// newest when there are more), each with its zone sequence.
    public func messages(gameID: String, after sequence: Int64 = 0, limit: Int) async throws -> [(sequence: Int64, message: ChatMessage)] {
        try await database.read { db in
            try await db.query(
                """
                SELECT zone_seq, record_type, body FROM records WHERE game_id = ? AND record_type = 'message' AND zone_seq > ?
                ORDER BY zone_seq DESC LIMIT ?
                """, .text(gameID), .integer(sequence), .integer(Int64(limit))
            ).reversed().map { row in
                let change = try Self.encodedChange(row, gameID: gameID)
                guard case let .message(message) = try change.decoded(gameID: gameID).record else {
                    throw CorruptRecord(what: "message at \(change.sequence)", gameID: gameID, reason: "it is not a message")
                }
                return (change.sequence, message)
            }
        }
    }

    /// Changes after `sequence`, oldest first, at most `limit`; reading a whole history page by
    /// page goes on the `.history` lane.
    public func changes(gameID: String, after sequence: Int64, limit: Int, lane: ReadLane = .interactive) async throws -> [EncodedChange] {
        try await database.read(lane) { db in
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

    /// The device's latest pause in the game when it has made no move since (it stands paused:
    /// another pause would change nothing), else nil. Read by keys: the game's pauses (the
    /// device's picked by their key's start, compared as bytes on either database), the
    /// device's head and its latest move.
    public func standingPause(gameID: String, replicaID: String) async throws -> Pause? {
        try await database.read { db in
            guard
                let row = try await db.first(
                    """
                    SELECT zone_seq, record_type, body FROM records WHERE game_id = ? AND record_type = 'pause'
                    AND substr(record_key, 1, CAST(? AS INTEGER)) = ? ORDER BY zone_seq DESC LIMIT 1
                    """, .text(gameID), .integer(Int64(replicaID.count + 1)), .text(replicaID + ":"))
            else { return nil }
            let change = try Self.encodedChange(row, gameID: gameID)
            guard case let .pause(pause) = try change.decoded(gameID: gameID).record else {
                throw CorruptRecord(what: "pause at \(change.sequence)", gameID: gameID, reason: "it is not a pause")
            }
            guard
                let head = try await db.first(
                    "SELECT last_seq FROM replica_heads WHERE game_id = ? AND replica_id = ?", .text(gameID), .text(replicaID)),
                let lastSeq = head.int("last_seq"),
                let move = try await db.first(
                    "SELECT zone_seq FROM records WHERE game_id = ? AND record_type = 'move' AND record_key = ?", .text(gameID),
                    .text("\(replicaID):\(lastSeq)")),
                let moved = move.int("zone_seq")
            else { return pause }
            return moved < change.sequence ? pause : nil
        }
    }

    /// The game's seals (each device's word that all its moves are stored), read on the history
    /// lane: a replay asks for them.
    public func seals(gameID: String) async throws -> [Seal] {
        try await database.read(.history) { db in
            try await db.query(
                "SELECT zone_seq, record_type, body FROM records WHERE game_id = ? AND record_type = 'seal' ORDER BY zone_seq", .text(gameID)
            ).map { row in
                let change = try Self.encodedChange(row, gameID: gameID)
                guard case let .seal(seal) = try change.decoded(gameID: gameID).record else {
                    throw CorruptRecord(what: "seal at \(change.sequence)", gameID: gameID, reason: "it is not a seal")
                }
                return seal
            }
        }
    }

    /// Locks the game's row and takes its zone's next sequence for a record written in the same
    /// transaction (every other writer of the game waits for this one).
    static func nextSequence(_ db: any SQLConnection, gameID: String, forUpdate: String) async throws -> Int64 {
        guard let row = try await db.first("SELECT zone_seq FROM games WHERE game_id = ?\(forUpdate)", .text(gameID)),
            let current = row.int("zone_seq")
        else { throw StoreRefusal.gameNotFound }
        try await db.execute("UPDATE games SET zone_seq = ? WHERE game_id = ?", .integer(current + 1), .text(gameID))
        return current + 1
    }

    /// A change read from `zone_seq, record_type, body`.
    static func encodedChange(_ row: SQLRow, gameID: String) throws(CorruptRecord) -> EncodedChange {
        guard let sequence = row.int("zone_seq"), let type = row.text("record_type"), let json = row.text("body") else {
            throw CorruptRecord(what: "a record", gameID: gameID, reason: "its sequence, type or body is empty")
        }
        guard let kind = ZoneChange.Record.Kind(rawValue: type) else {
            throw CorruptRecord(what: "record at \(sequence)", gameID: gameID, reason: "unknown record type \(type)")
        }
        return EncodedChange(sequence: sequence, kind: kind, json: json)
    }

    /// Stores a periodic snapshot, unless the game is complete: then its final grid stays the
    /// latest snapshot.
    public func saveSnapshot(gameID: String, zoneSeq: Int64, snapshot: Snapshot) async throws {
        // Encoded before the transaction: the one writer need not wait while a grid is encoded.
        let body = snapshot.sortedJSON
        try await database.transaction { db in
            try await db.execute(
                """
                INSERT INTO snapshots (game_id, zone_seq, body) SELECT ?, ?, ? WHERE EXISTS
                (SELECT 1 FROM games WHERE game_id = ? AND completion IS NULL)
                ON CONFLICT (game_id, zone_seq) DO UPDATE SET body = excluded.body
                """, .text(gameID), .integer(zoneSeq), .text(body), .text(gameID))
        }
    }

    /// The newest snapshot: for a completed game, its final grid.
    public func latestSnapshot(gameID: String, lane: ReadLane = .interactive) async throws -> StoredSnapshot? {
        try await database.read(lane) { db in try await Self.latestSnapshot(db, gameID: gameID) }
    }

    static func latestSnapshot(_ db: any SQLConnection, gameID: String) async throws -> StoredSnapshot? {
        guard
            let row = try await db.first(
                "SELECT zone_seq, body FROM snapshots WHERE game_id = ? ORDER BY zone_seq DESC LIMIT 1",
                .text(gameID))
        else { return nil }
        return StoredSnapshot(
            zoneSeq: try row.integer("zone_seq"), snapshot: try decode(Snapshot.self, try row.string("body"), what: "snapshot", gameID: gameID))
    }
}
