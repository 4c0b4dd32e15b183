import CrossmateSync
import Foundation

extension ZoneChange.Record {
    /// The zone's record types, as a change's `type` names them.
    public enum Kind: String, CaseIterable, Codable, Hashable, Sendable {
        case move, game, participant, seal, pause
    }

    public var kind: Kind {
        switch self {
        case .move: .move
        case .game: .game
        case .participant: .participant
        case .seal: .seal
        case .pause: .pause
        }
    }

    /// The key the zone keeps the record under: a later record of the same kind and key replaces
    /// it (a participant's new role, a device's later seal). Moves are keyed by replica and seq,
    /// pauses by replica and time, so neither is ever replaced.
    public var key: String {
        switch self {
        case let .move(move): "\(move.replicaID):\(move.seq)"
        case .game: "game"
        case let .participant(participant): participant.authorID
        case let .seal(seal): seal.replicaID
        case let .pause(pause): pause.key
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
        let data = Data(json.utf8)
        let decoder = JSONDecoder()
        switch kind {
        case .move: return ZoneChange(sequence: sequence, record: .move(try decoder.decode(MoveRecord.self, from: data)))
        case .game: return ZoneChange(sequence: sequence, record: .game(try decoder.decode(GameRecord.self, from: data)))
        case .participant:
            return ZoneChange(sequence: sequence, record: .participant(try decoder.decode(ParticipantRecord.self, from: data)))
        case .seal: return ZoneChange(sequence: sequence, record: .seal(try decoder.decode(Seal.self, from: data)))
        case .pause: return ZoneChange(sequence: sequence, record: .pause(try decoder.decode(Pause.self, from: data)))
        }
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
