import CrossmateSync
import Foundation

/// Reads a record's value as one type or another (see `ZoneChange.Record.read`).
protocol RecordValueReader {
    func value<T: Decodable>(_ type: T.Type) throws -> T
}

extension ZoneChange.Record {
    /// The zone's record types, as a change's `type` names them.
    public enum Kind: String, CaseIterable, Codable, Hashable, Sendable {
        case move, game, participant, seal, pause, message, reaction, flag
    }

    public var kind: Kind {
        switch self {
        case .move: .move
        case .game: .game
        case .participant: .participant
        case .seal: .seal
        case .pause: .pause
        case .message: .message
        case .reaction: .reaction
        case .flag: .flag
        }
    }

    /// The key the zone keeps the record under: a later record of the same kind and key replaces
    /// it (a participant's new role, a device's later seal). Moves are keyed by replica and seq,
    /// pauses by replica and time, messages by replica and message id: none is ever replaced
    /// (`isWrittenOnce`).
    public var key: String {
        switch self {
        case let .move(move): "\(move.replicaID):\(move.seq)"
        case .game: "game"
        case let .participant(participant): participant.authorID
        case let .seal(seal): seal.replicaID
        case let .pause(pause): pause.key
        case let .message(message): message.key
        case let .reaction(reaction): reaction.key
        case let .flag(flag): flag.key
        }
    }

    /// Whether the zone keeps the first record under a key: a second one (a resend after a
    /// lost answer) is the same record and changes nothing.
    public var isWrittenOnce: Bool {
        switch self {
        case .message: true
        case .move, .game, .participant, .seal, .pause, .reaction, .flag: false
        }
    }

    /// The record of `kind` whose value `reader` reads (a change's field, or stored JSON): the
    /// one place a kind says which type it holds.
    static func read(_ kind: Kind, from reader: some RecordValueReader) throws -> Self {
        switch kind {
        case .move: .move(try reader.value(MoveRecord.self))
        case .game: .game(try reader.value(GameRecord.self))
        case .participant: .participant(try reader.value(ParticipantRecord.self))
        case .seal: .seal(try reader.value(Seal.self))
        case .pause: .pause(try reader.value(Pause.self))
        case .message: .message(try reader.value(ChatMessage.self))
        case .reaction: .reaction(try reader.value(Reaction.self))
        case .flag: .flag(try reader.value(ClueFlag.self))
        }
    }

    /// The record as JSON with sorted keys: how the zone stores it (an identical resend has an
    /// identical body).
    public var sortedJSON: String {
        switch self {
        case let .move(move): move.sortedJSON
        case let .game(game): JSONText.sorted(game)
        case let .participant(participant): JSONText.sorted(participant)
        case let .seal(seal): JSONText.sorted(seal)
        case let .pause(pause): JSONText.sorted(pause)
        case let .message(message): JSONText.sorted(message)
        case let .reaction(reaction): JSONText.sorted(reaction)
        case let .flag(flag): JSONText.sorted(flag)
        }
    }
}

/// A zone change whose record is held as the JSON the zone stored for it. Changes pass through
/// the server by the thousand a second (pokes, change pages), so they are spliced into messages
/// as they are instead of being decoded and encoded again; `ZoneChange` is the same change
/// decoded, and `list` spells exactly what encoding `[ZoneChange]` with sorted keys spells.
/// (Its own `Codable` form, the record's JSON as a string, is how the server's instances pass
/// changes to each other; devices see the `ZoneChange` shape.)
public struct EncodedChange: Codable, Hashable, Sendable {
    public var sequence: Int64
    public var kind: ZoneChange.Record.Kind
    /// The record's stored JSON (sorted keys).
    public var json: String

    public init(sequence: Int64, kind: ZoneChange.Record.Kind, json: String) {
        self.sequence = sequence
        self.kind = kind
        self.json = json
    }

    public init(_ change: ZoneChange) {
        self.init(sequence: change.sequence, kind: change.record.kind, json: change.record.sortedJSON)
    }

    /// The change decoded; a stored body that is not its kind's JSON throws the decoder's error.
    public func decoded() throws -> ZoneChange {
        ZoneChange(sequence: sequence, record: try .read(kind, from: JSONReader(data: Data(json.utf8))))
    }

    /// Reads a record's value from its stored JSON.
    struct JSONReader: RecordValueReader {
        let data: Data
        func value<T: Decodable>(_ type: T.Type) throws -> T { try JSONDecoder().decode(type, from: data) }
    }

    /// The changes as a JSON array in `ZoneChange`'s shape, around each record's stored JSON:
    /// byte for byte what `JSONText.sorted` makes of the decoded changes.
    public static func list(_ changes: some Sequence<EncodedChange>) -> String {
        var text = "["
        for (index, change) in changes.enumerated() {
            if index > 0 { text += "," }
            text += #"{"record":"# + change.json + #","sequence":\#(change.sequence),"type":"\#(change.kind.rawValue)"}"#
        }
        return text + "]"
    }
}
