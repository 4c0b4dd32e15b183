import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

/// Text as the screen sets it: the help, wrapping, clipping, the clock, small digits.
extension PlayScreen {
    /// The keys of `play`, as `?` shows them: a key and what it does.
    public static let keys: [(key: String, does: String)] = [
        ("letters", "fill the square and move on"),
        ("arrows", "move (across the direction: turn)"),
        ("space", "turn"),
        ("Tab, Shift-Tab", "next, previous unfilled word"),
        ("PgDn, PgUp", "next, previous word"),
        ("Backspace, Delete", "erase back, erase here"),
        ("Home, End", "the word's first, last square"),
        ("click", "a square (again: turn) or a clue"),
        ("^R or Insert", "rebus: Enter writes it, Esc cancels"),
        ("^P", "pencil"),
        ("^Z, ^Y", "undo, redo"),
        ("^X c, r or x", "check, reveal, clear: then s, w or p"),
        ("^G 12 a", "go to a clue (a: across, d: down)"),
        ("^T", "chat: Enter sends, Esc puts it away"),
        ("^W", "flag the word for the others"),
        ("^N, ^L", "nudge the others to help; a link to invite a friend"),
        ("^S", "pause your clock (any key goes on)"),
        ("^F", "follow another player (again: the next)"),
        ("^K", "pin a player's colour, on all your devices"),
        ("^O", "the puzzle's notes"),
        ("^E", "at the finish: the next puzzle with everyone (f: a file)"),
        ("^Q", "quit"),
    ]

    /// `?`: the keys as a table, in two columns where the terminal is wide enough, over the
    /// whole screen until any key.
    func helpScreen(width: Int, height: Int) -> Frame {
        var frame = Frame(width: width, height: height)
        frame.put(Self.clip(" Keys of crossmate play", to: width), row: 0, col: 0, style: Style(bold: true, reverse: true))
        let keyWidth = Self.keys.map(\.key.count).max()! + 2
        let entryWidth = keyWidth + Self.keys.map(\.does.count).max()!
        let columns = width >= 2 * entryWidth + 4 ? 2 : 1
        let perColumn = (Self.keys.count + columns - 1) / columns
        // A line under the title where there is room (an 80×24 terminal has the rows just).
        let top = height >= perColumn + 3 ? 2 : 1
        for (index, entry) in Self.keys.enumerated() {
            let row = top + index % perColumn
            let left = 1 + (index / perColumn) * (entryWidth + 4)
            guard row < height - 1 else { continue }
            let col = frame.put(entry.key, row: row, col: left, style: Style(bold: true))
            frame.put(Self.clip(entry.does, to: max(0, width - left - keyWidth)), row: row, col: max(col, left + keyWidth))
        }
        frame.put(Self.clip(" Any key closes this help.", to: width), row: height - 1, col: 0, style: Style(dim: true))
        return frame
    }

    /// `text` in lines of at most `width` characters, broken between words; lines after the
    /// first are indented by `hanging` spaces (within the width).
    static func wrap(_ text: String, to width: Int, hanging: Int = 0) -> [String] {
        guard width > 0 else { return [] }
        let indent = String(repeating: " ", count: min(hanging, width / 2))
        var lines: [String] = []
        var line = ""
        // Leading spaces (a right-aligned number) are kept.
        let lead = text.prefix { $0 == " " }
        for (index, word) in text.dropFirst(lead.count).split(separator: " ").enumerated() {
            var word = Substring(index == 0 ? lead + word : word)
            if line.isEmpty {
                line = (lines.isEmpty ? "" : indent)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
                continue
            } else if word.count <= width - indent.count {
                lines.append(line)
                line = indent
            } else {
                line += " "  // too long for any line: it starts here
            }
            // A word longer than a line (a long fill, `[_______________]`) is broken across lines.
            while line.count + word.count > width, width - line.count > 0 {
                let room = width - line.count
                lines.append(line + word.prefix(room))
                word = word.dropFirst(room)
                line = indent
            }
            line += word
        }
        if !line.trimmingCharacters(in: .whitespaces).isEmpty { lines.append(line) }
        return lines.map { clip($0, to: width) }
    }

    /// `text` in at most `width` characters, cut with "…" (the screen's and `crossmate games`' rule).
    public static func clip(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        return text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "…"
    }

    static func clock(_ seconds: Int) -> String { SolvingTime.clock(seconds) }

    /// `number` in superscript digits ("¹⁰³").
    public static func superscript(_ number: Int) -> String { spelled(number, in: Array("⁰¹²³⁴⁵⁶⁷⁸⁹")) }

    /// `number` in subscript digits ("₁₀₄").
    public static func subscriptDigits(_ number: Int) -> String { spelled(number, in: Array("₀₁₂₃₄₅₆₇₈₉")) }

    /// `number` written with `digits` (zero to nine).
    static func spelled(_ number: Int, in digits: [Character]) -> String {
        String(String(number).compactMap { $0.wholeNumberValue.map { digits[$0] } })
    }
}
