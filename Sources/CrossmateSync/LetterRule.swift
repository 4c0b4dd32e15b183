/// Which letters a square accepts: one to `maximumLength` characters (several make a rebus) of
/// letters, digits and the few symbols rebus squares use, at most `maximumBytes` bytes of UTF-8,
/// upper-cased. Shared by the mutator and the server's validation. The byte limit is what
/// bounds storage: one character can carry any number of combining marks.
public enum LetterRule {
    public static let maximumLength = 12
    public static let maximumBytes = 48
    /// Symbols a rebus square may hold besides letters and digits.
    public static let symbols: Set<Unicode.Scalar> = ["&", "/", "-", "+", "'", ".", "?", "!", "#", "@", "*", "=", "$", "%"]

    /// The letter as stored, or `nil` when it may not go in a square.
    public static func normalize(_ raw: String) -> String? {
        guard raw.utf8.count <= maximumBytes * 2 else { return nil }  // before upper-casing does any work
        let letter = raw.uppercased()
        guard letter.utf8.count <= maximumBytes, (1...maximumLength).contains(letter.count) else { return nil }
        for character in letter {
            guard let first = character.unicodeScalars.first, isBase(first) else { return nil }
            // What follows the base scalar in one character may only be combining marks (accents).
            for scalar in character.unicodeScalars.dropFirst() where !isMark(scalar) { return nil }
        }
        return letter
    }

    private static func isBase(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .otherLetter, .modifierLetter, .decimalNumber: true
        default: symbols.contains(scalar)
        }
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }
}
