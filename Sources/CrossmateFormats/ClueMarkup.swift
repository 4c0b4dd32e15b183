/// Reduces the HTML that .jpz and .ipuz allow in clues (`<b>`, `<i>`, `<sub>`, entities) to
/// plain text, with runs of whitespace collapsed to one space.
enum ClueMarkup {
    static func plainText(_ markup: String) -> String {
        var out = ""
        var index = markup.startIndex
        while index < markup.endIndex {
            let character = markup[index]
            if character == "<", let close = markup[index...].firstIndex(of: ">"),
               let next = markup.index(index, offsetBy: 1, limitedBy: markup.endIndex), next < close,
               markup[next].isLetter || markup[next] == "/" || markup[next] == "!" {
                if markup[next...].lowercased().hasPrefix("br") { out.append(" ") }
                index = markup.index(after: close)
            } else if character == "&", let semicolon = markup[index...].prefix(10).firstIndex(of: ";"),
                      let decoded = entity(String(markup[markup.index(after: index)..<semicolon])) {
                out.append(decoded)
                index = markup.index(after: semicolon)
            } else {
                out.append(character)
                index = markup.index(after: index)
            }
        }
        return out.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    private static func entity(_ name: String) -> String? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return " "
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.lowercased().hasPrefix("x")
                ? UInt32(digits.dropFirst(), radix: 16)
                : UInt32(digits)
            return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
    }
}
