/// A value that travels as one opaque string (a change token, a list cursor): in JSON it is
/// that string, and a string that does not decode as one is refused, naming what it should be.
public protocol OpaqueString: Codable {
    /// What it is, for the error a client sees ("a change token").
    static var name: String { get }
    init?(encoded: String)
    var encoded: String { get }
}

extension OpaqueString {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(encoded: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not \(Self.name)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encoded)
    }
}

/// An opaque position in a zone's change feed: the zone and the last sequence number seen.
/// On the wire it is a short base64url string; clients store it and send it back unchanged.
public struct ChangeToken: Hashable, Sendable, OpaqueString, CustomStringConvertible {
    public static let name = "a change token"
    public var zone: String
    public var sequence: Int64

    public init(zone: String, sequence: Int64) {
        self.zone = zone
        self.sequence = sequence
    }

    public var encoded: String {
        Base64URL.encode("v1:\(zone):\(sequence)".utf8)
    }

    /// Decodes a token, or returns `nil` when it is not one of ours: `v1:ZONE:SEQUENCE` with a
    /// zone that is not empty and has no colon, and a sequence of at least zero. (Every poke
    /// carries tokens, so this reads the bytes in place rather than splitting strings.)
    public init?(encoded: String) {
        guard encoded.utf8.count <= 200, let bytes = Base64URL.decode(encoded) else { return nil }
        let colon = UInt8(ascii: ":")
        guard bytes.count > 3, bytes[0] == UInt8(ascii: "v"), bytes[1] == UInt8(ascii: "1"), bytes[2] == colon,
            let second = bytes[3...].firstIndex(of: colon), second > 3,
            !bytes[(second + 1)...].contains(colon),
            let zone = String(validating: bytes[3..<second], as: UTF8.self),
            let digits = String(validating: bytes[(second + 1)...], as: UTF8.self),
            let sequence = Int64(digits), sequence >= 0
        else { return nil }
        self.zone = zone
        self.sequence = sequence
    }

    public var description: String { encoded }
}
