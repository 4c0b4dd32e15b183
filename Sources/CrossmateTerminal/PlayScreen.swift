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

    private func render(width: Int, height: Int, colors: ColorMode, centring: Bool) -> Frame {
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
    private func drawScrollMarks(
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

    private func drawTitle(_ frame: inout Frame) {
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

    private func drawClueBar(_ frame: inout Frame, row: Int, clue: Clue?, highlighted: Bool, width: Int) {
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
    private func flags(on clue: Clue) -> [ClueFlag] {
        view.flags.filter { $0.number == clue.number && $0.direction == clue.direction }
    }

    private func drawGrid(
        _ frame: inout Frame, top: Int, rows: Range<Int>, firstCol: Int, layout: GridLayout, tall: Bool = false, monochrome: Bool
    ) {
        let puzzle = view.puzzle
        let cellWidth = layout.cellWidth + (tall ? 1 : 0)
        let word = Set(currentClue?.cells ?? [])
        let others = Dictionary(view.cursors.map { ($0.position, $0) }, uniquingKeysWith: { first, _ in first })
        // A flagged word: ⚑ in its first square's mark column, in the flagger's colour (the
        // first flag on a square shows, as on the web).
        var flaggedAt: [GridPosition: ClueFlag] = [:]
        for flag in view.flags where flag.on {
            if let first = puzzle.clues(flag.direction).first(where: { $0.number == flag.number })?.cells.first, flaggedAt[first] == nil {
                flaggedAt[first] = flag
            }
        }
        for (screenRow, row) in rows.enumerated() {
            for col in firstCol..<puzzle.width {
                let left = (col - firstCol) * cellWidth
                guard left + cellWidth <= frame.width else { break }
                let position = GridPosition(row: row, col: col)
                let cell = puzzle.cell(at: position)
                let line = top + screenRow * (tall ? 2 : 1)
                guard cell.isLetter else {
                    let fill = cell.kind == .void ? String(repeating: " ", count: cellWidth) : String(repeating: "█", count: cellWidth)
                    frame.put(fill, row: line, col: left, style: Style(foreground: Self.block))
                    if tall { frame.put(fill, row: line + 1, col: left, style: Style(foreground: Self.block)) }
                    continue
                }
                frame.mark(.square(position), row: line, cols: left..<(left + cellWidth))
                if tall { frame.mark(.square(position), row: line + 1, cols: left..<(left + cellWidth)) }
                let square = view.grid.state(at: position)
                var base = Style()
                if cell.isShaded { base.background = Self.shadedBackground }
                if word.contains(position) {
                    base.background = Self.wordBackground
                    base.underline = true
                }
                // A barred puzzle's bars: one below the square underlines it; one to its right
                // stands in its mark's column (when it has no mark).
                let below = GridPosition(row: row + 1, col: col)
                if cell.bars.contains(.bottom) || (puzzle.contains(below) && puzzle.cell(at: below).bars.contains(.top)) {
                    base.underline = true
                }
                let right = GridPosition(row: row, col: col + 1)
                let barRight = cell.bars.contains(.right) || (puzzle.contains(right) && puzzle.cell(at: right).bars.contains(.left))
                // The catch-up's squares: their own background (over the word's), and
                // underlined where there is no colour.
                if state.caught.contains(position) {
                    base.background = Self.caughtBackground
                    if monochrome { base.underline = true }
                }
                if let other = others[position] {
                    base.background = color(of: other.authorID)
                    base.bold = true
                    // Without colour, the square is underlined and its mark is the player's symbol.
                    if monochrome { base.underline = true }
                }
                let number = cell.number.map { Self.superscript($0) } ?? ""
                var col0 = left
                switch tall ? .tiny : layout {
                case let .numbered(digits):
                    // The whole number, then a space: "¹⁴ R" never reads as 14-something.
                    col0 = frame.put(number.padding(toLength: digits + 1, withPad: " ", startingAt: 0), row: line, col: left, style: base)
                case .snug:
                    // Superscript needs no space to stand apart from the letter; a three-digit
                    // number runs into the letter's column (its mark then shows by colour alone).
                    col0 = frame.put(number.padding(toLength: max(2, number.count), withPad: " ", startingAt: 0), row: line, col: left, style: base)
                case .compact:
                    if square.letter.isEmpty, !number.isEmpty {
                        // An empty square shows its whole number in place of the letter (the
                        // cursor's square too, reversed). Three digits fill the square: in every
                        // other column they are subscript, so ¹⁰³₁₀₄¹⁰⁵ reads as three numbers on
                        // any terminal, in a copy and to a screen reader (dim did not).
                        var numberStyle = base
                        if position == state.cursor.position { numberStyle.reverse = true }
                        let shownNumber = number.count == 3 && col % 2 == 1 ? Self.subscriptDigits(cell.number!) : number
                        frame.put(shownNumber.padding(toLength: 3, withPad: " ", startingAt: 0), row: line, col: left, style: numberStyle)
                        continue
                    }
                    col0 = frame.put(" ", row: line, col: left, style: base)
                case .tiny: break
                }
                // A rebus shows whole where a two-line square has the room ("SCH"; cut with … when
                // even that is too narrow), else its first letter and a + for the rest.
                let wholeRebus = tall && square.letter.count > 1
                let letter =
                    square.letter.isEmpty
                    ? " "
                    : wholeRebus
                        ? (square.letter.count <= cellWidth - 1 ? square.letter : String(square.letter.prefix(cellWidth - 2)) + "…")
                        : String(square.letter.first!)
                let mark: String
                switch square.mark.verdict {
                case .checkedWrong: mark = "×"
                case .revealed: mark = "•"
                case .checkedRight, .none:
                    if square.letter.count > 1, !wholeRebus {
                        mark = "+"
                    } else if cell.isCircled {
                        mark = "○"
                    } else if barRight, !tall {
                        mark = "│"
                    } else if monochrome, let other = others[position] {
                        mark = PlayerColors.avatarSymbol(other.authorID)
                    } else if cell.isShaded, monochrome {
                        mark = "░"
                    } else {
                        mark = " "
                    }
                }
                var letterStyle = base
                letterStyle.foreground = square.mark.verdict == .checkedWrong ? Self.wrong : color(of: square.cellAuthorID)
                letterStyle.bold = !square.mark.isPencil
                letterStyle.dim = square.mark.isPencil
                if position == state.cursor.position { letterStyle.reverse = true }
                if tall {
                    // The number on the first line (plain digits, dim), the letter centred on the second.
                    var numberStyle = base
                    numberStyle.dim = true
                    numberStyle.underline = false
                    let digits = cell.number.map(String.init) ?? ""
                    frame.put(digits.padding(toLength: cellWidth, withPad: " ", startingAt: 0), row: line, col: left, style: numberStyle)
                    let pad = max(0, (cellWidth - letter.count) / 2)
                    col0 = frame.put(String(repeating: " ", count: pad), row: line + 1, col: left, style: base)
                }
                let letterLine = tall ? line + 1 : line
                col0 = frame.put(square.mark.isPencil ? letter.lowercased() : letter, row: letterLine, col: col0, style: letterStyle)
                var markStyle = base
                if square.mark.verdict == .checkedWrong { markStyle.foreground = Self.wrong }
                if col0 >= left + cellWidth {
                    // No column left for the mark (a four-column square with a three-digit number).
                } else if mark == " ", let flag = flaggedAt[position] {
                    // In the flagger's colour, unless their cursor's colour is under it (the
                    // ⚑ vanished there): then in the terminal's own.
                    markStyle.foreground = color(of: flag.authorID)
                    if markStyle.background == markStyle.foreground { markStyle.foreground = nil }
                    markStyle.bold = true
                    col0 = frame.put("⚑", row: letterLine, col: col0, style: markStyle)
                } else {
                    col0 = frame.put(mark, row: letterLine, col: col0, style: markStyle)
                }
                if tall, col0 < left + cellWidth {
                    frame.put(String(repeating: " ", count: left + cellWidth - col0), row: letterLine, col: col0, style: base)
                }
                // Two lines a square: a bar to its right stands the square's height in its last column.
                if tall, barRight {
                    var barStyle = base
                    barStyle.underline = false
                    frame.put("│", row: line, col: left + cellWidth - 1, style: barStyle)
                    frame.put("│", row: letterLine, col: left + cellWidth - 1, style: base)
                }
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
    private func drawChat(_ frame: inout Frame, top: Int, left: Int, width: Int, rows: Int) -> Bool {
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
    private var unreadMessages: Set<Int> {
        var found = Set<Int>()
        var index = chat.count
        while index > 0, found.count < state.chatUnread {
            index -= 1
            if chat[index].message.authorID != view.me { found.insert(index) }
        }
        return found
    }

    /// The newest unread message, for the status line when no chat pane fits: "Ann: hi".
    private var newestUnread: String? {
        guard state.chatUnread > 0, let line = chat.last(where: { $0.message.authorID != view.me }) else { return nil }
        return "\(view.name(of: line.message.authorID)): \(line.message.text)"
    }

    /// Both clue lists side by side, the whole height given: each clue wrapped, with its fill as
    /// it stands (`[G_EEN]`), finished clues dim, the current one marked, and how many clues are
    /// above and below when a list does not fit. Returns the rows the longer list took.
    @discardableResult
    private func drawClueLists(_ frame: inout Frame, top: Int, left: Int, width: Int, rows: Int) -> Int {
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
    private func clueLine(_ clue: Clue) -> String {
        let fill = clue.cells.map { position -> String in
            let square = view.grid.state(at: position)
            let letter = square.mark.isPencil ? square.letter.lowercased() : square.letter
            return letter.isEmpty ? "_" : letter.count > 1 ? "(\(letter))" : letter
        }.joined()
        return String(clue.number).leftPadding(to: 3) + " " + clue.text + " [" + fill + "]"
    }

    private func messages(width: Int) -> [(text: String, style: Style)] {
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
    private var revealQuestion: String {
        let empty = view.puzzle.letterPositions.count { view.grid.state(at: $0).letter.isEmpty }
        let others = view.players.count { $0.authorID != view.me && !$0.revoked }
        let everyone = others == 0 ? "" : others == 1 ? " for you and 1 other player" : " for you and \(others) other players"
        return
            "Reveal every answer (\(empty) squares still empty)? It finishes the puzzle with help\(everyone). y reveals, any other key keeps playing."
    }

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

    /// "REPLAY  move 12 of 63  03:10 of 12:45  playing 10×".
    private func drawReplayStatus(_ frame: inout Frame, _ replay: ReplayStatus, row: Int) {
        var col = frame.put("REPLAY", row: row, col: 0, style: Style(bold: true, reverse: true))
        col = frame.put("  move \(replay.step) of \(replay.count)", row: row, col: col)
        col = frame.put("  \(Self.clock(replay.secondsAtStep)) of \(Self.clock(replay.totalSeconds))", row: row, col: col)
        frame.put("  " + (replay.speed == 0 ? "paused" : "playing \(replay.speed)×"), row: row, col: col, style: Style(bold: replay.speed > 0))
    }

    private func drawStatus(_ frame: inout Frame, row: Int, chatNews: String?) {
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

    // MARK: Text

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
    private func helpScreen(width: Int, height: Int) -> Frame {
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
    private static func spelled(_ number: Int, in digits: [Character]) -> String {
        String(String(number).compactMap { $0.wholeNumberValue.map { digits[$0] } })
    }
}

extension String {
    func leftPadding(to length: Int) -> String {
        count >= length ? self : String(repeating: " ", count: length - count) + self
    }
}
