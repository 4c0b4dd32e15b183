import Foundation

// Messages the server sends by the thousand a second, spelled by hand: around records' stored
// JSON (which is not decoded and encoded again for every reader), or without the encoder's
// reflection. Each is byte for byte what `JSONText.sorted` makes of its `Codable` twin
// (GoldenJSONTests holds them to it).

extension ChangesResponse {
    /// A changes page as `ChangesResponse` encodes it, around the changes' stored JSON.
    public static func json(changes: some Sequence<EncodedChange>, token: ChangeToken, moreComing: Bool, serverTime: Int64) -> String {
        #"{"changes":"# + EncodedChange.list(changes)
            + #","moreComing":\#(moreComing),"serverTime":\#(serverTime),"token":"\#(token.encoded)"}"#
    }
}

extension ClientSocketMessage {
    /// `ClientSocketMessage.ping` as it encodes: sent every few seconds by every device.
    public static let pingJSON = #"{"type":"ping"}"#
}

extension ServerSocketMessage {
    /// `ServerSocketMessage.poke` as it encodes, around the inline changes' stored JSON.
    public static func pokeJSON(zone: String, token: ChangeToken, after: ChangeToken? = nil, changes: [EncodedChange]? = nil) -> String {
        var text = "{"
        if let after { text += #""after":"\#(after.encoded)","# }
        if let changes { text += #""changes":"# + EncodedChange.list(changes) + "," }
        return text + #""token":"\#(token.encoded)","type":"poke","zone":\#(JSONText.quoted(zone))}"#
    }

    /// A relay as `ServerSocketMessage.relay` encodes it, around the changes' stored JSON.
    public static func relayJSON(zone: String, after: ChangeToken, changes: [EncodedChange], committed: ChangeToken) -> String {
        #"{"after":"\#(after.encoded)","changes":"# + EncodedChange.list(changes)
            + #","committed":"\#(committed.encoded)","type":"relay","zone":\#(JSONText.quoted(zone))}"#
    }

    /// The answer to a push that stored or recognised every move it sent (every push while
    /// people type) as `ServerSocketMessage.pushed` encodes it; nil for any other answer (a
    /// refusal's error or a completion go through the encoder).
    public static func pushedJSON(id: Int, gameID: String, response: PushMovesResponse) -> String? {
        guard response.completion == nil, response.results.allSatisfy({ $0.error == nil }) else { return nil }
        var text = #"{"gameID":"# + JSONText.quoted(gameID) + #","id":\#(id),"response":{"results":["#
        for (index, result) in response.results.enumerated() {
            if index > 0 { text += "," }
            text += #"{"replicaID":"# + JSONText.quoted(result.replicaID) + #","seq":\#(result.seq),"#
            if let sequence = result.sequence { text += #""sequence":\#(sequence),"# }
            text += #""status":"\#(result.status.rawValue)"}"#
        }
        return text + #"],"serverTime":\#(response.serverTime),"token":"\#(response.token.encoded)"},"type":"pushed"}"#
    }
}
