/// The one rule for text a player or a file sets (names, titles, authors, notes, clues, nudges):
/// bounded in UTF-8 bytes, no control characters (line breaks aside, where a field allows them),
/// no bidirectional overrides or isolates (which make text read as something else), and, where
/// a field needs a value, at least one visible character. Text from players is refused when it
/// breaks the rule (`check`); text from a puzzle file is cleaned instead (`clean`), so one stray
/// escape in a clue does not cost the whole puzzle.
public enum TextRule {
    /// Why a text was refused, in words for the person who typed it.
    public enum Violation: Error, Equatable, Sendable, CustomStringConvertible {
        case tooLong(field: String, maximumBytes: Int)
        case empty(field: String)
        case controlCharacter(field: String)
        case bidiControl(field: String)
        case invisible(field: String)

        public var description: String {
            switch self {
            case let .tooLong(field, maximum): "\(field) is at most \(maximum) bytes of UTF-8"
            case let .empty(field): "\(field) cannot be empty"
            case let .controlCharacter(field): "\(field) cannot hold control characters such as escapes or line breaks"
            case let .bidiControl(field): "\(field) cannot hold characters that reverse the direction of text"
            case let .invisible(field): "\(field) needs at least one visible character"
            }
        }
    }

    /// Checks a player's text: trimmed of surrounding white space, then held to the rule.
    /// `field` names it in the refusal ("a display name"); `required` needs a visible character.
    public static func check(
        _ raw: String, field: String, maximumBytes: Int, required: Bool, allowsLineBreaks: Bool = false
    ) throws(Violation)
        -> String
    {
        // A text many times over the limit is refused before trimming looks at all of it.
        guard raw.utf8.count <= maximumBytes * 4 else { throw .tooLong(field: field, maximumBytes: maximumBytes) }
        let text = raw.trimmingWhiteSpace
        guard text.utf8.count <= maximumBytes else { throw .tooLong(field: field, maximumBytes: maximumBytes) }
        for scalar in text.unicodeScalars {
            if isBidiControl(scalar) { throw .bidiControl(field: field) }
            if isControl(scalar), !(allowsLineBreaks && scalar == "\n") { throw .controlCharacter(field: field) }
        }
        if required {
            guard !text.isEmpty else { throw .empty(field: field) }
            guard text.unicodeScalars.contains(where: isVisible) else { throw .invisible(field: field) }
        }
        return text
    }

    /// Cleans text from a file: control and direction-changing characters go (a tab or line
    /// break becomes a space, unless line breaks are allowed), and the text is cut to
    /// `maximumBytes` between characters.
    public static func clean(_ raw: String, maximumBytes: Int, allowsLineBreaks: Bool = false) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars {
            if isBidiControl(scalar) { continue }
            if scalar == "\n", allowsLineBreaks {
                scalars.append(scalar)
            } else if scalar == "\t" || scalar == "\n" || scalar == "\r" {
                scalars.append(" ")
            } else if !isControl(scalar) {
                scalars.append(scalar)
            }
        }
        return String(scalars).prefix(bytes: maximumBytes)
    }

    /// Whether `text` already meets what `clean` makes of it.
    public static func isClean(_ text: String, allowsLineBreaks: Bool = false) -> Bool {
        !text.unicodeScalars.contains { isBidiControl($0) || (isControl($0) && !(allowsLineBreaks && $0 == "\n")) }
    }

    /// A piece of a client's input to name in a message: at most `maximumBytes` bytes of UTF-8
    /// (cut between scalars, "…" marking the cut), control characters shown as U+FFFD. Every
    /// answer that names something a client sent quotes it through here, so no answer grows
    /// with its input.
    public static func quote(_ raw: some StringProtocol, maximumBytes: Int = 40) -> String {
        var scalars = String.UnicodeScalarView()
        var bytes = 0
        for scalar in raw.unicodeScalars {
            let shown: Unicode.Scalar = isControl(scalar) || isBidiControl(scalar) ? "\u{FFFD}" : scalar
            let size = UTF8.width(shown)
            guard bytes + size <= maximumBytes else { return String(scalars) + "…" }
            bytes += size
            scalars.append(shown)
        }
        return String(scalars)
    }

    /// Text from someone else made safe to print on a terminal: control and direction-changing
    /// characters (escape sequences among them) are shown as U+FFFD, so a title or message
    /// cannot move the cursor, clear the screen or rename the window; and no character carries
    /// more than `maximumMarksShown` combining marks (a stack of hundreds draws over the lines
    /// above and below it). `play` and `crossmate chat` both print through here.
    public static func terminalSafe(_ text: String) -> String {
        guard !isClean(text) || hasMarkStack(text) else { return text }
        var scalars = String.UnicodeScalarView()
        var marks = 0
        for scalar in text.unicodeScalars {
            if isCombiningMark(scalar) {
                marks += 1
                if marks > maximumMarksShown { continue }
            } else {
                marks = 0
            }
            scalars.append(isControl(scalar) || isBidiControl(scalar) ? "\u{FFFD}" : scalar)
        }
        return String(scalars)
    }

    /// The most combining marks a character keeps on a terminal: enough for any language's
    /// accents (Vietnamese stacks two), not for a tower.
    public static let maximumMarksShown = 3

    static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .spacingMark: true
        default: false
        }
    }

    /// Whether some character of `text` carries more than `maximumMarksShown` marks.
    static func hasMarkStack(_ text: String) -> Bool {
        var marks = 0
        for scalar in text.unicodeScalars {
            marks = isCombiningMark(scalar) ? marks + 1 : 0
            if marks > maximumMarksShown { return true }
        }
        return false
    }

    /// C0 and C1 controls (escape, bell, line breaks, DEL and the 8-bit CSI among them).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and the marks U+200E,
    /// U+200F and U+061C: characters that change which way text reads.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }

    /// A scalar that puts ink on the screen by itself: not white space, not a format character
    /// (zero width spaces and joiners), not a control, not unassigned or a private-use code
    /// point, not a mark (which draws only on a character before it: U+034F, variation
    /// selectors such as U+FE0F, accents), not a default-ignorable code point.
    static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.isWhitespace || scalar.properties.isDefaultIgnorableCodePoint { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .unassigned, .privateUse, .surrogate, .spaceSeparator, .lineSeparator, .paragraphSeparator, .nonspacingMark,
            .enclosingMark:
            return false
        default: break
        }
        // Hangul fillers and the Braille blank draw nothing, though Unicode calls them letters.
        return ![0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800].contains(scalar.value)
    }
}

extension String {
    /// At most `maximumBytes` bytes of UTF-8, cut between characters.
    public func prefix(bytes maximumBytes: Int) -> String {
        guard utf8.count > maximumBytes else { return self }
        var bytes = 0
        return String(
            prefix { character in
                bytes += character.utf8.count
                return bytes <= maximumBytes
            })
    }

    /// Without white space (spaces, tabs, line breaks) at either end.
    var trimmingWhiteSpace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
