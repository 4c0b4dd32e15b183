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
    /// The finish as every device tells it (`FinishSummary`), once the game has ended.
    public var summary: FinishSummary?
    /// This account's colour pins (friend → palette index) and its preferred colour.
    public var pins: [String: Int]
    public var preferred: Int?
    /// Set when the screen shows a replay: its own status line and keys instead of play's.
    public var replay: ReplayStatus?
    /// The game's conversation (`SyncEngine.conversation`), drawn under the clues where there is room.
    public var chat: [ChatLine] = []

    /// Where a replay stands: the move shown of all, the solving clock at it and at the end,
    /// and the speed (0 paused).
    public struct ReplayStatus: Sendable {
        public var step: Int
        public var count: Int
        public var secondsAtStep: Int
        public var totalSeconds: Int
        public var speed: Int

        public init(step: Int, count: Int, secondsAtStep: Int, totalSeconds: Int, speed: Int) {
            self.step = step
            self.count = count
            self.secondsAtStep = secondsAtStep
            self.totalSeconds = totalSeconds
            self.speed = speed
        }
    }

    public init(
        view: GameView, state: PlayState, status: SyncStatus, elapsedSeconds: Int, summary: FinishSummary? = nil,
        pins: [String: Int] = [:], preferred: Int? = nil
    ) {
        self.summary = summary
        self.view = view
        self.state = state
        self.status = status
        self.elapsedSeconds = elapsedSeconds
        self.pins = pins
        self.preferred = preferred
    }

    // MARK: Colours

    /// The nine player colours of `PlayerColors.palette`, as terminal colours: of the 256, the
    /// nearest to each colour's dark-theme twin (`darkHex`, made for letters on dark squares: at
    /// least 6:1 on the current word's navy and 7:1 on black); and of the 16.
    static let palette: [TerminalColor] = [
        TerminalColor(basic: 3, extended: 173), TerminalColor(basic: 11, extended: 209), TerminalColor(basic: 2, extended: 178),
        TerminalColor(basic: 10, extended: 77), TerminalColor(basic: 6, extended: 73), TerminalColor(basic: 12, extended: 110),
        TerminalColor(basic: 4, extended: 147), TerminalColor(basic: 13, extended: 177), TerminalColor(basic: 5, extended: 213),
    ]
    /// The current word: navy in 256 colours, apart from the grey blocks in hue as well as
    /// lightness; in 16 colours no background at all (the only grey there is the blocks'), the
    /// word is underlined.
    static let wordBackground = TerminalColor(basic: TerminalColor.none, extended: 17)
    static let shadedBackground = TerminalColor(basic: 0, extended: 236)
    static let block = TerminalColor(basic: 8, extended: 240)
    static let caughtBackground = TerminalColor(basic: 4, extended: 24)
    static let wrong = TerminalColor(basic: 9, extended: 196)

    /// A player's colour by the game's roster as this account sees it (`PlayerColors`): the
    /// same colours the browser and every other client draw.
    func color(of authorID: String) -> TerminalColor? {
        guard !authorID.isEmpty else { return nil }
        let players = view.players.sorted(by: ParticipantRecord.joiningOrder).map(\.authorID)
        let authors = Set(view.grid.cells.map(\.cellAuthorID).filter { !$0.isEmpty }).subtracting(players)
        let roster = PlayerColors.assign(players: players + authors.sorted(), local: view.me, preferred: preferred, pinned: pins)
        return Self.palette[roster[authorID] ?? PlayerColors.stableColor(authorID, reserved: [])]
    }

    // MARK: Layout

    /// How a square is drawn, the widest that fits the terminal: every clue number whole and
    /// apart from the letter (number, a space, letter, mark); else four columns, the number's
    /// two (superscript sets it apart from the letter), the letter and its mark, where a
    /// three-digit number takes the letter's column while the square is empty and the mark's
    /// once it is filled ("¹⁰³R": a 21×21 at 120 columns); else three, where an empty square
    /// shows its whole number and a filled one its letter; else two (letter, mark).
    enum GridLayout: Equatable {
        case numbered(digits: Int)
        case snug
        case compact
        case tiny

        init(_ puzzle: Puzzle, width: Int) {
            let digits = Self.digits(puzzle)
            if puzzle.width * (digits + 3) <= width {
                self = .numbered(digits: digits)
            } else if puzzle.width * 4 <= width {
                self = .snug
            } else if puzzle.width * 3 <= width {
                self = .compact
            } else {
                self = .tiny
            }
        }

        var cellWidth: Int {
            switch self {
            case let .numbered(digits): digits + 3
            case .snug: 4
            case .compact: 3
            case .tiny: 2
            }
        }

        /// How wide a terminal must be to show every number of `puzzle`, filled squares' too.
        static func widthForNumbers(_ puzzle: Puzzle) -> Int { puzzle.width * min(4, digits(puzzle) + 3) }

        /// The digits of the puzzle's highest clue number.
        static func digits(_ puzzle: Puzzle) -> Int {
            String(puzzle.letterPositions.compactMap { puzzle.cell(at: $0).number }.max() ?? 1).count
        }
    }

    /// The widest the clue lists beside the grid are drawn (two columns of 50).
    static let widestLists = 102
    /// The room the lists need beside a grid of two-line squares (two columns of about 40).
    static let listsBesideTallGrid = 82

    /// Whether each square is drawn on two lines, a newspaper's: the number on the first, the
    /// letter in the middle of the second. Whenever every number shows and the grid fits the
    /// height with the crossing clue, the status and the key hints, and the clue lists still
    /// have a place — beside the grid (48 columns, and not much less than one-line squares
    /// leave them) or under it (8 lines, where one-line squares leave no room beside either).
    static func tall(_ puzzle: Puzzle, layout: GridLayout, width: Int, height: Int, notes: Int) -> Bool {
        guard case .numbered = layout else { return false }
        let gridTop = 2
        let below = 3 + notes
        guard puzzle.height * 2 + gridTop + below <= height else { return false }
        // Beside the grid, the lists keep about 40 columns each before the squares grow, or
        // lose no more than a fifth of their room to them where they cannot have 40 either way
        // (48 in all was enough: a 15×15 at 140×40 left each list 23 columns, every clue on
        // three lines, where one-line squares leave 30).
        let tallPanel = width - (puzzle.width * (layout.cellWidth + 1) + 2)
        let flatPanel = width - (puzzle.width * layout.cellWidth + 2)
        let beside = tallPanel >= Self.listsBesideTallGrid || (tallPanel >= 48 && tallPanel * 5 >= flatPanel * 4)
        // Under the grid only where one-line squares would not leave the lists beside it either
        // (a 21×21 at 200×60 keeps one-line squares and two lists of 35 columns, not 25).
        let under = flatPanel < 48 && height - (gridTop + puzzle.height * 2 + below) >= 8
        return puzzle.width * (layout.cellWidth + 1) <= width && (beside || under)
    }

    /// `colors` only changes what stands in for colour: with none, shaded squares get a mark.
    public func render(width: Int, height: Int, colors: ColorMode = .twoFiftySix) -> Frame {
        if state.showingHelp, width >= 24, height >= 8 { return helpScreen(width: width, height: height) }
        let frame = render(width: width, height: height, colors: colors, centring: true)
        // A big terminal much taller than what it shows (a small puzzle at 200×60): drawn again
        // in the height it needs and put in the middle, when nothing it showed is lost that way.
        // (An everyday terminal keeps its status and keys on the bottom lines.)
        guard height >= 40 else { return frame }
        let lines = frame.text.split(separator: "\n", omittingEmptySubsequences: false)
        var longest = 0
        var run = 0
        for line in lines.dropFirst(2) {
            run = line.isEmpty ? run + 1 : 0
            longest = max(longest, run)
        }
        guard longest >= 8 else { return frame }
        let compact = render(width: width, height: height - longest + 2, colors: colors, centring: true)
        guard Set(compact.text.split(separator: "\n")) == Set(lines.filter { !$0.isEmpty }) else { return frame }
        var centred = Frame(width: width, height: height)
        centred.place(compact, row: (height - compact.height) / 2, col: 0)
        return centred
    }

    func render(width: Int, height: Int, colors: ColorMode, centring: Bool) -> Frame {
        var frame = Frame(width: width, height: height)
        let puzzle = view.puzzle
        guard width >= 24, height >= 8 else {
            frame.put("Make the terminal larger", row: 0, col: 0)
            return frame
        }
        let layout = GridLayout(puzzle, width: width)
        let gridTop = 2
        var notes = messages(width: width)
        // The grid's form (two lines a square or one, the lines under it) is chosen as if a
        // notice were showing, where the room allows, so one appearing (a check's result, a
        // friend's flag) never redraws the grid in another form; it takes a line from the
        // lists or the chat below instead.
        let messageRows = notes.isEmpty && puzzle.height + gridTop + 4 <= height ? 1 : notes.count
        let tall = Self.tall(puzzle, layout: layout, width: width, height: height, notes: messageRows)
        // Wider than the grid and two roomy clue lists need: the layout drawn at that width in
        // the middle of the terminal (a 5×5 at 200 columns no longer sits in a corner).
        let body = puzzle.width * (layout.cellWidth + (tall ? 1 : 0)) + 2 + Self.widestLists
        if centring, width > body {
            var centred = Frame(width: width, height: height)
            centred.place(render(width: body, height: height, colors: colors, centring: false), col: (width - body) / 2)
            return centred
        }
        let rowHeight = tall ? 2 : 1
        let cellWidth = layout.cellWidth + (tall ? 1 : 0)
        let gridWidth = puzzle.width * cellWidth
        let panelLeft = gridWidth + 2
        let panelWidth = width - panelLeft
        // Below the grid: the crossing clue, the notes, the status and the key hints. A tall
        // puzzle in a short terminal gives up the crossing clue and the hints (? still helps)
        // before it scrolls; when it scrolls, arrows beside it say how much is out of sight.
        let full = puzzle.height * rowHeight + gridTop + 3 + messageRows <= height
        let below = (full ? 3 : 1) + notes.count
        let visibleRows = max(1, min(puzzle.height, (height - gridTop - below) / rowHeight))
        let firstRow = max(0, min(state.cursor.position.row - visibleRows / 2, puzzle.height - visibleRows))
        let columnsShown = max(1, min(puzzle.width, width / cellWidth))
        let firstCol = max(0, min(state.cursor.position.col - columnsShown / 2, puzzle.width - columnsShown))

        drawTitle(&frame)
        drawClueBar(&frame, row: 1, clue: currentClue, highlighted: true, width: width)
        drawGrid(
            &frame, top: gridTop, rows: firstRow..<(firstRow + visibleRows), firstCol: firstCol, layout: layout, tall: tall,
            monochrome: colors == .none)
        drawScrollMarks(
            &frame, top: gridTop, visibleRows: visibleRows, firstRow: firstRow, firstCol: firstCol, columnsShown: columnsShown,
            left: min(width - 1, columnsShown * cellWidth))
        var line = gridTop + visibleRows * rowHeight
        let listsBeside = panelWidth >= 48
        if full {
            // Clipped to the grid's width when something stands beside the grid below it.
            drawClueBar(&frame, row: line, clue: crossingClue, highlighted: false, width: panelWidth >= 14 ? gridWidth : width)
            line += 1
        }
        // The clue lists take the room there is: beside the grid down to the notes, else below
        // it across the terminal when eight lines are free there (players and progress then go
        // beside the grid, if they fit).
        let bottom = height - (full ? 2 : 1) - notes.count
        // The chat takes the foot of the clues' room (a third of it, at most eight lines) once
        // there is a conversation or one is being written.
        let chatShown = !chat.isEmpty || state.chat != nil
        func chatRows(of rows: Int) -> Int { chatShown && rows >= 12 ? min(8, rows / 3, max(3, chat.count * 2 + 1)) : 0 }
        // One chat pane, in the first place with room: at the foot of the clue lists beside the
        // grid; else beside the grid under the players; else at the foot of the clue lists below
        // the grid; else on the free lines under the grid. With no room anywhere, the newest
        // unread message is said on the status line instead.
        var chatPlaced = false
        if listsBeside {
            // The chat right under the lists when they end early (a short puzzle's), else at the foot.
            let chatting = chatRows(of: bottom - gridTop)
            let listed = drawClueLists(&frame, top: gridTop, left: panelLeft, width: panelWidth, rows: bottom - gridTop - chatting)
            let chatTop = min(bottom - chatting, gridTop + listed + 1)
            chatPlaced = drawChat(&frame, top: chatTop, left: panelLeft, width: panelWidth, rows: chatting)
            line = bottom
        } else {
            if panelWidth >= 14 {
                let panelRows = drawPanel(&frame, top: gridTop, left: panelLeft, width: panelWidth, rows: bottom - gridTop)
                let chatTop = gridTop + panelRows + 1
                line = max(line, min(bottom, gridTop + panelRows))
                // Down to the clue lists, when they go below the grid.
                let free = (bottom - line >= 8 ? line : bottom) - chatTop
                if chatShown, free >= 3 { chatPlaced = drawChat(&frame, top: chatTop, left: panelLeft, width: panelWidth, rows: free) }
            }
            if bottom - line >= 8 {
                let chatting = chatPlaced ? 0 : chatRows(of: bottom - line)
                drawClueLists(&frame, top: line, left: 0, width: width, rows: bottom - line - chatting)
                if chatting > 0 { chatPlaced = drawChat(&frame, top: bottom - chatting, left: 0, width: width, rows: chatting) }
                line = bottom
            } else if chatShown, !chatPlaced, bottom - line >= 2 {
                chatPlaced = drawChat(&frame, top: line, left: 0, width: width, rows: bottom - line)
                line = bottom
            }
        }
        // How wide a terminal shows every number, on a line that is free anyway.
        switch layout {
        case .numbered, .snug: break
        case .compact:
            notes.append(
                ("Numbers of filled squares show in a terminal \(GridLayout.widthForNumbers(puzzle)) columns wide.", Style(dim: true)))
        case .tiny:
            notes.append(("Clue numbers show in a terminal \(GridLayout.widthForNumbers(puzzle)) columns wide.", Style(dim: true)))
        }
        for text in notes where line < height - (full ? 2 : 1) {
            frame.put(text.text, row: line, col: 0, style: text.style)
            line += 1
        }
        if let replay {
            drawReplayStatus(&frame, replay, row: height - (full ? 2 : 1))
        } else {
            drawStatus(&frame, row: height - (full ? 2 : 1), chatNews: chatPlaced ? nil : newestUnread)
        }
        if replay != nil, full {
            frame.put(
                Self.clip("←/→ a move  shift-←/→ a tenth  Home/End  space play 1×, 10×, 100×, pause  q quit", to: width), row: height - 1,
                col: 0, style: Style(dim: true))
        } else if full, view.completion != nil {
            // A finished grid takes no more letters: only what still does something is offered.
            frame.put(
                (view.readOnly || state.nextPuzzles.isEmpty ? "" : "^E next puzzle together  ") + "^G go to clue  ^T chat  ? help  ^Q quit",
                row: height - 1, col: 0, style: Style(dim: true))
        } else if full {
            frame.put(
                frame.width >= 104
                    ? "^Z undo  ^Y redo  ^P pencil  ^R rebus  ^X check/reveal/clear  ^G go to clue  ^T chat  ? help  ^Q quit"
                    : "^Z undo ^Y redo ^P pencil ^R rebus ^X check ^G clue ^T chat ? help ^Q quit", row: height - 1, col: 0,
                style: Style(dim: true))
        }
        return frame
    }

    /// Arrows beside a grid that does not fit: how many rows are above and below, and columns
    /// to the left and right, out of sight.
    func drawScrollMarks(
        _ frame: inout Frame, top: Int, visibleRows: Int, firstRow: Int, firstCol: Int, columnsShown: Int, left: Int
    ) {
        let puzzle = view.puzzle
        let style = Style(bold: true, reverse: true)
        if firstRow > 0 { frame.put("↑\(firstRow)", row: top, col: left, style: style) }
        let below = puzzle.height - firstRow - visibleRows
        if below > 0 { frame.put("↓\(below)", row: top + visibleRows - 1, col: left, style: style) }
        if firstCol > 0 { frame.put("←\(firstCol)", row: top + visibleRows / 2, col: left, style: style) }
        let right = puzzle.width - firstCol - columnsShown
        if right > 0 { frame.put("→\(right)", row: top + visibleRows / 2 + (firstCol > 0 ? 1 : 0), col: left, style: style) }
    }

    var currentClue: Clue? { view.puzzle.clue(containing: state.cursor.position, state.cursor.direction) }
    var crossingClue: Clue? { view.puzzle.clue(containing: state.cursor.position, state.cursor.direction.perpendicular) }

    func drawTitle(_ frame: inout Frame) {
        let bar = Style(reverse: true)
        frame.put(String(repeating: " ", count: frame.width), row: 0, col: 0, style: bar)
        var col = frame.put(" " + view.title, row: 0, col: 0, style: Style(bold: true, reverse: true))
        if !view.puzzle.author.isEmpty { col = frame.put(" — " + view.puzzle.author, row: 0, col: col, style: bar) }
        // Players, right-aligned, each with their avatar symbol in their colour (so players
        // differ without colour too, as `crossmate friends` shows them).
        let names = view.players.filter { !$0.revoked }.map { ($0.authorID, $0.displayName.isEmpty ? view.name(of: $0.authorID) : $0.displayName) }
        let length = names.reduce(0) { $0 + $1.1.count + 3 }
        var at = max(col + 2, frame.width - length)
        for (authorID, name) in names {
            at = frame.put(" \(PlayerColors.avatarSymbol(authorID)) ", row: 0, col: at, style: Style(foreground: color(of: authorID), reverse: true))
            at = frame.put(name, row: 0, col: at, style: bar)
        }
    }

    func drawClueBar(_ frame: inout Frame, row: Int, clue: Clue?, highlighted: Bool, width: Int) {
        guard let clue else { return }
        let style = highlighted ? Style(bold: true) : Style(dim: true)
        let label = " \(clue.label) "
        let col = frame.put(label, row: row, col: 0, style: Style(bold: true, reverse: highlighted))
        // Flagged for the others: ⚑ and who, in the first flagger's colour, after the clue.
        let flags = flags(on: clue)
        let note = flags.isEmpty ? "" : "  ⚑ " + flags.map { view.name(of: $0.authorID) }.joined(separator: ", ")
        let end = frame.put(" " + Self.clip(clue.text, to: max(0, width - col - 1 - note.count)), row: row, col: col, style: style)
        if let first = flags.first { frame.put(note, row: row, col: end, style: Style(foreground: color(of: first.authorID), bold: true)) }
    }

    /// The flags that show on `clue`.
    func flags(on clue: Clue) -> [ClueFlag] {
        view.flags.filter { $0.number == clue.number && $0.direction == clue.direction }
    }

}

extension String {
    func leftPadding(to length: Int) -> String {
        count >= length ? self : String(repeating: " ", count: length - count) + self
    }
}
