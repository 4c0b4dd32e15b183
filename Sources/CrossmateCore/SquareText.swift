/// What a square holds: one to `maximumLength` characters (several make a rebus) of letters,
/// digits and the few symbols rebus squares use, each with any combining marks, at most
/// `maximumBytes` bytes of UTF-8, upper-cased. The one rule the mutator, the server's
/// validation, the solving keys and the terminal follow; the browser's keys.js follows the same
/// table of cases (Tests/CrossmateCoreTests/Resources/solving-keys.json, "characters"). The byte
/// limit is what bounds storage: one character can carry any number of combining marks.
public enum SquareText {
    public static let maximumLength = 12
    public static let maximumBytes = 48
    /// Symbols a rebus square may hold besides letters and digits.
    public static let symbols: Set<Unicode.Scalar> = ["&", "/", "-", "+", "'", ".", "?", "!", "#", "@", "*", "=", "$", "%"]

    /// The text as a square stores it, or `nil` when it may not go in a square.
    public static func normalize(_ raw: String) -> String? {
        guard raw.utf8.count <= maximumBytes * 2 else { return nil }  // before upper-casing does any work
        let text = raw.uppercased()
        guard text.utf8.count <= maximumBytes, (1...maximumLength).contains(text.count), text.allSatisfy(accepts) else { return nil }
        return text
    }

    /// Whether a square may hold `character` (among others, in a rebus): a letter, a decimal
    /// digit or a rebus symbol, followed only by combining marks (accents).
    public static func accepts(_ character: Character) -> Bool {
        guard let first = character.unicodeScalars.first, isBase(first) || symbols.contains(first) else { return false }
        return character.unicodeScalars.dropFirst().allSatisfy(isMark)
    }

    /// Whether one key typing `character` writes it: a letter or a decimal digit (a symbol goes
    /// in through a rebus entry; alone, its key may mean something else).
    public static func isTypedDirectly(_ character: Character) -> Bool {
        guard let first = character.unicodeScalars.first, isBase(first) else { return false }
        return character.unicodeScalars.dropFirst().allSatisfy(isMark)
    }

    /// An open rebus entry after `typed`: the characters a square accepts, upper-cased, added
    /// while the entry stays within `maximumLength` characters and `maximumBytes` bytes.
    public static func rebus(_ entry: String, adding typed: String) -> String {
        var entry = entry
        for character in typed.uppercased() where accepts(character) {
            guard entry.count < maximumLength, entry.utf8.count + String(character).utf8.count <= maximumBytes else { break }
            entry.append(character)
        }
        return entry
    }

    private static func isBase(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .otherLetter, .modifierLetter, .decimalNumber: true
        default: false
        }
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }
}
