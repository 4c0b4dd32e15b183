import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

/// Draws a game for the terminal: title and players, the current clue, the grid (numbers,
/// circles, shading, rebus, pencil, verdicts, each letter in its author's colour, other players'
/// cursors), the crossing clue, clue lists when the terminal is wide enough, a status line and
/// key hints. Pure: the same state always draws the same frame.
public struct PlayScreen: Sendable {
    public var view: GameView
    public var state: PlayState
    public var status: SyncStatus
    /// Seconds of solving so far (idle gaps over a minute not counted).
    public var elapsedSeconds: Int
    public var scores: [PlayerScore]
    /// This account's colour pins (friend → palette index) and its preferred colour.
    public var pins: [String: Int]
    public var preferred: Int?

    public init(
        view: GameView, state: PlayState, status: SyncStatus, elapsedSeconds: Int, scores: [PlayerScore] = [], pins: [String: Int] = [:],
        preferred: Int? = nil
    ) {
        self.view = view
        self.state = state
        self.status = status
        self.elapsedSeconds = elapsedSeconds
        self.scores = scores
        self.pins = pins
        self.preferred = preferred
    }

    // MARK: Colours

    /// The nine player colours of `PlayerColors.palette`, as terminal colours (the nearest of
    /// the 256, kept readable on a dark background, and of the 16).
    static let palette: [TerminalColor] = [
        TerminalColor(basic: 3, extended: 130), TerminalColor(basic: 11, extended: 166), TerminalColor(basic: 2, extended: 142),
        TerminalColor(basic: 10, extended: 34), TerminalColor(basic: 6, extended: 30), TerminalColor(basic: 12, extended: 32),
        TerminalColor(basic: 4, extended: 62), TerminalColor(basic: 13, extended: 93), TerminalColor(basic: 5, extended: 170),
    ]
    static let wordBackground = TerminalColor(basic: 8, extended: 238)
    static let shadedBackground = TerminalColor(basic: 0, extended: 236)
    static let block = TerminalColor(basic: 8, extended: 240)
    static let wrong = TerminalColor(basic: 9, extended: 196)

    /// A player's colour by the game's roster as this account sees it (`PlayerColors`): the
    /// same colours the browser and every other client draw.
    func color(of authorID: String) -> TerminalColor? {
        guard !authorID.isEmpty else { return nil }
        let authors = view.players.map(\.authorID) + view.grid.cells.map(\.cellAuthorID).filter { !$0.isEmpty }
        let roster = PlayerColors.assign(players: authors, local: view.me, preferred: preferred, pinned: pins)
        return Self.palette[roster[authorID] ?? PlayerColors.stableColor(authorID, reserved: [])]
    }

    // MARK: Layout

    /// `colors` only changes what stands in for colour: with none, shaded squares get a mark.
    public func render(width: Int, height: Int, colors: ColorMode = .twoFiftySix) -> Frame {
        var frame = Frame(width: width, height: height)
        let puzzle = view.puzzle
        guard width >= 24, height >= 8 else {
            frame.put("Make the terminal larger", row: 0, col: 0)
            return frame
        }
        // Squares are 4 columns (number, letter, mark) when they fit, else 2 (letter, mark).
        let cellWidth = puzzle.width * 4 <= width ? 4 : 2
        let gridWidth = puzzle.width * cellWidth
        let gridTop = 2
        let visibleRows = min(puzzle.height, max(1, height - 7))
        let firstRow = max(0, min(state.cursor.position.row - visibleRows / 2, puzzle.height - visibleRows))
        let firstCol =
            gridWidth <= width ? 0 : max(0, min(state.cursor.position.col - width / cellWidth / 2, puzzle.width - width / cellWidth))

        drawTitle(&frame)
        drawClueBar(&frame, row: 1, clue: currentClue, highlighted: true)
        drawGrid(
            &frame, top: gridTop, rows: firstRow..<(firstRow + visibleRows), firstCol: firstCol, cellWidth: cellWidth,
            monochrome: colors == .none)
        let panelLeft = gridWidth + 2
        let panelWidth = width - panelLeft
        // Beside the grid: the clue lists when there is room for them, else players and progress.
        // What follows the grid starts below whichever is taller.
        var panelRows = 0
        if panelWidth >= 56 {
            panelRows = max(visibleRows, min(8, height - gridTop - 5))
            drawClueLists(&frame, top: gridTop, left: panelLeft, width: panelWidth, rows: panelRows)
        } else if panelWidth >= 14 {
            panelRows = drawPanel(&frame, top: gridTop, left: panelLeft, width: panelWidth, rows: height - gridTop - 4)
        }
        var line = gridTop + max(visibleRows, panelRows)
        drawClueBar(&frame, row: line, clue: crossingClue, highlighted: false)
        line += 1
        for text in messages(width: width) where line < height - 2 {
            frame.put(text.text, row: line, col: 0, style: text.style)
            line += 1
        }
        drawStatus(&frame, row: height - 2)
        frame.put(
            frame.width >= 96
                ? "^Z undo  ^Y redo  ^P pencil  ^R rebus  ^X check/reveal/clear  ^G go to clue  ? help  ^Q quit"
                : "^Z undo ^Y redo ^P pencil ^R rebus ^X check/reveal ^G clue ? help ^Q quit", row: height - 1, col: 0,
            style: Style(dim: true))
        return frame
    }

    var currentClue: Clue? { view.puzzle.clue(containing: state.cursor.position, state.cursor.direction) }
    var crossingClue: Clue? { view.puzzle.clue(containing: state.cursor.position, state.cursor.direction.perpendicular) }

    private func drawTitle(_ frame: inout Frame) {
        let bar = Style(reverse: true)
        frame.put(String(repeating: " ", count: frame.width), row: 0, col: 0, style: bar)
        var col = frame.put(" " + view.title, row: 0, col: 0, style: Style(bold: true, reverse: true))
        if !view.puzzle.author.isEmpty { col = frame.put(" — " + view.puzzle.author, row: 0, col: col, style: bar) }
        // Players, right-aligned, each in their colour.
        let names = view.players.filter { !$0.revoked }.map { ($0.authorID, $0.displayName.isEmpty ? view.name(of: $0.authorID) : $0.displayName) }
        let length = names.reduce(0) { $0 + $1.1.count + 3 }
        var at = max(col + 2, frame.width - length)
        for (authorID, name) in names {
            at = frame.put(" ● ", row: 0, col: at, style: Style(foreground: color(of: authorID), reverse: true))
            at = frame.put(name, row: 0, col: at, style: bar)
        }
    }

    private func drawClueBar(_ frame: inout Frame, row: Int, clue: Clue?, highlighted: Bool) {
        guard let clue else { return }
        let style = highlighted ? Style(bold: true) : Style(dim: true)
        let label = " \(clue.label) "
        let col = frame.put(label, row: row, col: 0, style: Style(bold: true, reverse: highlighted))
        frame.put(" " + Self.clip(clue.text, to: frame.width - col - 1), row: row, col: col, style: style)
    }

    private func drawGrid(_ frame: inout Frame, top: Int, rows: Range<Int>, firstCol: Int, cellWidth: Int, monochrome: Bool) {
        let puzzle = view.puzzle
        let word = Set(currentClue?.cells ?? [])
        let others = Dictionary(view.cursors.map { ($0.position, $0) }, uniquingKeysWith: { first, _ in first })
        for (screenRow, row) in rows.enumerated() {
            for col in firstCol..<puzzle.width {
                let left = (col - firstCol) * cellWidth
                guard left + cellWidth <= frame.width else { break }
                let position = GridPosition(row: row, col: col)
                let cell = puzzle.cell(at: position)
                let line = top + screenRow
                guard cell.isLetter else {
                    let fill = cell.kind == .void ? String(repeating: " ", count: cellWidth) : String(repeating: "█", count: cellWidth)
                    frame.put(fill, row: line, col: left, style: Style(foreground: Self.block))
                    continue
                }
                let square = view.grid.state(at: position)
                var base = Style()
                if cell.isShaded { base.background = Self.shadedBackground }
                if word.contains(position) {
                    base.background = Self.wordBackground
                    base.underline = true
                }
                if let other = others[position] {
                    base.background = color(of: other.authorID)
                    base.bold = true
                }
                // Number (superscript) in the first two columns of a wide square.
                var text = ""
                if cellWidth == 4 {
                    text = cell.number.map { Self.superscript($0) } ?? ""
                    text = String(text.prefix(2)).padding(toLength: 2, withPad: " ", startingAt: 0)
                }
                let letter = square.letter.isEmpty ? " " : String(square.letter.first!)
                let mark: String
                switch square.mark.verdict {
                case .checkedWrong: mark = "×"
                case .revealed: mark = "•"
                case .checkedRight, .none:
                    if square.letter.count > 1 {
                        mark = "+"
                    } else if cell.isCircled {
                        mark = "○"
                    } else if cell.isShaded, monochrome {
                        mark = "░"
                    } else {
                        mark = " "
                    }
                }
                var col0 = frame.put(text, row: line, col: left, style: base)
                var letterStyle = base
                letterStyle.foreground = square.mark.verdict == .checkedWrong ? Self.wrong : color(of: square.cellAuthorID)
                letterStyle.bold = !square.mark.isPencil
                letterStyle.dim = square.mark.isPencil
                if position == state.cursor.position { letterStyle.reverse = true }
                col0 = frame.put(square.mark.isPencil ? letter.lowercased() : letter, row: line, col: col0, style: letterStyle)
                var markStyle = base
                if square.mark.verdict == .checkedWrong { markStyle.foreground = Self.wrong }
                frame.put(mark, row: line, col: col0, style: markStyle)
            }
        }
    }

    /// Returns the rows it took.
    private func drawPanel(_ frame: inout Frame, top: Int, left: Int, width: Int, rows: Int) -> Int {
        var row = top
        let progress = view.progress
        func line(_ text: String, _ style: Style = .plain) {
            guard row < top + rows else { return }
            frame.put(Self.clip(text, to: width), row: row, col: left, style: style)
            row += 1
        }
        line("Players", Style(bold: true))
        for player in view.players where !player.revoked && row < top + rows {
            let here = view.cursors.contains { $0.authorID == player.authorID } || player.authorID == view.me
            frame.put("●", row: row, col: left, style: Style(foreground: color(of: player.authorID)))
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

    private func drawClueLists(_ frame: inout Frame, top: Int, left: Int, width: Int, rows: Int) {
        let columnWidth = (width - 2) / 2
        for (index, direction) in [Direction.across, .down].enumerated() {
            let col = left + index * (columnWidth + 2)
            frame.put(direction == .across ? "ACROSS" : "DOWN", row: top, col: col, style: Style(bold: true))
            let clues = view.puzzle.clues(direction)
            let current = view.puzzle.clue(containing: state.cursor.position, direction)
            let currentIndex = clues.firstIndex { $0 == current } ?? 0
            let shown = max(1, rows - 1)
            let first = max(0, min(currentIndex - shown / 2, clues.count - shown))
            for (offset, clue) in clues.dropFirst(first).prefix(shown).enumerated() {
                let filled = clue.cells.allSatisfy { !view.grid.letter(at: $0).isEmpty }
                var style = Style(dim: filled)
                if clue == current { style = Style(bold: true, reverse: direction == state.cursor.direction, underline: true) }
                let number = String(clue.number).leftPadding(to: 3)
                frame.put(Self.clip(number + " " + clue.text, to: columnWidth), row: top + 1 + offset, col: col, style: style)
            }
        }
    }

    private func messages(width: Int) -> [(text: String, style: Style)] {
        var lines: [(String, Style)] = []
        if let completion = view.completion {
            let when = view.name(of: completion.by)
            let headline =
                completion.kind == .solved
                ? "★ Solved in \(Self.clock(elapsedSeconds))! Last letter by \(when)." : "The game was ended (resigned) by \(when)."
            lines.append((headline, Style(bold: true, reverse: true)))
            func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
            let board = scores.sorted { $0.lettersAuthored > $1.lettersAuthored }.map { score in
                let help = [(score.checksUsed, "check"), (score.revealsUsed, "reveal")].filter { $0.0 > 0 }.map { count($0.0, $0.1) }
                return "\(view.name(of: score.authorID)) \(count(score.lettersAuthored, "letter"))"
                    + (help.isEmpty ? "" : " (\(help.joined(separator: ", ")))")
            }
            if !board.isEmpty { lines.append((Self.clip(board.joined(separator: " · "), to: width), .plain)) }
            // A command short enough to copy whole at 80 columns.
            lines.append(
                (view.sealed ? "Watch it again: crossmate replay \(view.gameID)" : "Sending the last moves…", Style(dim: true)))
        }
        if view.readOnly {
            lines.append(("You were removed from this game: it stays readable but takes no more letters.", Style(bold: true)))
        }
        if let rebus = state.cursor.rebus {
            lines.append(("Rebus: \(rebus)_   (letters, digits, /; Enter to write, Esc to cancel)", Style(bold: true)))
        }
        if let jump = state.jump { lines.append(("Go to clue: \(jump)_   (then a for across, d for down, Enter)", Style(bold: true))) }
        switch state.menu {
        case .action: lines.append(("c check   r reveal   x clear   (Esc cancels)", Style(bold: true)))
        case let .scope(action): lines.append(("\(action.rawValue.capitalized): s square   w word   p puzzle", Style(bold: true)))
        case .confirmClearPuzzle: lines.append((Self.clip(clearQuestion, to: width), Style(bold: true)))
        case nil: break
        }
        if let notice = state.notice { lines.append((Self.clip(notice, to: width), Style(bold: true))) }
        if state.showingHelp {
            // Wrapped to the terminal's width: nothing of it is cut at 80 columns.
            for line in Self.wrap(Self.help, to: width) { lines.append((line, .plain)) }
        }
        return lines
    }

    /// "Clear the whole puzzle: 3 of Ben's letters and 2 of yours? y clears, any other key keeps them."
    private var clearQuestion: String {
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

    private func drawStatus(_ frame: inout Frame, row: Int) {
        let connection: (String, Style) =
            switch status.connection {
            case .online: ("● online", Style(foreground: TerminalColor(basic: 10, extended: 34), bold: true))
            case let .offline(since): ("○ offline since \(SyncStatus.clock(since))", Style(bold: true))
            case let .throttled(until):
                ("◌ waiting \(max(0, (until - Int64(Date().timeIntervalSince1970 * 1000) + 999) / 1000)) s (server busy)", Style(bold: true))
            }
        var col = frame.put(connection.0, row: row, col: 0, style: connection.1)
        if status.unsent > 0 { col = frame.put("  \(status.unsent) unsent", row: row, col: col, style: Style(bold: true)) }
        let here = Set(view.cursors.map(\.authorID)).count + 1
        col = frame.put("  \(here) here", row: row, col: col)
        col = frame.put("  " + Self.clock(elapsedSeconds), row: row, col: col)
        let progress = view.progress
        col = frame.put("  \(progress.filled)/\(progress.total)", row: row, col: col)
        if state.cursor.pencil { col = frame.put("  PENCIL", row: row, col: col, style: Style(bold: true)) }
        if view.readOnly { frame.put("  READ-ONLY", row: row, col: col, style: Style(bold: true, reverse: true)) }
    }

    // MARK: Text

    static let help =
        "Letters fill and move on. Arrows move (across the direction: turn); space turns; Tab and Shift-Tab go to the next and "
        + "previous word. Backspace erases back, Delete erases here, Home/End go to the ends of the word. ^R (or Insert) opens "
        + "a rebus, Enter writes it, Esc cancels. ^P pencil. ^Z undo, ^Y redo. ^X then c, r or x checks, reveals or clears. ^G "
        + "and a number then a or d goes to a clue. ^Q (or Esc q) quits. Any key closes this help."

    /// `text` in lines of at most `width` characters, broken between words.
    static func wrap(_ text: String, to width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map { clip($0, to: width) }
    }

    static func clip(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        return text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "…"
    }

    static func clock(_ seconds: Int) -> String {
        let hours = seconds / 3600
        let minutes = seconds / 60 % 60
        let secs = seconds % 60
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%02d:%02d", minutes, secs)
    }

    static func superscript(_ number: Int) -> String {
        let digits: [Character] = ["⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"]
        return String(String(number).compactMap { $0.wholeNumberValue.map { digits[$0] } })
    }
}

extension String {
    func leftPadding(to length: Int) -> String {
        count >= length ? self : String(repeating: " ", count: length - count) + self
    }
}
