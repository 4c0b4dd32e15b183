import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import GRDB

/// Players, seals and the chat of each game.
extension ClientStore {
    /// A game's participant record as the server last sent it.
    public func saveParticipant(_ participant: ParticipantRecord) throws {
        let row = ParticipantRow(gameID: participant.gameID, authorID: participant.authorID, record: JSONText.sorted(participant))
        try queue.write { db in try row.upsert(db) }
    }

    /// A game's players, each named as every screen shows them (`PlayerNames`: two players whose
    /// names read alike are told apart by a mark of their account).
    public func participants(gameID: String) throws -> [ParticipantRecord] {
        let records = try queue.read { db in
            try ParticipantRow.filter(ParticipantRow.Columns.gameID == gameID).order(ParticipantRow.Columns.authorID).fetchAll(db)
                .map { try Self.decode(ParticipantRecord.self, $0.record, what: "participant") }
        }
        let shown = PlayerNames.shown(records.map { ($0.authorID, $0.displayName) })
        return records.map { record in
            var named = record
            named.displayName = shown[record.authorID] ?? record.displayName
            return named
        }
    }

    /// A device's Seal: every move it made in the finished game is pushed, through `lastSeq`
    /// (a later seal never lowers it).
    public func saveSeal(_ seal: Seal) throws {
        let row = SealRow(gameID: seal.gameID, replicaID: seal.replicaID, lastSeq: seal.lastSeq)
        try queue.write { db in
            _ = try row.upsertAndFetch(db, updating: .noColumnUnlessSpecified) { excluded in
                [SealRow.Columns.lastSeq.set(to: max(SealRow.Columns.lastSeq, excluded[SealRow.Columns.lastSeq]))]
            }
        }
    }

    public func seals(gameID: String) throws -> [Seal] {
        try queue.read { db in
            try SealRow.filter(SealRow.Columns.gameID == gameID).order(SealRow.Columns.replicaID).fetchAll(db)
                .map { Seal(gameID: $0.gameID, replicaID: $0.replicaID, lastSeq: $0.lastSeq) }
        }
    }

    /// A player's pause, heard from the server (the same pause twice is kept once).
    public func savePause(_ pause: Pause) throws {
        let row = PauseRow(gameID: pause.gameID, replicaID: pause.replicaID, at: pause.at, authorID: pause.authorID)
        try queue.write { db in try row.insert(db, onConflict: .ignore) }
    }

    public func pauses(gameID: String) throws -> [Pause] {
        try queue.read { db in
            try PauseRow.filter(PauseRow.Columns.gameID == gameID).order(PauseRow.Columns.at).fetchAll(db)
                .map { Pause(gameID: $0.gameID, authorID: $0.authorID, replicaID: $0.replicaID, at: $0.at) }
        }
    }

    /// A message this device wrote: kept before anyone hears of it, waiting to be sent.
    public func writeMessage(_ message: ChatMessage) throws {
        try queue.write { db in try MessageRow(message, sequence: nil, pending: .waiting).insert(db, onConflict: .ignore) }
    }

    /// A message heard from the server (one of this device's own among them: it is then sent).
    public func saveMessage(_ message: ChatMessage, sequence: Int64) throws {
        try queue.write { db in
            try MessageRow(message, sequence: sequence, pending: .held).upsert(db)
        }
    }

    /// The server holds this device's message, at `sequence`.
    public func markMessageSent(_ message: ChatMessage, sequence: Int64) throws {
        try saveMessage(message, sequence: sequence)
    }

    /// The server refused the message for good: it leaves the outbox, marked with why.
    public func markMessageRefused(_ message: ChatMessage, reason: String) throws {
        try queue.write { db in
            _ = try MessageRow.filter(key: ["game_id": message.gameID, "replica_id": message.replicaID, "message_id": message.messageID])
                .updateAll(db, MessageRow.Columns.pending.set(to: MoveRow.Outbox.refused), MessageRow.Columns.refusal.set(to: reason))
        }
    }

    /// Gives an unsent message a new timestamp (after the server refused it as stamped ahead).
    public func restampMessage(_ message: ChatMessage) throws {
        try queue.write { db in
            _ = try MessageRow.filter(key: ["game_id": message.gameID, "replica_id": message.replicaID, "message_id": message.messageID])
                .filter(sql: "pending = 1")
                .updateAll(db, Column("wall_millis").set(to: message.timestamp.wallMillis), Column("counter").set(to: Int(message.timestamp.counter)))
        }
    }

    /// Messages written here and not yet sent, oldest first, of every game.
    public func unsentMessages() throws -> [ChatMessage] {
        try queue.read { db in
            try MessageRow.filter(sql: "pending = 1").order(Column("wall_millis"), Column("counter")).fetchAll(db).map(\.message)
        }
    }

    /// A game's conversation as this device holds it: every message, whether the server has it
    /// (its zone sequence) and why it refused one.
    public func messages(gameID: String) throws -> [(message: ChatMessage, sequence: Int64?, refusal: String?)] {
        try queue.read { db in
            try MessageRow.filter(MessageRow.Columns.gameID == gameID).fetchAll(db).map {
                ($0.message, $0.zoneSeq, $0.pending == .refused ? $0.refusal ?? "refused" : nil)
            }
        }
    }

    /// A reaction, kept when it decides over the one held for its author, message and emoji
    /// (`Reaction.wins`): heard from the server (`pending` held), or given here (waiting).
    /// Returns whether it was kept.
    @discardableResult
    public func saveReaction(_ reaction: Reaction, sent: Bool) throws -> Bool {
        try queue.write { db in
            let key: [String: any DatabaseValueConvertible] = [
                "game_id": reaction.gameID, "author_id": reaction.authorID, "message_key": reaction.messageKey, "emoji": reaction.emoji,
            ]
            if let held = try ReactionRow.fetchOne(db, key: key) {
                let kept = held.reaction
                // The server's copy of the one waiting here: it is sent.
                if kept == reaction {
                    if sent, held.pending != .held { try ReactionRow(reaction, pending: .held).update(db) }
                    return false
                }
                guard reaction.wins(over: kept) else { return false }
            }
            try ReactionRow(reaction, pending: sent ? .held : .waiting).save(db)
            return true
        }
    }

    /// A clue flag, kept when it decides over the one held for its author and clue
    /// (`ClueFlag.wins`): heard from the server (`sent`), or raised here (waiting). Returns
    /// whether it was kept.
    @discardableResult
    public func saveFlag(_ flag: ClueFlag, sent: Bool) throws -> Bool {
        try queue.write { db in
            if let held = try FlagRow.fetchOne(db, key: ["game_id": flag.gameID, "key": flag.key]) {
                let kept = try Self.decode(ClueFlag.self, held.body, what: "flag")
                if kept == flag {
                    if sent, held.pending != .held { try FlagRow(gameID: flag.gameID, key: flag.key, body: held.body, pending: .held).update(db) }
                    return false
                }
                guard flag.wins(over: kept) else { return false }
            }
            try FlagRow(gameID: flag.gameID, key: flag.key, body: JSONText.sorted(flag), pending: sent ? .held : .waiting).save(db)
            return true
        }
    }

    /// Flags raised or taken down here and not yet sent.
    public func unsentFlags() throws -> [ClueFlag] {
        try queue.read { db in try FlagRow.filter(sql: "pending = 1").fetchAll(db).map { try Self.decode(ClueFlag.self, $0.body, what: "flag") } }
    }

    /// A game's flags as this device holds them.
    public func flags(gameID: String) throws -> [ClueFlag] {
        try queue.read { db in
            try FlagRow.filter(FlagRow.Columns.gameID == gameID).fetchAll(db).map { try Self.decode(ClueFlag.self, $0.body, what: "flag") }
        }
    }

    /// Reactions given here and not yet sent, oldest first.
    public func unsentReactions() throws -> [Reaction] {
        try queue.read { db in
            try ReactionRow.filter(sql: "pending = 1").order(Column("wall_millis"), Column("counter")).fetchAll(db).map(\.reaction)
        }
    }

    /// A game's reactions as this device holds them.
    public func reactions(gameID: String) throws -> [Reaction] {
        try queue.read { db in try ReactionRow.filter(ReactionRow.Columns.gameID == gameID).fetchAll(db).map(\.reaction) }
    }

    /// The device's learned offset to the server's clock, in milliseconds (server minus local).
    public func serverOffsetMillis() throws -> Int64 {
        try queue.read { db in try SettingRow.fetchOne(db, key: SettingRow.serverOffsetMillis).flatMap { Int64($0.value) } ?? 0 }
    }

    public func setServerOffsetMillis(_ offset: Int64) throws {
        try queue.write { db in try SettingRow(key: SettingRow.serverOffsetMillis, value: String(offset)).upsert(db) }
    }

    /// The server's last restore from a backup this device has checked its moves against.
    public func checkedRestore() throws -> Int64? {
        try queue.read { db in try SettingRow.fetchOne(db, key: SettingRow.checkedRestore).flatMap { Int64($0.value) } }
    }

    public func setCheckedRestore(_ restoredAt: Int64) throws {
        try queue.write { db in try SettingRow(key: SettingRow.checkedRestore, value: String(restoredAt)).upsert(db) }
    }

    /// Puts this device's last acknowledged move of every game back in the outbox: sent again,
    /// the server answers that it holds it (a duplicate), or that it lost it and where to go
    /// on from (`RecordResult.nextSeq`). How many games.
    public func recheckAcknowledged(replicaID: String) throws -> Int {
        var games = 0
        for gameID in try queue.read({ db in
            try MoveRow.filter(MoveRow.Columns.replicaID == replicaID).select(MoveRow.Columns.gameID, as: String.self).distinct().fetchAll(db)
        }) {
            let through = try acknowledgedThrough(gameID: gameID, replicaID: replicaID)
            if through > 0, try resend(gameID: gameID, replicaID: replicaID, from: through) > 0 { games += 1 }
        }
        return games
    }

    public func saveSnapshot(gameID: String, zoneSeq: Int64, snapshot: Snapshot) throws {
        let row = SnapshotRow(gameID: gameID, zoneSeq: zoneSeq, body: JSONText.sorted(snapshot))
        try queue.write { db in try row.upsert(db) }
    }

    public func snapshot(gameID: String) throws -> (zoneSeq: Int64, snapshot: Snapshot)? {
        try queue.read { db in
            try SnapshotRow.fetchOne(db, key: gameID).map { ($0.zoneSeq, try Self.decode(Snapshot.self, $0.body, what: "snapshot")) }
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ json: String, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(json.utf8))
        } catch {
            throw CorruptLocalRecord(what: what, reason: "\(error)")
        }
    }

    static func move(_ body: String) throws -> Move {
        let record = try decode(MoveRecord.self, body, what: "move")
        do { return try record.move() } catch { throw CorruptLocalRecord(what: "move", reason: error.message) }
    }
}
