import CrossmateCore
import CrossmateSync

/// A move on the wire. Field names and types are fixed by golden JSON tests: the timestamp is
/// the HLC as `{"counter", "wallMillis"}`, the mark its lossless code, the kind its name.
public struct MoveRecord: Codable, Hashable, Sendable {
    public var gameID: String
    public var replicaID: String
    /// Stamped by the server from the device's token; whatever a client sends is replaced.
    public var authorID: String
    public var seq: Int
    public var timestamp: HLCTimestamp
    public var row: Int
    public var col: Int
    public var letter: String
    public var mark: Int
    public var cellAuthorID: String
    public var kind: String
    public var batchID: String
    public var targetSeq: Int?
    public var prevSeqAtCell: Int?
}

extension MoveRecord {
    public init(_ move: Move) {
        gameID = move.gameID
        replicaID = move.replicaID
        authorID = move.authorID
        seq = move.seq
        timestamp = move.timestamp
        row = move.position.row
        col = move.position.col
        letter = move.letter
        mark = move.mark.code
        cellAuthorID = move.cellAuthorID
        kind = move.kind.rawValue
        batchID = move.batchID
        targetSeq = move.targetSeq
        prevSeqAtCell = move.prevSeqAtCell
    }

    /// The engine's move, or why this record is not one.
    public func move() throws(ErrorBody) -> Move {
        guard let kind = MoveKind(rawValue: kind) else { throw ErrorBody(.invalid, "unknown move kind \"\(TextRule.quote(self.kind))\"") }
        guard let mark = CellMark(code: mark) else { throw ErrorBody(.invalid, "unknown mark code \(self.mark)") }
        return Move(
            gameID: gameID, replicaID: replicaID, authorID: authorID, seq: seq, timestamp: timestamp,
            position: GridPosition(row: row, col: col), letter: letter, mark: mark, cellAuthorID: cellAuthorID,
            kind: kind, batchID: batchID, targetSeq: targetSeq, prevSeqAtCell: prevSeqAtCell)
    }
}

/// How a game ended, on the wire.
public struct CompletionRecord: Codable, Hashable, Sendable {
    /// "solved" or "resigned"; any other value does not decode.
    public var kind: Completion.Kind
    public var at: HLCTimestamp
    public var by: String

    public init(_ completion: Completion) {
        kind = completion.kind
        at = completion.at
        by = completion.by
    }

    public var completion: Completion { Completion(kind: kind, at: at, by: by) }
}

/// The Game record of a game zone: the puzzle, its owner and how it ended.
public struct GameRecord: Codable, Hashable, Sendable {
    public var gameID: String
    public var ownerID: String
    public var createdAt: Int64
    public var puzzle: Puzzle
    public var completion: CompletionRecord?

    public init(gameID: String, ownerID: String, createdAt: Int64, puzzle: Puzzle, completion: CompletionRecord? = nil) {
        self.gameID = gameID
        self.ownerID = ownerID
        self.createdAt = createdAt
        self.puzzle = puzzle
        self.completion = completion
    }
}

/// A participant of a game: owner or player, and whether their access was removed.
public struct ParticipantRecord: Codable, Hashable, Sendable {
    public enum Role: String, Codable, Sendable { case owner, player }

    public var gameID: String
    public var authorID: String
    public var displayName: String
    public var role: Role
    public var revoked: Bool
    /// The zone sequence at which the player first joined, set by the server and kept through
    /// later changes: colours are handed out in this order, so a newcomer never moves anyone's
    /// (`PlayerColors.assign`). Nil in records stored before it existed (they sort first).
    public var joined: Int64?

    public init(gameID: String, authorID: String, displayName: String, role: Role, revoked: Bool = false, joined: Int64? = nil) {
        self.gameID = gameID
        self.authorID = authorID
        self.displayName = displayName
        self.role = role
        self.revoked = revoked
        self.joined = joined
    }

    /// Players in the order they joined (`joined`, then account id for equal or unknown ones).
    public static func joiningOrder(_ a: Self, _ b: Self) -> Bool {
        (a.joined ?? 0, a.authorID) < (b.joined ?? 0, b.authorID)
    }
}

/// One change in a zone's feed, with the sequence number it was given.
public struct ZoneChange: Codable, Hashable, Sendable {
    public enum Record: Hashable, Sendable {
        case move(MoveRecord)
        case game(GameRecord)
        case participant(ParticipantRecord)
        case seal(Seal)
        case pause(Pause)
        case message(ChatMessage)
        case reaction(Reaction)
        case flag(ClueFlag)
    }

    public var sequence: Int64
    public var record: Record

    public init(sequence: Int64, record: Record) {
        self.sequence = sequence
        self.record = record
    }

    enum CodingKeys: String, CodingKey { case sequence, type, record }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sequence = try container.decode(Int64.self, forKey: .sequence)
        let type = try container.decode(String.self, forKey: .type)
        guard let kind = Record.Kind(rawValue: type) else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown record type \(type)")
        }
        record = try Record.read(kind, from: FieldReader(container: container))
    }

    /// Reads the `record` field of a change.
    struct FieldReader: RecordValueReader {
        let container: KeyedDecodingContainer<CodingKeys>
        func value<T: Decodable>(_ type: T.Type) throws -> T { try container.decode(type, forKey: .record) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(record.kind.rawValue, forKey: .type)
        switch record {
        case let .move(move): try container.encode(move, forKey: .record)
        case let .game(game): try container.encode(game, forKey: .record)
        case let .participant(participant): try container.encode(participant, forKey: .record)
        case let .seal(seal): try container.encode(seal, forKey: .record)
        case let .pause(pause): try container.encode(pause, forKey: .record)
        case let .message(message): try container.encode(message, forKey: .record)
        case let .reaction(reaction): try container.encode(reaction, forKey: .record)
        case let .flag(flag): try container.encode(flag, forKey: .record)
        }
    }
}
