import CrossmateCore
import CrossmateProtocol

/// The rule for a person's display name: `TextRule` (at most 120 bytes of UTF-8, no control
/// or direction-changing characters, something visible), and at most 60 characters.
enum DisplayName {
    static func validated(_ raw: String) throws -> String {
        let characters = ProtocolLimits.maximumDisplayNameLength
        let bytes = ProtocolLimits.maximumDisplayNameBytes
        let name: String
        do {
            name = try TextRule.check(raw, field: "a display name", maximumBytes: bytes, required: true)
        } catch {
            throw APIError(.invalid, "\(error)")
        }
        guard name.count <= characters else {
            throw APIError(.invalid, "a display name has 1 to \(characters) characters and at most \(bytes) bytes")
        }
        return name
    }
}
