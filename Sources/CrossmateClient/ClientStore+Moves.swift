import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import GRDB

/// Moves and the outbox: every move known, what waits to be pushed, restamping.
extension ClientStore {
    /// This device's own moves, just made: stored as unsent, before anyone is told of them.
    public func recordOwn(_ moves: [Move]) throws {
        try insert(moves, pending: .waiting)
    }

    /// Moves that came from the server (others', or this device's own coming back): a resend is
    /// harmless, and an own move the server has is no longer unsent.
    public func recordReceived(_ moves: [Move]) throws {
        try insert(moves, pending: .held)
    }

    func insert(_ moves: [Move], pending: MoveRow.Outbox) throws {
        guard !moves.isEmpty else { return }
        let rows = moves.map {
            MoveRow(gameID: $0.gameID, replicaID: $0.replicaID, seq: $0.seq, body: MoveRecord($0).sortedJSON, pending: pending)
        }
        try queue.write { db in
            for row in rows { try row.store(db) }
        }
    }

    /// A game's moves (of one replica, when one is named).
    static func moves(of gameID: String, replica replicaID: String? = nil) -> QueryInterfaceRequest<MoveRow> {
        let game = MoveRow.filter(MoveRow.Columns.gameID == gameID)
        return replicaID.map { game.filter(MoveRow.Columns.replicaID == $0) } ?? game
    }

    /// This device's moves of a game not yet acknowledged, in seq order.
    public func unsent(gameID: String, limit: Int = 400) throws -> [Move] {
        try queue.read { db in
            try Self.moves(of: gameID).filter(MoveRow.isWaiting)
                .order(MoveRow.Columns.replicaID, MoveRow.Columns.seq).limit(limit).fetchAll(db).map { try Self.move($0.body) }
        }
    }

    /// Forgets everything this device kept (identity, games, moves, outbox, pauses): signing
    /// out, or starting afresh as another account. The schema stays.
    public func erase() throws {
        try queue.write { db in
            _ = try IdentityRow.deleteAll(db)
            _ = try GameRow.deleteAll(db)
            _ = try MoveRow.deleteAll(db)
            _ = try SnapshotRow.deleteAll(db)
            _ = try ParticipantRow.deleteAll(db)
            _ = try SealRow.deleteAll(db)
            _ = try PauseRow.deleteAll(db)
            _ = try MessageRow.deleteAll(db)
            _ = try ReactionRow.deleteAll(db)
            _ = try FlagRow.deleteAll(db)
            _ = try SettingRow.deleteAll(db)
        }
    }

    /// Unsent moves across every game, or of one.
    public func unsentCount(gameID: String? = nil) throws -> Int {
        try queue.read { db in
            let waiting = MoveRow.filter(MoveRow.isWaiting)
            return try (gameID.map { waiting.filter(MoveRow.Columns.gameID == $0) } ?? waiting).fetchCount(db)
        }
    }

    /// The server acknowledged this device's moves of a game up to `seq`.
    public func markSent(gameID: String, replicaID: String, through seq: Int) throws {
        try queue.write { db in
            _ = try Self.moves(of: gameID, replica: replicaID)
                .filter(MoveRow.Columns.seq <= seq).filter(MoveRow.isWaiting)
                .updateAll(db, MoveRow.Columns.pending.set(to: MoveRow.Outbox.held))
        }
    }

    /// The server holds this device's moves of a game only up to `seq` - 1 (it was restored from
    /// a backup): every one from `seq` on goes back in the outbox, in order, to be sent again.
    /// How many; 0 when this device does not hold the move at `seq` (nothing can fill the gap).
    @discardableResult
    public func resend(gameID: String, replicaID: String, from seq: Int) throws -> Int {
        try queue.write { db in
            let replica = Self.moves(of: gameID, replica: replicaID)
            guard try replica.filter(MoveRow.Columns.seq == seq).fetchCount(db) == 1 else { return 0 }
            return try replica.filter(MoveRow.Columns.seq >= seq).filter(!MoveRow.isWaiting)
                .updateAll(db, MoveRow.Columns.pending.set(to: MoveRow.Outbox.waiting))
        }
    }

    /// The server refused one of this device's moves for good (it will never take it): it leaves
    /// the outbox but stays known, marked refused.
    public func markRefused(gameID: String, replicaID: String, seq: Int) throws {
        try queue.write { db in
            _ = try Self.moves(of: gameID, replica: replicaID)
                .filter(MoveRow.Columns.seq == seq).filter(MoveRow.isWaiting)
                .updateAll(db, MoveRow.Columns.pending.set(to: MoveRow.Outbox.refused))
        }
    }

    /// The highest seq S such that the server holds every one of the replica's moves 1…S.
    public func acknowledgedThrough(gameID: String, replicaID: String) throws -> Int {
        try queue.read { db in
            let replica = Self.moves(of: gameID, replica: replicaID)
            let firstNotHeld =
                try replica.filter(MoveRow.Columns.pending != MoveRow.Outbox.held)
                .select(min(MoveRow.Columns.seq), as: Int?.self).fetchOne(db) ?? nil
            if let firstNotHeld { return firstNotHeld - 1 }
            return try replica.select(max(MoveRow.Columns.seq), as: Int?.self).fetchOne(db).flatMap { $0 } ?? 0
        }
    }

    /// Moves of a game this device knows.
    public func moveCount(gameID: String) throws -> Int {
        try queue.read { db in try Self.moves(of: gameID).fetchCount(db) }
    }

    /// Every move of a game this device knows, by replica and seq.
    public func moves(gameID: String) throws -> [Move] {
        try queue.read { db in
            try Self.moves(of: gameID).order(MoveRow.Columns.replicaID, MoveRow.Columns.seq).fetchAll(db).map { try Self.move($0.body) }
        }
    }

    /// Rewrites unsent moves of this device (same replica and seq) with new timestamps: after
    /// the server refused them as stamped too far ahead, before anyone has seen them.
    public func restamp(_ moves: [Move]) throws {
        guard !moves.isEmpty else { return }
        try queue.write { db in
            for move in moves {
                _ = try Self.moves(of: move.gameID, replica: move.replicaID)
                    .filter(MoveRow.Columns.seq == move.seq).filter(MoveRow.isWaiting)
                    .updateAll(db, MoveRow.Columns.body.set(to: MoveRecord(move).sortedJSON))
            }
        }
    }

    /// Games with moves not yet acknowledged.
    public func gamesWithUnsentMoves() throws -> [String] {
        try queue.read { db in
            try MoveRow.filter(MoveRow.isWaiting).select(MoveRow.Columns.gameID, as: String.self).distinct()
                .order(MoveRow.Columns.gameID).fetchAll(db)
        }
    }
}
