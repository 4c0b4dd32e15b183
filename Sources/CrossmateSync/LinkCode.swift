/// The code that links a new device to an account: ten letters and digits, shown as two groups
/// of five ("K7QM4-XPD2R"), typed in any case with or without the dash or spaces. Crockford's
/// base-32 alphabet, so a code read aloud or off a screen has no look-alikes: O is read as 0 and
/// I or L as 1. Fifty bits: with one working code per account, ten minutes each, and each
/// address allowed a few tries a minute, a guess finds no one's code (README, "Linking a device").
public enum LinkCode {
    /// The symbols a code is made of (no I, L, O or U).
    public static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    /// Symbols in a code.
    public static let length = 10

    /// A new code from `random` (the server passes the system's), canonical (`shown` spells it
    /// for a person).
    public static func make(using random: inout some RandomNumberGenerator) -> String {
        String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
    }

    /// The code as a person reads it: two groups of five.
    public static func shown(_ code: String) -> String {
        guard code.count == length else { return code }
        return String(code.prefix(length / 2)) + "-" + String(code.suffix(length / 2))
    }

    /// The code as typed, made canonical (upper case, no dashes or spaces, look-alikes read as
    /// the symbol they look like); nil when it cannot be a code (a wrong length or a symbol that
    /// is no code's, or more than 64 bytes typed).
    public static func normalized(_ typed: String) -> String? {
        guard typed.utf8.count <= 64 else { return nil }
        var symbols: [Character] = []
        for character in typed {
            if character == "-" || character == " " || character == "\u{2010}" || character == "\u{2013}" { continue }
            guard let ascii = character.asciiValue else { return nil }
            let upper = Character(Unicode.Scalar((0x61...0x7a).contains(ascii) ? ascii - 0x20 : ascii))
            let read: Character =
                switch upper {
                case "O": "0"
                case "I", "L": "1"
                default: upper
                }
            guard alphabet.contains(read) else { return nil }
            symbols.append(read)
        }
        return symbols.count == length ? String(symbols) : nil
    }
}
