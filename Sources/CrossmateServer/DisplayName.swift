import CrossmateProtocol

/// The rule for a person's display name: trimmed, 1 to 60 characters and at most 120 bytes of
/// UTF-8 (one character can carry any number of combining marks), no control characters.
enum DisplayName {
    static func validated(_ raw: String) throws -> String {
        let characters = ProtocolLimits.maximumDisplayNameLength
        let bytes = ProtocolLimits.maximumDisplayNameBytes
        guard raw.utf8.count <= bytes * 4 else { throw APIError(.invalid, "a display name is at most \(bytes) bytes") }
        let name = raw.trimmingSpaces
        guard !name.isEmpty, name.utf8.count <= bytes, name.count <= characters else {
            throw APIError(.invalid, "a display name has 1 to \(characters) characters and at most \(bytes) bytes")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError(.invalid, "a display name cannot hold control characters such as line breaks")
        }
        return name
    }
}
