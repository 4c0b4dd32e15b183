import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

/// Drawing beside (or under) the grid: the panel, the chat, the clue lists, the status lines.
extension PlayScreen {
    /// Returns the rows it took.
    func drawPanel(_ frame: inout Frame, top: Int, left: Int, width: Int, rows: Int) -> Int {
        var row = top
        let progress = view.progress
        func line(_ text: String, _ style: Style = .plain) {
            guard row < top + rows else { return }
            frame.put(Self.clip(text, to: width), row: row, col: left, style: style)
            row += 1
        }
        line("Players", Style(bold: true))
        for player in view.players where !player.revoked && row < top + rows {
            let here = view.here.contains(player.authorID) || view.cursors.contains { $0.authorID == player.authorID } || player.authorID == view.me
            frame.put(PlayerColors.avatarSymbol(player.authorID), row: row, col: left, style: Style(foreground: color(of: player.authorID)))
            frame.put(Self.clip(player.displayName, to: width - 4) + (here ? "" : " (away)"), row: row, col: left + 2)
            row += 1
        }
        row += 1
        line("Filled \(progress.filled)/\(progress.total)")
        line("Time   " + Self.clock(elapsedSeconds))
        line(state.cursor.pencil ? "Pencil ON" : "Pen", state.cursor.pencil ? Style(bold: true) : .plain)
        if view.readOnly { line("READ-ONLY", Style(bold: true, reverse: true)) }
        return row - top
    }

    /// The chat pane: a "Chat" heading (how many messages are new, how to write, whether more
    /// lies above or below) over the conversation's lines that fit, the newest at the foot, or
    /// `state.chatBack` lines further back. Each message is "Name: text" wrapped (at most
    /// `chatLinesPerMessage` lines, the rest cut with "…"), the name in the player's colour,
    /// unread ones marked •; one not yet sent or refused says so. Text from others is drawn,
    /// never obeyed (`Frame` shows control characters as replacements). False when it has no room.
    @discardableResult
    func drawChat(_ frame: inout Frame, top: Int, left: Int, width: Int, rows: Int) -> Bool {
        guard rows >= 2, width >= 12 else { return false }
        let room = rows - 1
        let unread = unreadMessages
        // Messages wrapped from the newest back, only as far as the pane can be scrolled.
        var lines: [(text: String, author: String?, name: Range<Int>, style: Style)] = []
        var index = chat.count
        while index > 0, lines.count <= room + state.chatBack {
            index -= 1
            let line = chat[index]
            let name = line.message.authorID == view.me ? "You" : view.name(of: line.message.authorID)
            let note = line.refusal.map { " (not sent: \($0))" } ?? (line.sent ? "" : " (sending)")
            let reactions = line.reactions.isEmpty ? "" : "  " + line.reactions.map { "\($0.emoji)\($0.authors.count)" }.joined(separator: " ")
            let mark = unread.contains(index) ? "• " : ""
            var wrapped = Self.wrap("\(mark)\(name): \(line.message.text)\(note)\(reactions)", to: width, hanging: 2)
            if wrapped.count > Self.chatLinesPerMessage {
                wrapped = Array(wrapped.prefix(Self.chatLinesPerMessage))
                wrapped[wrapped.count - 1] = String(wrapped[wrapped.count - 1].prefix(width - 1)) + "…"
            }
            let style = line.refusal != nil || !line.sent ? Style(dim: true) : unread.contains(index) ? Style(bold: true) : .plain
            let nameRange = mark.count..<(mark.count + name.count + 1)
            lines.insert(
                contentsOf: wrapped.enumerated().map { offset, text in (text, offset == 0 ? line.message.authorID : nil, nameRange, style) }, at: 0)
        }
        let back = min(state.chatBack, max(0, lines.count - room))
        let end = lines.count - back
        let start = max(0, end - room)
        var heading = "Chat"
        if !unread.isEmpty { heading += " · \(unread.count) new" }
        if state.chat == nil { heading += "  (^T to write)" }
        if start > 0 || index > 0 { heading += "  ↑ more" }
        if back > 0 { heading += "  ↓ newer" }
        frame.put(Self.clip(heading, to: width), row: top, col: left, style: Style(bold: true))
        for row in top..<(top + rows) { frame.mark(.chat, row: row, cols: left..<(left + width)) }
        for (offset, line) in lines[start..<end].enumerated() {
            let row = top + 1 + offset
            frame.put(line.text, row: row, col: left, style: line.style)
            if let author = line.author {
                let name = line.text.dropFirst(line.name.lowerBound).prefix(line.name.count)
                frame.put(String(name), row: row, col: left + line.name.lowerBound, style: Style(foreground: color(of: author), bold: true))
            }
        }
        return true
    }

    /// The most lines one message takes in the chat pane.
    public static let chatLinesPerMessage = 4

    /// The indices in `chat` of the messages from others not yet read (`state.chatUnread`, newest).
    var unreadMessages: Set<Int> {
        var found = Set<Int>()
        var index = chat.count
        while index > 0, found.count < state.chatUnread {
            index -= 1
            if chat[index].message.authorID != view.me { found.insert(index) }
        }
        return found
    }

    /// The newest unread message, for the status line when no chat pane fits: "Ann: hi".
    var newestUnread: String? {
        guard state.chatUnread > 0, let line = chat.last(where: { $0.message.authorID != view.me }) else { return nil }
        return "\(view.name(of: line.message.authorID)): \(line.message.text)"
    }

    /// Both clue lists side by side, the whole height given: each clue wrapped, with its fill as
    /// it stands (`[G_EEN]`), finished clues dim, the current one marked, and how many clues are
    /// above and below when a list does not fit. Returns the rows the longer list took.
    @discardableResult
    func drawClueLists(_ frame: inout Frame, top: Int, left: Int, width: Int, rows: Int) -> Int {
        guard rows >= 2 else { return 0 }
        let columnWidth = (width - 2) / 2
        var taken = 0
        for (index, direction) in [Direction.across, .down].enumerated() {
            let col = left + index * (columnWidth + 2)
            let clues = view.puzzle.clues(direction)
            let current = view.puzzle.clue(containing: state.cursor.position, direction)
            let entries = clues.map { clue in Self.wrap(clueLine(clue), to: columnWidth - 4, hanging: 4) }
            let currentIndex = clues.firstIndex { $0 == current } ?? 0
            for row in top..<(top + rows) { frame.mark(.clueList(direction), row: row, cols: col..<(col + columnWidth)) }
            // Start so the current clue shows, a third of the way down when the list scrolls
            // (or where the wheel scrolled it).
            let space = rows - 1
            var first = currentIndex
            var used = entries[currentIndex].count
            while first > 0, used + entries[first - 1].count <= space / 3 + entries[currentIndex].count {
                first -= 1
                used += entries[first].count
            }
            if let scrolled = state.listScroll[direction] { first = max(0, min(scrolled, clues.count - 1)) }
            var shown: [(clue: Int, text: String, first: Bool)] = []
            var clue = first
            while clue < clues.count, shown.count + entries[clue].count <= space {
                shown += entries[clue].enumerated().map { (clue, $0.element, $0.offset == 0) }
                clue += 1
            }
            // The list's end reached with room to spare: earlier clues fill it.
            while clue == clues.count, first > 0, shown.count + entries[first - 1].count <= space {
                first -= 1
                shown = entries[first].enumerated().map { (first, $0.element, $0.offset == 0) } + shown
            }
            // Room for the count of clues below, if any are.
            if clue < clues.count, shown.count == space, let last = shown.last?.clue {
                shown.removeAll { $0.clue == last }
                clue = last
            }
            var header = direction == .across ? "ACROSS" : "DOWN"
            if first > 0 { header += "  ↑ \(first) more" }
            frame.put(header, row: top, col: col, style: Style(bold: true))
            for (offset, entry) in shown.enumerated() {
                let item = clues[entry.clue]
                let filled = item.cells.allSatisfy { !view.grid.letter(at: $0).isEmpty }
                var style = Style(dim: filled)
                if item == current { style = Style(bold: true, reverse: direction == state.cursor.direction, underline: true) }
                frame.put(entry.text, row: top + 1 + offset, col: col, style: style)
                frame.mark(.clue(direction, number: item.number), row: top + 1 + offset, cols: col..<(col + columnWidth))
                // A flagged clue: ⚑ before its number, in the flagger's colour.
                if let flag = flags(on: item).first, entry.text.hasPrefix(String(item.number).leftPadding(to: 3)) {
                    frame.put("⚑", row: top + 1 + offset, col: col, style: Style(foreground: color(of: flag.authorID), bold: true))
                }
            }
            if clue < clues.count {
                frame.put("↓ \(clues.count - clue) more", row: top + 1 + shown.count, col: col, style: Style(bold: true))
            }
            taken = max(taken, 1 + shown.count + (clue < clues.count ? 1 : 0))
        }
        return taken
    }

    /// "  12 Capable [AB_e]": the number, the clue and the squares' letters (`_` empty; a rebus
    /// whole, in parentheses: "[NO(SCH)]"; pencil in lower case, as in the grid).
    func clueLine(_ clue: Clue) -> String {
        let fill = clue.cells.map { position -> String in
            let square = view.grid.state(at: position)
            let letter = square.mark.isPencil ? square.letter.lowercased() : square.letter
            return letter.isEmpty ? "_" : letter.count > 1 ? "(\(letter))" : letter
        }.joined()
        return String(clue.number).leftPadding(to: 3) + " " + clue.text + " [" + fill + "]"
    }

    func messages(width: Int) -> [(text: String, style: Style)] {
        var lines: [(String, Style)] = []
        if let completion = view.completion {
            let by = view.name(of: completion.by)
            // The finish as every device tells it; who ended it is this screen's to name.
            let headline: String
            if let summary {
                headline =
                    switch summary.finish {
                    case .solved: "★ " + summary.headline + " Last letter by \(by)."
                    case .solvedWithHelp: summary.headline + " Last letter by \(by)."
                    case .finishedWithHelp: summary.headline
                    case .resigned: summary.headline + " Ended by \(by)."
                    }
            } else {
                headline = completion.kind == .solved ? "★ Solved! Last letter by \(by)." : "Ended without a solve by \(by)."
            }
            lines.append((headline, Style(bold: true, reverse: true)))
            let board = (summary?.scores ?? []).sorted { $0.lettersAuthored > $1.lettersAuthored }.map { score in
                let help = [Scoreboard.squares(score.squaresChecked, "checked"), Scoreboard.squares(score.squaresRevealed, "revealed")]
                    .compactMap { $0 }
                let letters = "\(score.lettersAuthored) letter\(score.lettersAuthored == 1 ? "" : "s")"
                return "\(view.name(of: score.authorID)) \(letters)" + (help.isEmpty ? "" : " (\(help.joined(separator: ", ")))")
            }
            if !board.isEmpty { lines.append((Self.clip(board.joined(separator: " · "), to: width), .plain)) }
            // A command short enough to copy whole at 80 columns.
            if view.sealed {
                lines.append(("Watch it again: crossmate replay \(view.gameID)", Style(dim: true)))
            } else if status.unsent > 0 {
                lines.append(("Sending the last moves…", Style(dim: true)))
            }
        }
        if state.paused {
            lines.append(("Paused: your time stops until your next letter. Any key goes on.", Style(bold: true, reverse: true)))
        }
        if view.readOnly {
            lines.append(("You were removed from this game: it stays readable but takes no more letters.", Style(bold: true)))
        }
        if let rebus = state.cursor.rebus {
            lines.append(("Rebus: \(rebus)_   (letters, digits, /; Enter to write, Esc to cancel)", Style(bold: true)))
        }
        if let jump = state.jump { lines.append(("Go to clue: \(jump)_   (then a for across, d for down, Enter)", Style(bold: true))) }
        if let path = state.puzzleFile {
            let hint = "   (Enter starts it with everyone; Esc cancels)"
            let room = max(8, width - 13 - hint.count)
            lines.append(("Puzzle file: " + String(path.suffix(room)) + "_" + hint, Style(bold: true)))
        }
        if let chat = state.chat {
            // The end of a long message shows, where the typing is.
            let hint = "_   (Enter sends, Esc cancels)"
            let room = max(8, width - 5 - hint.count)
            lines.append(("Say: " + String(chat.suffix(room)) + hint, Style(bold: true)))
        }
        switch state.menu {
        case .action: lines.append(("c check   r reveal   x clear   (Esc cancels)", Style(bold: true)))
        case let .scope(action): lines.append(("\(action.rawValue.capitalized): s square   w word   p puzzle", Style(bold: true)))
        case let .confirmPuzzle(action):
            let question = action == .reveal ? revealQuestion : clearQuestion
            for line in Self.wrap(question, to: width, hanging: 2) { lines.append((line, Style(bold: true))) }
        case .pinWhom:
            let others = PlayState.pinnable(view).enumerated().map { "\($0.offset + 1) \($0.element.displayName)" }
            lines.append((Self.clip("Pin whose colour? " + others.joined(separator: "  ") + "   (Esc cancels)", to: width), Style(bold: true)))
        case let .pinColour(authorID):
            let colours = PlayerColors.palette.enumerated().map { "\($0.offset + 1) \($0.element.name)" }.joined(separator: " · ")
            let question = "\(view.name(of: authorID)) always in: \(colours) · 0 as dealt   (Esc cancels)"
            for line in Self.wrap(question, to: width, hanging: 2) { lines.append((line, Style(bold: true))) }
        case .nextPuzzle:
            let puzzles = state.nextPuzzles.enumerated().map { "\($0.offset + 1) \($0.element.title)" }.joined(separator: " · ")
            let question = "Next puzzle with everyone here: \(puzzles) · f a file of your own   (Esc cancels)"
            for line in Self.wrap(question, to: width, hanging: 2) { lines.append((line, Style(bold: true))) }
        case nil: break
        }
        if let notice = state.notice {
            // A long notice (an invitation link) runs onto a second line rather than lose its end.
            let head = String(notice.prefix(width))
            lines.append((head, Style(bold: true)))
            if notice.count > width { lines.append((Self.clip(String(notice.dropFirst(width)), to: width), Style(bold: true))) }
        }
        if state.showingNotes, !view.puzzle.notes.isEmpty {
            // At most four lines (a long note ends in "…"), then how to put them away.
            let text = view.puzzle.notes.split(whereSeparator: \.isNewline).joined(separator: " ")
            var wrapped = Self.wrap("Notes: " + text, to: width)
            if wrapped.count > 4 { wrapped = Array(wrapped.prefix(3)) + [String(wrapped[3].prefix(max(0, width - 1))) + "…"] }
            for line in wrapped { lines.append((line, Style(bold: line.hasPrefix("Notes: ")))) }
            lines.append(("Any key puts the notes away; ^O shows them again.", Style(dim: true)))
        }
        return lines
    }

    /// "Clear the whole puzzle: 3 of Ben's letters and 2 of yours? y clears, any other key keeps them."
    /// Revealing the whole puzzle finishes it, with help, for everyone in it.
    var revealQuestion: String {
        let empty = view.puzzle.letterPositions.count { view.grid.state(at: $0).letter.isEmpty }
        let others = view.players.count { $0.authorID != view.me && !$0.revoked }
        let everyone = others == 0 ? "" : others == 1 ? " for you and 1 other player" : " for you and \(others) other players"
        return
            "Reveal every answer (\(empty) squares still empty)? It finishes the puzzle with help\(everyone). y reveals, any other key keeps playing."
    }

    var clearQuestion: String {
        var counts: [String: Int] = [:]
        for position in view.puzzle.letterPositions {
            let square = view.grid.state(at: position)
            guard !square.letter.isEmpty, !square.mark.isLocked else { continue }
            counts[square.cellAuthorID, default: 0] += 1
        }
        guard !counts.isEmpty else { return "Clear the whole puzzle? It holds no letters to clear. y / any key" }
        // Friends' letters first (most first), then yours: "3 of Ben's letters and 2 of yours".
        let ordered = counts.sorted { ($0.key == view.me ? 0 : 1, $0.value, $1.key) > ($1.key == view.me ? 0 : 1, $1.value, $0.key) }
        var parts = ordered.map { author, count in
            author == view.me ? "\(count) of yours" : "\(count) of \(view.name(of: author))'s letters"
        }
        if parts == ["\(counts[view.me] ?? 0) of yours"] { parts = ["\(counts[view.me] ?? 0) of your letters"] }
        let list = parts.count > 1 ? parts.dropLast().joined(separator: ", ") + " and " + parts.last! : parts[0]
        return "Clear the whole puzzle: \(list)? y clears, any other key keeps them."
    }

    /// "REPLAY  move 12 of 63  03:10 of 12:45  playing 10×".
    func drawReplayStatus(_ frame: inout Frame, _ replay: ReplayStatus, row: Int) {
        var col = frame.put("REPLAY", row: row, col: 0, style: Style(bold: true, reverse: true))
        col = frame.put("  move \(replay.step) of \(replay.count)", row: row, col: col)
        col = frame.put("  \(Self.clock(replay.secondsAtStep)) of \(Self.clock(replay.totalSeconds))", row: row, col: col)
        frame.put("  " + (replay.speed == 0 ? "paused" : "playing \(replay.speed)×"), row: row, col: col, style: Style(bold: replay.speed > 0))
    }

    func drawStatus(_ frame: inout Frame, row: Int, chatNews: String?) {
        let connection: (String, Style) =
            switch status.connection {
            case .online: ("● online", Style(foreground: TerminalColor(basic: 10, extended: 34), bold: true))
            case let .offline(since): ("○ offline since \(SyncStatus.clock(since))", Style(bold: true))
            case let .throttled(until):
                ("◌ waiting \(max(0, (until - Int64(Date().timeIntervalSince1970 * 1000) + 999) / 1000)) s (server busy)", Style(bold: true))
            }
        var col = frame.put(connection.0, row: row, col: 0, style: connection.1)
        if status.unsent > 0 { col = frame.put("  \(status.unsent) unsent", row: row, col: col, style: Style(bold: true)) }
        let here = view.here.union(view.cursors.map(\.authorID)).subtracting([view.me]).count + 1
        col = frame.put("  \(here) here", row: row, col: col)
        col = frame.put("  " + Self.clock(elapsedSeconds), row: row, col: col)
        let progress = view.progress
        col = frame.put("  \(progress.filled)/\(progress.total)", row: row, col: col)
        if state.cursor.pencil { col = frame.put("  PENCIL", row: row, col: col, style: Style(bold: true)) }
        if view.readOnly { col = frame.put("  READ-ONLY", row: row, col: col, style: Style(bold: true, reverse: true)) }
        if let chatNews, col + 8 < frame.width {
            let more = state.chatUnread > 1 ? " (+\(state.chatUnread - 1))" : ""
            let news = Self.clip(chatNews.split(whereSeparator: \.isNewline).joined(separator: " "), to: frame.width - col - 5 - more.count)
            frame.put("  ✉ " + news + more, row: row, col: col, style: Style(bold: true))
        }
    }
}
