/// An opaque position in a zone's change feed: the zone and the last sequence number seen.
/// On the wire it is a short base64url string; clients store it and send it back unchanged.
public struct ChangeToken: Hashable, Sendable, Codable, CustomStringConvertible {
    public var zone: String
    public var sequence: Int64

    public init(zone: String, sequence: Int64) {
        self.zone = zone
        self.sequence = sequence
    }

    public var encoded: String {
        Base64URL.encode("v1:\(zone):\(sequence)".utf8)
    }

    /// Decodes a token, or returns `nil` when it is not one of ours.
    public init?(encoded: String) {
        guard encoded.utf8.count <= 200, let bytes = Base64URL.decode(encoded),
              let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1", !parts[1].isEmpty, let sequence = Int64(parts[2]), sequence >= 0 else { return nil }
        zone = String(parts[1])
        self.sequence = sequence
    }

    public var description: String { encoded }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let token = ChangeToken(encoded: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a change token"))
        }
        self = token
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encoded)
    }
}
