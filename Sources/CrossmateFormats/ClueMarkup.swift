/// Reduces the HTML that .jpz and .ipuz allow in clues (`<b>`, `<i>`, `<sub>`, entities) to
/// plain text, with runs of whitespace collapsed to one space. Linear in the clue's length: a
/// clue is whatever an uploaded file says, so no step may look further ahead than a fixed
/// distance, except through the table of where the next `>` is, built once.
enum ClueMarkup {
    static func plainText(_ markup: String) -> String {
        let characters = Array(markup)
        // nextClose[i]: the index of the first ">" at or after i (characters.count if none).
        var nextClose = [Int](repeating: characters.count, count: characters.count + 1)
        for index in characters.indices.reversed() {
            nextClose[index] = characters[index] == ">" ? index : nextClose[index + 1]
        }
        var out = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let next = index + 1
            let close = nextClose[next]
            if character == "<", close < characters.count, next < close,
                characters[next].isLetter || characters[next] == "/" || characters[next] == "!"
            {
                if next + 1 < characters.count, characters[next].lowercased() == "b", characters[next + 1].lowercased() == "r" {
                    out.append(" ")
                }
                index = close + 1
            } else if character == "&", let semicolon = characters[index..<min(index + 10, characters.count)].firstIndex(of: ";"),
                let decoded = entity(String(characters[next..<semicolon]))
            {
                out.append(decoded)
                index = semicolon + 1
            } else {
                out.append(character)
                index = next
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
            let value =
                digits.lowercased().hasPrefix("x")
                ? UInt32(digits.dropFirst(), radix: 16)
                : UInt32(digits)
            return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
    }
}
