/// Which letters a square accepts: one to `maximumLength` visible characters (several make a
/// rebus), upper-cased. Shared by the mutator and the server's validation.
public enum LetterRule {
    public static let maximumLength = 12

    /// The letter as stored, or `nil` when it may not go in a square.
    public static func normalize(_ raw: String) -> String? {
        let letter = raw.uppercased()
        guard (1...maximumLength).contains(letter.count) else { return nil }
        for scalar in letter.unicodeScalars {
            guard !scalar.properties.isWhitespace, scalar.properties.generalCategory != .control,
                  scalar.properties.generalCategory != .format else { return nil }
        }
        return letter
    }
}
