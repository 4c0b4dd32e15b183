import CrossmateCore

/// An account: a person. Stamped by the server from the device's token.
public typealias AuthorID = String
/// A device (one install or browser profile); also the replica that writes moves.
public typealias ReplicaID = String
/// A game: one zone of records.
public typealias GameID = String
/// One gesture; every move it makes shares it and undo treats them as one step.
public typealias BatchID = String

/// Why a move was made.
public enum MoveKind: String, Hashable, Sendable, Codable, CaseIterable {
    case input
    case check
    case reveal
    case clear
    case undo
    case redo

    /// Only typing and clearing can be undone; checks and reveals are recorded but never offered.
    public var isUndoable: Bool { self == .input || self == .clear }
}

/// The unit of sync and of the journal: one replica's change to one square, immutable once made.
/// `(gameID, replicaID, seq)` is unique, so resending a move is harmless.
public struct Move: Hashable, Sendable, Codable {
    public var gameID: GameID
    public var replicaID: ReplicaID
    /// The acting author: who made this move.
    public var authorID: AuthorID
    /// Per replica: 1, 2, 3, … with no gaps.
    public var seq: Int
    public var timestamp: HLCTimestamp
    public var position: GridPosition
    /// The letter left in the square: "" for empty, several characters for a rebus.
    public var letter: String
    public var mark: CellMark
    /// Who wrote the letter now in the square ("" when empty). Differs from `authorID` when,
    /// say, a check re-marks a friend's letter.
    public var cellAuthorID: AuthorID
    public var kind: MoveKind
    public var batchID: BatchID
    /// For undo and redo: the seq of this replica's entry acted on.
    public var targetSeq: Int?
    /// This replica's previous entry at the same square, if any.
    public var prevSeqAtCell: Int?

    public init(
        gameID: GameID, replicaID: ReplicaID, authorID: AuthorID, seq: Int, timestamp: HLCTimestamp,
        position: GridPosition, letter: String, mark: CellMark = .none, cellAuthorID: AuthorID,
        kind: MoveKind, batchID: BatchID, targetSeq: Int? = nil, prevSeqAtCell: Int? = nil
    ) {
        self.gameID = gameID
        self.replicaID = replicaID
        self.authorID = authorID
        self.seq = seq
        self.timestamp = timestamp
        self.position = position
        self.letter = letter
        self.mark = mark
        self.cellAuthorID = cellAuthorID
        self.kind = kind
        self.batchID = batchID
        self.targetSeq = targetSeq
        self.prevSeqAtCell = prevSeqAtCell
    }

    /// The identity of a move within its game.
    public var id: MoveID { MoveID(replicaID: replicaID, seq: seq) }

    /// The key the merge orders writes by.
    public var writeKey: WriteKey { WriteKey(timestamp: timestamp, authorID: authorID, replicaID: replicaID, seq: seq) }
}

/// Identifies a move within a game.
public struct MoveID: Hashable, Sendable, Codable {
    public var replicaID: ReplicaID
    public var seq: Int

    public init(replicaID: ReplicaID, seq: Int) {
        self.replicaID = replicaID
        self.seq = seq
    }
}

/// The last-writer-wins order: the higher timestamp wins; on a tie the lexicographically smaller
/// authorID, then the smaller replicaID (and, for safety, the higher seq).
public struct WriteKey: Hashable, Sendable, Codable {
    public var timestamp: HLCTimestamp
    public var authorID: AuthorID
    public var replicaID: ReplicaID
    public var seq: Int

    public init(timestamp: HLCTimestamp, authorID: AuthorID, replicaID: ReplicaID, seq: Int) {
        self.timestamp = timestamp
        self.authorID = authorID
        self.replicaID = replicaID
        self.seq = seq
    }

    /// Whether a write with this key beats one with `other`.
    @inline(__always)
    public func wins(over other: WriteKey) -> Bool {
        if timestamp != other.timestamp { return timestamp > other.timestamp }
        if authorID != other.authorID { return authorID < other.authorID }
        if replicaID != other.replicaID { return replicaID < other.replicaID }
        return seq > other.seq
    }
}
