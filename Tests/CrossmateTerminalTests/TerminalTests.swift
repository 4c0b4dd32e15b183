import CrossmateClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import CrossmateTerminal
import CrossmateTestSupport
import Foundation
import Testing

/// The terminal client: frames drawn from state (golden text for a few states, a 15×15 grid in
/// 80×24 among them), keys decoded from raw bytes, and the real `crossmate play` in tmux.
@Suite struct TerminalTests {
    /// A title or name with escape sequences in it is drawn, not obeyed: nothing it holds
    /// reaches the terminal as a control character.
    @Test func framesDrawOtherPeoplesControlCharactersAsReplacements() {
        var frame = Frame(width: 20, height: 1)
        frame.put("T\u{1B}]0;PWNED\u{07}\u{202E}x", row: 0, col: 0)
        let drawn = frame.ansi(.none)
        #expect(!drawn.contains("\u{07}") && !drawn.contains("]0;PWNED\u{07}") && !drawn.contains("\u{202E}"))
        #expect(frame.character(row: 0, col: 1) == "\u{FFFD}")
    }

    /// A 15×15 with a symmetric block pattern; answers and clues are placeholders (the layout is
    /// what is checked).
    static let fifteen: Puzzle = {
        let blocks: Set<Int> = [
            4, 10, 19, 25, 34, 40, 48, 56, 60, 64, 72, 78, 86, 94, 100, 108, 112, 124, 130, 136, 138, 146, 152, 160, 164, 168, 176, 184, 190, 199,
            205, 214, 220,
        ]
        let cells = (0..<225).map { index -> Cell in
            blocks.contains(index) || blocks.contains(224 - index) ? .block : .letter(String(Character(Unicode.Scalar(65 + index % 26)!)))
        }
        var texts: [Direction: [Int: String]] = [.across: [:], .down: [:]]
        for number in 1...120 {
            texts[.across]![number] = "Across clue number \(number), a little long to show clipping"
            texts[.down]![number] = "Down clue \(number)"
        }
        return try! Puzzle(title: "Fifteen", author: "Test", width: 15, height: 15, cells: cells, clueTexts: texts)
    }()

    func view(_ puzzle: Puzzle, grid: GameGrid? = nil, completion: Completion? = nil, readOnly: Bool = false) -> GameView {
        GameView(
            gameID: "game-1", title: puzzle.title, puzzle: puzzle, grid: grid ?? GameGrid(puzzle: puzzle), completion: completion,
            canUndo: false, canRedo: false, readOnly: readOnly,
            players: [
                ParticipantRecord(gameID: "game-1", authorID: "acct-ann", displayName: "Ann", role: .owner),
                ParticipantRecord(gameID: "game-1", authorID: "acct-bob", displayName: "Bob", role: .player),
            ],
            cursors: [PeerCursor(deviceID: "dev-bob", authorID: "acct-bob", position: GridPosition(row: 2, col: 2), direction: .down)],
            me: "acct-ann", sealed: false)
    }

    func golden(_ name: String, _ text: String) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Frames/\(name).txt")
        if ProcessInfo.processInfo.environment["CROSSMATE_UPDATE_GOLDEN"] != nil {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(text == expected, "frame \(name) differs from Frames/\(name).txt")
    }

    /// Letters are drawn in the roster's colours (`PlayerColors`, as the browser draws them):
    /// Ann (blue, 256-colour 110) and Bob (brown, 173), each the nearest to the colour's dark
    /// twin; the current word on navy (17), never the blocks' grey, and with no background at all
    /// in 16 colours, where the only grey is the blocks'.
    @Test func lettersAreInTheRostersColours() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var ann = GameReplica(puzzle: puzzle, gameID: "game-1", replicaID: "dev-ann", authorID: "acct-ann")
        var bob = GameReplica(puzzle: puzzle, gameID: "game-1", replicaID: "dev-bob", authorID: "acct-bob")
        let moves =
            try ann.perform(.setLetter(GridPosition(row: 0, col: 1), "A"), wallMillis: 1_000)
            + bob.perform(.setLetter(GridPosition(row: 1, col: 0), "G"), wallMillis: 1_001)
        var grid = GameGrid(puzzle: puzzle)
        grid.apply(moves)
        let roster = PlayerColors.assign(players: ["acct-ann", "acct-bob"], local: "acct-ann")
        #expect(roster == ["acct-ann": 5, "acct-bob": 0])
        let screen = PlayScreen(
            view: view(puzzle, grid: grid), state: PlayState(puzzle: puzzle) { grid.letter(at: $0) },
            status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0)
        let ansi = screen.render(width: 80, height: 24, colors: .twoFiftySix).ansi(.twoFiftySix)
        #expect(ansi.contains("38;5;110;48;5;17mA"))  // Ann's A, in her word (highlighted)
        #expect(ansi.contains("38;5;173mG"))
        let sixteen = screen.render(width: 80, height: 24, colors: .sixteen).ansi(.sixteen)
        #expect(sixteen.contains("4;94mA"), "Ann's A underlined, on no background: \(sixteen)")
        #expect(!sixteen.contains(";100m"), "nothing drawn on the blocks' grey")
        // Ann pinned Bob magenta (256-colour 213): the terminal draws the pin.
        var pinned = screen
        pinned.pins = ["acct-bob": 8]
        #expect(pinned.render(width: 80, height: 24, colors: .twoFiftySix).ansi(.twoFiftySix).contains("38;5;213mG"))
    }

    @Test func aFifteenByFifteenFitsEightyByTwentyFour() throws {
        let puzzle = Self.fifteen
        var replica = GameReplica(puzzle: puzzle, gameID: "game-1", replicaID: "dev-ann", authorID: "acct-ann")
        try replica.perform(.setLetter(GridPosition(row: 0, col: 0), "A"), wallMillis: 1_000)
        try replica.perform(.setLetter(GridPosition(row: 0, col: 1), "X"), wallMillis: 1_001)
        try replica.perform(.check(.square(GridPosition(row: 0, col: 1))), wallMillis: 1_002)
        try replica.perform(.setLetter(GridPosition(row: 0, col: 2), "C", pencil: true), wallMillis: 1_003)
        try replica.perform(.setLetter(GridPosition(row: 1, col: 0), "RBS"), wallMillis: 1_004)
        try replica.perform(.reveal(.square(GridPosition(row: 1, col: 1))), wallMillis: 1_005)
        var state = PlayState(puzzle: puzzle) { replica.grid.letter(at: $0) }
        state.cursor.position = GridPosition(row: 0, col: 3)
        let screen = PlayScreen(
            view: view(puzzle, grid: replica.grid), state: state, status: SyncStatus(connection: .online, unsent: 2), elapsedSeconds: 754)
        let frame = screen.render(width: 80, height: 24)
        let lines = frame.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 24 && lines.allSatisfy { $0.count <= 80 })
        // Every row of the grid is on screen, with the current clue above and the status below.
        #expect(lines[1].contains("1A") && lines[23].contains("^Q quit") && lines[22].contains("online"))
        try golden("fifteen-80x24", frame.text)
        // 120 columns put both clue lists beside the grid, the current clue among them.
        let wide = screen.render(width: 120, height: 30)
        #expect(wide.text.contains("ACROSS") && wide.text.contains("DOWN"))
        try golden("fifteen-120x30", wide.text)
        // Taller and wider: the clue lists take the height there is, wrapped, with each clue's
        // fill, and say how many clues are out of sight.
        let tall = screen.render(width: 120, height: 40)
        #expect(tall.text.contains("    clipping [AXc_]") && tall.text.contains("more"))  // (C in pencil)
        try golden("fifteen-120x40", tall.text)
        // At 140×40 the squares stay one line high: the lists keep 30 columns each, not 23.
        let wider = screen.render(width: 140, height: 40)
        let downAt = try #require(wider.text.split(separator: "\n").first { $0.contains("ACROSS") }?.range(of: "DOWN"))
        let acrossAt = try #require(wider.text.split(separator: "\n").first { $0.contains("ACROSS") }?.range(of: "ACROSS"))
        let line = try #require(wider.text.split(separator: "\n").first { $0.contains("ACROSS") })
        #expect(line.distance(from: acrossAt.lowerBound, to: downAt.lowerBound) >= 30, "\(line)")
        try golden("fifteen-140x40", wider.text)
        let large = screen.render(width: 200, height: 60)
        // The lists run down to the status lines, not stopping at the grid's height.
        #expect(large.text.contains("ACROSS") && (large.text.split(separator: "\n").firstIndex { $0.contains("↓") } ?? 0) >= 50)
        try golden("fifteen-200x60", large.text)
        try golden(
            "twenty-one-120x40",
            PlayScreen(
                view: view(Self.twentyOne), state: PlayState(puzzle: Self.twentyOne) { _ in "" }, status: SyncStatus(connection: .online, unsent: 0),
                elapsedSeconds: 0
            ).render(width: 120, height: 40).text)
    }

    /// A 21×21 of short words, numbered past 100.
    static let twentyOne: Puzzle = {
        let cells = (0..<441).map { index -> Cell in
            let (row, col) = (index / 21, index % 21)
            return (row % 3 == 2 && col % 3 != 0) || (col % 3 == 2 && row % 3 == 0) ? .block : .letter("A")
        }
        return try! Puzzle(title: "Big", width: 21, height: 21, cells: cells, clueTexts: [:])
    }()

    /// Every clue number whole, and apart from the letter, at 80×24, 120×40 and 200×60: the whole
    /// grid on screen at each size (a short terminal gives up the crossing clue and the key
    /// hints before it scrolls); at 80 columns an empty square shows its number in place of the
    /// letter, and a line says how wide a terminal shows them all.
    @Test func aTwentyOneByTwentyOneKeepsItsNumbers() throws {
        let puzzle = Self.twentyOne
        let highest = puzzle.letterPositions.compactMap { puzzle.cell(at: $0).number }.max()!
        #expect(highest >= 100)
        var replica = GameReplica(puzzle: puzzle, gameID: "game-1", replicaID: "dev-ann", authorID: "acct-ann")
        try replica.perform(.setLetter(GridPosition(row: 0, col: 0), "W"), wallMillis: 1_000)
        var state = PlayState(puzzle: puzzle) { replica.grid.letter(at: $0) }
        state.cursor.position = GridPosition(row: 19, col: 19)
        let screen = PlayScreen(
            view: view(puzzle, grid: replica.grid), state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0)
        for (width, height, cellWidth) in [(80, 24, 3), (120, 40, 4), (200, 60, 6)] {
            // At 200×60 the squares stay one line high (two would leave the clue lists 25
            // columns, not 35): the number, a space, the letter and its mark.
            let frame = screen.render(width: width, height: height)
            let lines = frame.text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == height && lines.allSatisfy { $0.count <= width }, "\(width)×\(height)")
            // No scroll arrows: all 21 rows are on screen.
            #expect(!frame.text.contains(/[↑↓←→][0-9]/), "\(width)×\(height)")
            // No two numbers run together in one script (as "¹⁰³¹⁰⁴" did).
            #expect(!frame.text.contains(/[⁰¹²³⁴⁵⁶⁷⁸⁹]{4,}|[₀₁₂₃₄₅₆₇₈₉]{4,}/), "\(width)×\(height)")
            for row in 0..<21 {
                for col in 0..<21 {
                    let position = GridPosition(row: row, col: col)
                    guard let number = puzzle.cell(at: position).number, replica.grid.letter(at: position).isEmpty,
                        position != state.cursor.position
                    else { continue }
                    // Three digits in a three-column square: subscript in every other column, so
                    // neighbours never run together ("¹⁰³₁₀₄").
                    let digits =
                        cellWidth == 3 && number >= 100 && col % 2 == 1 ? PlayScreen.subscriptDigits(number) : PlayScreen.superscript(number)
                    let line = 2 + row
                    let shown = String((0..<digits.count).map { frame.character(row: line, col: col * cellWidth + $0) })
                    #expect(shown == digits, "\(width)×\(height): \(number) at \(row),\(col) reads \(shown)")
                    // Apart from the next square's: a space follows the widest number.
                    #expect(cellWidth < 6 || frame.character(row: line, col: col * cellWidth + 3) == " ")
                }
            }
            // Where a line is free, it says how wide a terminal shows every number.
            #expect(!frame.text.contains("show in a terminal 126 columns wide") || cellWidth == 3)
        }
        // The filled square shows its letter with its number: at 120 columns "¹ W", at 200 "¹   W".
        #expect(screen.render(width: 120, height: 40).text.split(separator: "\n")[2].hasPrefix("¹ W"))
        let wide = screen.render(width: 200, height: 60)
        let wideLines = wide.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(wideLines[2].hasPrefix("¹   W"), "\(wideLines[2])")
        // Beside the grid, two clue lists of about 35 columns each.
        let listsLine = try #require(wideLines.first { $0.contains("ACROSS") && $0.contains("DOWN") })
        let listsGap = listsLine.distance(
            from: try #require(listsLine.range(of: "ACROSS")).lowerBound, to: try #require(listsLine.range(of: "DOWN")).lowerBound)
        #expect(listsGap >= 34, "\(listsLine)")
        try golden("twenty-one-80x24", screen.render(width: 80, height: 24).text)
        try golden("twenty-one-filled-120x40", screen.render(width: 120, height: 40).text)
        try golden("twenty-one-200x60", wide.text)
        // Shorter than the grid: it scrolls, and arrows say how many rows are out of sight.
        let short = screen.render(width: 80, height: 16)
        #expect(short.text.contains(/↑[0-9]/))
        // In three-column squares the cursor's empty square keeps its number (reversed), and
        // of two three-digit numbers side by side one is in subscript, so they read apart.
        var onTwo = state
        onTwo.cursor.position = GridPosition(row: 0, col: 1)
        let compact = PlayScreen(
            view: view(puzzle, grid: replica.grid), state: onTwo, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0
        ).render(width: 80, height: 24)
        #expect(compact.character(row: 2, col: 3) == "²" && compact.style(row: 2, col: 3).reverse)
        let hundreds = puzzle.letterPositions.filter { (puzzle.cell(at: $0).number ?? 0) >= 100 && replica.grid.letter(at: $0).isEmpty }
        let pair = try #require(hundreds.first { hundreds.contains(GridPosition(row: $0.row, col: $0.col + 1)) })
        let line = 2 + pair.row
        let scripts = [pair.col, pair.col + 1].map { col in "₀₁₂₃₄₅₆₇₈₉".contains(compact.character(row: line, col: col * 3)) }
        #expect(scripts[0] != scripts[1], "\(pair): \(scripts)")
        // In four-column squares a typed letter keeps a three-digit number beside it ("¹⁰³R"),
        // and the next square's number stands apart.
        try replica.perform(.setLetter(pair, "R"), wallMillis: 2_000)
        let snug = PlayScreen(
            view: view(puzzle, grid: replica.grid), state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0
        ).render(width: 120, height: 40)
        let number = try #require(puzzle.cell(at: pair).number)
        let next = try #require(puzzle.cell(at: GridPosition(row: pair.row, col: pair.col + 1)).number)
        let pairText = String((0..<8).map { snug.character(row: line, col: pair.col * 4 + $0) })
        #expect(pairText == PlayScreen.superscript(number) + "R" + PlayScreen.superscript(next) + " ", "\(pairText)")
    }

    /// A letter refused on a revealed square leaves the cursor there (it moved on as if
    /// written); the square's own letter again steps on quietly, writing nothing.
    /// ^F follows the other players in turn (by name), the cursor going where theirs goes; any
    /// other key stops, and so does the followed player leaving.
    @Test func followingAnotherPlayersCursor() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var shown = view(puzzle)
        shown.players.append(ParticipantRecord(gameID: "game-1", authorID: "acct-cat", displayName: "Cat", role: .player))
        shown.cursors.append(PeerCursor(deviceID: "dev-cat", authorID: "acct-cat", position: GridPosition(row: 3, col: 0), direction: .across))
        var state = PlayState(puzzle: puzzle) { _ in "" }
        _ = state.handle(.control("f"), view: shown)
        #expect(state.following == "acct-bob" && state.cursor.position == GridPosition(row: 2, col: 2) && state.cursor.direction == .down)
        #expect(state.notice?.hasPrefix("Following Bob") == true)
        // Bob moves: the cursor goes with him.
        shown.cursors[0].position = GridPosition(row: 4, col: 1)
        state.follow(shown)
        #expect(state.cursor.position == GridPosition(row: 4, col: 1))
        _ = state.handle(.control("f"), view: shown)
        #expect(state.following == "acct-cat" && state.cursor.position == GridPosition(row: 3, col: 0))
        _ = state.handle(.control("f"), view: shown)
        #expect(state.following == nil && state.notice == "Stopped following.")
        // Another key stops following: Bob's next move leaves the cursor where it is.
        _ = state.handle(.control("f"), view: shown)
        _ = state.handle(.right, view: shown)
        let stayed = state.cursor
        shown.cursors[0].position = GridPosition(row: 1, col: 1)
        state.follow(shown)
        #expect(state.following == nil && state.cursor == stayed)
        // The followed player leaving ends it, in words.
        _ = state.handle(.control("f"), view: shown)
        shown.cursors.removeAll { $0.authorID == "acct-bob" }
        state.follow(shown)
        #expect(state.following == nil && state.notice == "Bob left; no longer following.")
        // Alone, there is no one to follow.
        shown.cursors = []
        _ = state.handle(.control("f"), view: shown)
        #expect(state.following == nil && state.notice == "No one else's cursor is here to follow.")
    }

    /// ^T opens a chat line: keys write on it (never in the grid), Backspace takes one back,
    /// Enter sends, Esc puts it away; the conversation shows under the clues, names in colour,
    /// a message not yet sent says so.
    @Test func aChatLineAndTheConversationUnderTheClues() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        let shown = view(puzzle)
        var state = PlayState(puzzle: puzzle) { _ in "" }
        let start = state.cursor
        _ = state.handle(.control("t"), view: shown)
        #expect(state.chat == "")
        for key in "hi Bobx" { #expect(state.handle(.character(key), view: shown).isEmpty) }
        _ = state.handle(.backspace, view: shown)
        #expect(state.chat == "hi Bob" && state.cursor == start)
        #expect(state.handle(.enter, view: shown) == [.say("hi Bob")] && state.chat == nil)
        _ = state.handle(.control("t"), view: shown)
        _ = state.handle(.character("x"), view: shown)
        #expect(state.handle(.escape, view: shown).isEmpty && state.chat == nil)
        // Within the limit: a key past it is refused in words.
        state.chat = String(repeating: "a", count: Chat.maximumBytes)
        _ = state.handle(.character("b"), view: shown)
        #expect(state.chat?.utf8.count == Chat.maximumBytes && state.notice?.contains("at most 1000 bytes") == true)
        state.chat = "try 5"
        var screen = PlayScreen(view: shown, state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0)
        screen.chat = [
            ChatLine(
                message: ChatMessage(
                    gameID: "game-1", authorID: "acct-bob", replicaID: "dev-bob", messageID: "m1", text: "look at 7 Across \u{1B}[2J",
                    timestamp: HLCTimestamp(wallMillis: 1)), sent: true, refusal: nil),
            ChatLine(
                message: ChatMessage(
                    gameID: "game-1", authorID: "acct-ann", replicaID: "dev-ann", messageID: "m2", text: "on it",
                    timestamp: HLCTimestamp(wallMillis: 2)),
                sent: false, refusal: nil),
        ]
        let text = screen.render(width: 100, height: 30).text
        #expect(text.contains("Chat") && text.contains("Bob: look at 7 Across \u{FFFD}[2J") && text.contains("You: on it (sending)"))
        #expect(text.contains("Say: try 5_"))
        #expect(text.contains("^T chat"))
        #expect(screen.render(width: 80, height: 24).text.split(separator: "\n").last?.contains("^T chat") == true)
    }

    /// A notice appearing never redraws the grid in another form: at 80×15 a 5×5 had room for
    /// two lines a square only while no notice showed, and switched at each check's result.
    @Test func aNoticeNeverChangesTheGridsForm() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var state = PlayState(puzzle: puzzle) { _ in "" }
        let quiet = PlayScreen(view: view(puzzle), state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0)
        state.notice = "2 wrong in 1 Across."
        let noticed = PlayScreen(view: view(puzzle), state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0)
        for height in 12...30 {
            let before = quiet.render(width: 80, height: height).text.split(separator: "\n", omittingEmptySubsequences: false)
            let after = noticed.render(width: 80, height: height).text.split(separator: "\n", omittingEmptySubsequences: false)
            let grid = { (lines: [Substring]) in lines.dropFirst(2).prefix(5).map { String($0.prefix(20)) } }
            #expect(grid(before) == grid(after), "80×\(height)")
            #expect(after.contains { $0.contains("2 wrong in 1 Across.") }, "80×\(height)")
        }
    }

    /// The conversation shows in one chat pane at every size (never also beside the grid, under
    /// the clues and on the status line): at 80×24 on the lines under the grid, at 120×40
    /// beside it under the players, at 200×60 at the foot of the clue lists. Unread messages
    /// are marked until ^T; a long message is wrapped and capped; the pane scrolls back with
    /// PgUp while writing and with the wheel; with no room at all the newest unread message is
    /// said on the status line.
    @Test func oneChatPaneAtEverySize() throws {
        let puzzle = Self.fifteen
        let shown = view(puzzle)
        func line(_ number: Int, _ author: String, _ text: String) -> ChatLine {
            ChatLine(
                message: ChatMessage(
                    gameID: "game-1", authorID: author, replicaID: "dev-\(number)", messageID: "m\(number)", text: text,
                    timestamp: HLCTimestamp(wallMillis: Int64(number))), sent: true, refusal: nil)
        }
        var state = PlayState(puzzle: puzzle) { _ in "" }
        state.chatUnread = 2
        var screen = PlayScreen(view: shown, state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0)
        screen.chat = [line(1, "acct-ann", "first from me"), line(2, "acct-bob", "second from Bob"), line(3, "acct-bob", "third from Bob")]
        for (width, height) in [(80, 24), (120, 40), (200, 60)] {
            let text = screen.render(width: width, height: height).text
            for message in ["first from me", "second from Bob", "third from Bob"] {
                #expect(text.components(separatedBy: message).count == 2, "\(width)×\(height): \(message) is not shown exactly once")
            }
            #expect(text.contains("Chat · 2 new") && text.contains("• Bob: third from Bob"), "\(width)×\(height)")
            #expect(!text.contains("✉"), "\(width)×\(height): the status line repeats a message the pane shows")
        }
        // ^T reads them.
        _ = state.handle(.control("t"), view: shown)
        #expect(state.chatUnread == 0)
        screen.state = state
        #expect(!screen.render(width: 80, height: 24).text.contains("new"))
        // A long message: wrapped, at most four lines, cut with "…".
        screen.chat.append(line(4, "acct-bob", String(repeating: "very long words ", count: 40)))
        let long = screen.render(width: 200, height: 60).text.split(separator: "\n").filter { $0.contains("very long words") }
        #expect(long.count == PlayScreen.chatLinesPerMessage && long.last?.hasSuffix("…") == true)
        // Scrolled back (PgUp while writing), the oldest message comes into the 80×24 pane.
        screen.chat += (5...12).map { line($0, "acct-bob", "message \($0)") }
        #expect(!screen.render(width: 80, height: 24).text.contains("first from me"))
        for _ in 0..<3 { _ = state.handle(.pageUp, view: shown) }
        screen.state = state
        let back = screen.render(width: 80, height: 24).text
        #expect(back.contains("↓ newer") && !back.contains("message 12"))
        _ = state.handle(.escape, view: shown)
        #expect(state.chatBack == 0)
        // The wheel over the pane scrolls it too (the pane's rows are its target).
        let frame = screen.render(width: 80, height: 24)
        let paneRow = try #require((0..<24).first { frame.target(row: $0, col: 5) == .chat })
        state.click(frame.target(row: paneRow, col: 5), wheelUp: true, view: shown)
        #expect(state.chatBack == 2)
        // No room for a pane (a 15×15 in 80×18): the newest unread message on the status line.
        state.chatBack = 0
        state.chatUnread = 1
        screen.state = state
        let small = screen.render(width: 80, height: 18).text
        #expect(small.contains("✉ Bob: message 12") && small.components(separatedBy: "message 12").count == 2)
    }

    /// A 5×5 in a 200×60 terminal: two lines a square and the whole layout in the middle, both
    /// ways, the chat right under the short clue lists; in 80×24 the status and keys stay on the
    /// bottom lines.
    @Test func aSmallPuzzleSitsInTheMiddleOfABigTerminal() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var screen = PlayScreen(
            view: view(puzzle), state: PlayState(puzzle: puzzle) { _ in "" }, status: SyncStatus(connection: .online, unsent: 0),
            elapsedSeconds: 0)
        screen.chat = [
            ChatLine(
                message: ChatMessage(
                    gameID: "game-1", authorID: "acct-bob", replicaID: "dev-bob", messageID: "m1", text: "hello",
                    timestamp: HLCTimestamp(wallMillis: 1)),
                sent: true, refusal: nil)
        ]
        let lines = screen.render(width: 200, height: 60).text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let title = try #require(lines.firstIndex { $0.contains("Green Light — The Crossmate team") })
        let keys = try #require(lines.firstIndex { $0.contains("^Q quit") })
        // As many blank lines above the title as below the keys (within one).
        #expect(title > 10 && abs(title - (59 - keys)) <= 1, "title on line \(title), keys on \(keys)")
        let indent = lines[title].prefix { $0 == " " }.count
        #expect(indent > 30 && lines[title + 2].dropFirst(indent - 1).hasPrefix("█████1    2"))
        // The chat follows the lists (no gap of a screen between them).
        let lastClue = try #require(lines.lastIndex { $0.contains("[____]") || $0.contains("[_____]") })
        let chat = try #require(lines.firstIndex { $0.contains("Chat · ") || $0.contains("Chat  (") })
        #expect(chat > lastClue && chat - lastClue <= 3)
        // 80×24: the keys on the last line, the title on the first.
        let small = screen.render(width: 80, height: 24).text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(small[0].contains("Green Light") && small[23].contains("^Q quit"))
    }

    /// ^K pins another player's colour from inside play (whom, then which colour, 0 to let it be
    /// dealt again); ^E at the finish offers the next puzzles and starts one with everyone.
    @Test func pinningAColourAndTheNextPuzzleFromInsidePlay() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var shown = view(puzzle)
        shown.players.append(ParticipantRecord(gameID: "game-1", authorID: "acct-cleo", displayName: "Cleo", role: .player))
        var state = PlayState(puzzle: puzzle) { _ in "" }
        _ = state.handle(.control("k"), view: shown)
        #expect(state.menu == .pinWhom)
        var screen = PlayScreen(view: shown, state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0)
        #expect(screen.render(width: 80, height: 24).text.contains("Pin whose colour? 1 Bob  2 Cleo"))
        _ = state.handle(.character("2"), view: shown)
        #expect(state.menu == .pinColour("acct-cleo"))
        screen.state = state
        let colours = screen.render(width: 80, height: 24).text
        #expect(
            colours.contains("Cleo always in: 1 brown · 2 orange") && colours.contains("9 magenta") && colours.contains("0 as dealt"), "\(colours)")
        #expect(state.handle(.character("9"), view: shown) == [.pinColour(authorID: "acct-cleo", colour: 8)] && state.menu == nil)
        _ = state.handle(.control("k"), view: shown)
        _ = state.handle(.character("1"), view: shown)
        #expect(state.handle(.character("0"), view: shown) == [.pinColour(authorID: "acct-bob", colour: nil)])
        // A digit that names nobody, or Esc, puts the question away.
        _ = state.handle(.control("k"), view: shown)
        #expect(state.handle(.character("7"), view: shown).isEmpty && state.menu == nil)
        // Alone in a game: nothing to pin, said so; and a question asked before the others left
        // is put away by the digit (no one to pin), never a crash.
        var alone = shown
        alone.players = [shown.players[0]]
        _ = state.handle(.control("k"), view: shown)
        #expect(state.handle(.character("1"), view: alone).isEmpty && state.menu == nil)
        _ = state.handle(.control("k"), view: alone)
        #expect(state.menu == nil && state.notice == "No one else is in this game to pin a colour for.")
        // ^E before the finish says when it works; at the finish it offers the puzzles.
        state.nextPuzzles = [("green-light", "Green Light"), ("daybreak", "Daybreak")]
        _ = state.handle(.control("e"), view: shown)
        #expect(state.menu == nil && state.notice?.contains("finished game") == true)
        var finished = shown
        finished.completion = Completion(kind: .solved, at: HLCTimestamp(wallMillis: 5), by: "acct-ann")
        _ = state.handle(.control("e"), view: finished)
        #expect(state.menu == .nextPuzzle)
        screen = PlayScreen(view: finished, state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0)
        let offer = screen.render(width: 100, height: 30).text
        #expect(offer.contains("Next puzzle with everyone here: 1 Green Light · 2 Daybreak") && offer.contains("^E next puzzle together"), "\(offer)")
        #expect(state.handle(.character("2"), view: finished) == [.nextPuzzle("daybreak")])
    }

    /// ^W flags the word at the cursor; a flagged clue shows ⚑ and who, in the clue bar and
    /// the clue list.
    @Test func aFlaggedClueShowsWhoFlaggedIt() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var shown = view(puzzle)
        var state = PlayState(puzzle: puzzle) { _ in "" }
        #expect(state.handle(.control("w"), view: shown) == [.toggleFlag(state.cursor.position, state.cursor.direction)])
        let clue = try #require(puzzle.clue(containing: state.cursor.position, state.cursor.direction))
        shown.flags = [
            ClueFlag(
                gameID: "game-1", authorID: "acct-bob", number: clue.number, direction: clue.direction, on: true,
                timestamp: HLCTimestamp(wallMillis: 1))
        ]
        let text = PlayScreen(view: shown, state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0).render(
            width: 100, height: 30
        ).text
        let lines = text.split(separator: "\n")
        #expect(lines[1].contains("⚑ Bob"))
        #expect(lines.contains { $0.contains("⚑ \(clue.number) ") || $0.contains("⚑  \(clue.number) ") || $0.contains("⚑\(clue.number) ") })
        var removed = view(puzzle, readOnly: true)
        removed.flags = shown.flags
        #expect(state.handle(.control("w"), view: removed).isEmpty)
    }

    @Test func aRefusedLetterLeavesTheCursorWhereItWas() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var replica = GameReplica(puzzle: puzzle, gameID: "game-1", replicaID: "dev-ann", authorID: "acct-ann")
        let revealed = GridPosition(row: 1, col: 0)
        try replica.perform(.reveal(.square(revealed)), wallMillis: 1_000)
        let answer = replica.grid.letter(at: revealed)
        let other = answer == "Q" ? "Z" : "Q"
        var state = PlayState(puzzle: puzzle) { replica.grid.letter(at: $0) }
        state.cursor = SolvingKeys.Cursor(position: revealed, direction: .across)
        let refused = state.handle(.character(Character(other)), view: view(puzzle, grid: replica.grid))
        #expect(state.cursor.position == revealed && refused.count == 1)
        let stepped = state.handle(.character(Character(answer)), view: view(puzzle, grid: replica.grid))
        #expect(stepped.isEmpty && state.cursor.position != revealed)
        #expect(replica.grid.typing(.write(revealed, other, pencil: false)) == .refused)
        #expect(replica.grid.typing(.erase(revealed)) == .refused)
        #expect(replica.grid.typing(.write(GridPosition(row: 1, col: 1), "A", pencil: false)) == .write)
    }

    /// The `?` help is a table of every key, whole at 80×24 (one column) and in two columns on
    /// a wide terminal, and ^R opens a rebus (a Mac laptop has no Insert key).
    @Test func helpIsATableOfEveryKeyAndControlROpensARebus() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var state = PlayState(puzzle: puzzle) { _ in "" }
        _ = state.handle(.character("?"), view: view(puzzle))
        let screen = PlayScreen(view: view(puzzle), state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0)
        for (width, height) in [(80, 24), (200, 60)] {
            let text = screen.render(width: width, height: height).text
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.allSatisfy { $0.count <= width })
            for entry in PlayScreen.keys {
                #expect(lines.contains { $0.contains(entry.key) && $0.contains(entry.does) }, "\(entry.key) at \(width)×\(height)")
            }
            #expect(text.contains("Any key closes this help."))
            // Two columns side by side: the first key beside the first of the second half.
            let second = PlayScreen.keys[(PlayScreen.keys.count + 1) / 2].key
            if width == 200 { #expect(lines.contains { $0.contains("letters") && $0.contains(second) }, "two columns") }
        }
        try golden("help-80x24", screen.render(width: 80, height: 24).text)
        var typing = PlayState(puzzle: puzzle) { _ in "" }
        _ = typing.handle(.control("r"), view: view(puzzle))
        #expect(typing.cursor.rebus == "")
    }

    /// Clearing the whole puzzle asks first, saying whose letters go (it wiped friends' letters
    /// at two keys); a check says what it found.
    @Test func clearingThePuzzleAsksAndACheckSaysWhatItFound() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var replica = GameReplica(puzzle: puzzle, gameID: "game-1", replicaID: "dev-ann", authorID: "acct-ann")
        var bob = GameReplica(puzzle: puzzle, gameID: "game-1", replicaID: "dev-bob", authorID: "acct-bob")
        for (col, letter) in ["G", "R", "E"].enumerated() {
            replica.receive(try bob.perform(.setLetter(GridPosition(row: 1, col: col), letter), wallMillis: 1_000 + Int64(col)))
        }
        try replica.perform(.setLetter(GridPosition(row: 0, col: 1), "Q"), wallMillis: 2_000)
        try replica.perform(.setLetter(GridPosition(row: 0, col: 2), "L"), wallMillis: 2_001)
        var state = PlayState(puzzle: puzzle) { replica.grid.letter(at: $0) }
        let shown = view(puzzle, grid: replica.grid)
        for key in [InputKey.control("x"), .character("x")] { #expect(state.handle(key, view: shown).isEmpty) }
        #expect(state.handle(.character("p"), view: shown).isEmpty && state.menu == .confirmPuzzle(.clear))
        let asked = PlayScreen(view: shown, state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0)
            .render(width: 100, height: 24).text
        #expect(asked.contains("Clear the whole puzzle: 3 of Bob's letters and 2 of yours? y clears"))
        #expect(state.handle(.character("n"), view: shown).isEmpty && state.notice == "Nothing was cleared.")
        for key in [InputKey.control("x"), .character("x"), .character("p")] { _ = state.handle(key, view: shown) }
        #expect(state.handle(.character("y"), view: shown) == [.perform(.clear(.puzzle))])
        // Revealing the whole puzzle ends it for everyone: it asks too.
        for key in [InputKey.control("x"), .character("r")] { #expect(state.handle(key, view: shown).isEmpty) }
        #expect(state.handle(.character("p"), view: shown).isEmpty && state.menu == .confirmPuzzle(.reveal))
        let revealing = PlayScreen(view: shown, state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0)
            .render(width: 100, height: 24).text
        #expect(revealing.contains("Reveal every answer") && revealing.contains("finishes the puzzle with help"), "\(revealing)")
        #expect(state.handle(.character("n"), view: shown).isEmpty && state.notice == "Nothing was revealed.")
        for key in [InputKey.control("x"), .character("r"), .character("p")] { _ = state.handle(key, view: shown) }
        #expect(state.handle(.character("y"), view: shown) == [.perform(.reveal(.puzzle))])
        // A square or a word is revealed at once.
        for key in [InputKey.control("x"), .character("r")] { _ = state.handle(key, view: shown) }
        #expect(state.handle(.character("w"), view: shown) == [.perform(.reveal(.word(state.cursor.position, state.cursor.direction)))])

        try replica.perform(.check(.word(GridPosition(row: 0, col: 1), .across)), wallMillis: 3_000)
        let checked = view(puzzle, grid: replica.grid)
        #expect(PlayState.checkSummary(.word(GridPosition(row: 0, col: 1), .across), view: checked) == "1 wrong in 1 Across (2 still empty)")
        #expect(PlayState.checkSummary(.square(GridPosition(row: 0, col: 2)), view: checked) == "All right in that square")
    }

    @Test func marksAreNeverOnlyColour() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var replica = GameReplica(puzzle: puzzle, gameID: "game-1", replicaID: "dev-ann", authorID: "acct-ann")
        try replica.perform(.setLetter(GridPosition(row: 1, col: 0), "Q"), wallMillis: 1_000)
        try replica.perform(.check(.square(GridPosition(row: 1, col: 0))), wallMillis: 1_001)
        let state = PlayState(puzzle: puzzle) { replica.grid.letter(at: $0) }
        let screen = PlayScreen(
            view: view(puzzle, grid: replica.grid, readOnly: true), state: state, status: SyncStatus(connection: .offline(since: 0), unsent: 3),
            elapsedSeconds: 5)
        let frame = screen.render(width: 60, height: 16, colors: .none)
        // The wrong letter carries ×, read-only and offline are spelled out.
        #expect(frame.text.contains("Q×") && frame.text.contains("READ-ONLY") && frame.text.contains("offline"))
        // NO_COLOR: no colour codes at all, only attributes.
        let ansi = frame.ansi(.none)
        #expect(!ansi.contains("38;5") && !ansi.contains("48;5") && ansi.range(of: #"\[[0-9;]*3[0-7]m"#, options: .regularExpression) == nil)
        #expect(frame.ansi(.sixteen).contains("91"))  // bright red for the wrong letter
        // Players differ without colour: each has their avatar symbol in the title, and Bob's
        // cursor (at 2,2) is underlined and carries his symbol.
        let bob = PlayerColors.avatarSymbol("acct-bob")
        #expect(frame.text.split(separator: "\n")[0].contains("\(PlayerColors.avatarSymbol("acct-ann")) Ann"))
        #expect(frame.text.split(separator: "\n")[0].contains("\(bob) Bob"))
        let bobsSquare = (0..<frame.width).first { col in
            frame.style(row: 4, col: col).underline && frame.character(row: 4, col: col) == Character(bob)
        }
        #expect(bobsSquare != nil, "Bob's cursor is not marked without colour")
        try golden("green-light-readonly-60x16", frame.text)
    }

    @Test func theCompletionBannerShowsTheScoreboard() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var replica = GameReplica(puzzle: puzzle, gameID: "game-1", replicaID: "dev-ann", authorID: "acct-ann")
        try replica.perform(.reveal(.puzzle), wallMillis: 1_000)
        let completion = Completion(kind: .solved, at: HLCTimestamp(wallMillis: 1_001), by: "acct-ann")
        let state = PlayState(puzzle: puzzle) { replica.grid.letter(at: $0) }
        // Completed by revealing it: finished with help, counted in squares, not a solve.
        let summary = FinishSummary(completion, finalGrid: replica.grid, tally: Tally(replica.journal), seconds: 3_725)
        #expect(summary.finish == .finishedWithHelp)
        let screen = PlayScreen(
            view: view(puzzle, grid: replica.grid, completion: completion), state: state,
            status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 3_725, summary: summary)
        let text = screen.render(width: 80, height: 20).text
        #expect(text.contains("Finished with help (23 squares revealed) in 1:02:05") && text.contains("Ann 0 letters (23 squares revealed)"))
        // A finished grid takes no more letters: the footer offers no undo, check or pencil, and
        // nothing is said to be sending while nothing is unsent.
        #expect(!text.contains("^Z") && !text.contains("^X") && !text.contains("^P") && !text.contains("Sending"))
        try golden("green-light-solved-80x20", text)
        let sending = PlayScreen(
            view: view(puzzle, grid: replica.grid, completion: completion), state: state,
            status: SyncStatus(connection: .online, unsent: 2), elapsedSeconds: 3_725, summary: summary)
        #expect(sending.render(width: 80, height: 20).text.contains("Sending the last moves…"))
    }

    /// A barred puzzle's bars are drawn: a bar to a square's right in its mark's column, one
    /// below it as an underline (kotwords' barred .xd: a bar left of (0,4), above (1,0)).
    @Test func barsAreDrawn() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../CrossmateFormatsTests/Fixtures/kotwords/xd/test-barred.xd")
        let puzzle = try PuzzleFile.read(Array(try Data(contentsOf: url)), fileName: "test-barred.xd")
        var state = PlayState(puzzle: puzzle) { _ in "" }
        state.cursor.position = GridPosition(row: 4, col: 4)
        let frame = PlayScreen(
            view: view(puzzle), state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0
        ).render(width: 80, height: 14, colors: .none)
        // Four columns a square: the mark of (0,3) is column 15, on the grid's first row (2).
        #expect(frame.character(row: 2, col: 15) == "│")
        #expect(frame.character(row: 2, col: 11) != "│")
        // (0,0) has a bar below it: underlined; (0,1) has none and is not in the current word.
        #expect(frame.style(row: 2, col: 2).underline && !frame.style(row: 2, col: 6).underline)
        // With the rows for it, two lines a square (five columns): the bar right of (0,3) stands
        // in its last column on both lines, the bar below (0,0) underlines its letter line.
        let tall = PlayScreen(
            view: view(puzzle), state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0
        ).render(width: 80, height: 24, colors: .none)
        #expect(tall.character(row: 2, col: 19) == "│" && tall.character(row: 3, col: 19) == "│")
        #expect(tall.character(row: 2, col: 14) != "│")
        #expect(tall.style(row: 3, col: 2).underline && !tall.style(row: 2, col: 2).underline && !tall.style(row: 3, col: 7).underline)
    }

    /// A replay's footer is its own: where it stands and the solving clock there, its keys.
    @Test func aReplayHasItsOwnFooter() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var screen = PlayScreen(
            view: view(puzzle), state: PlayState(puzzle: puzzle) { _ in "" }, status: SyncStatus(connection: .online, unsent: 0),
            elapsedSeconds: 190)
        screen.replay = PlayScreen.ReplayStatus(step: 12, count: 23, secondsAtStep: 95, totalSeconds: 190, speed: 10)
        let text = screen.render(width: 80, height: 24).text
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[22] == "REPLAY  move 12 of 23  1:35 of 3:10  playing 10×")
        #expect(lines[23].hasPrefix("←/→ a move") && !text.contains("^Z undo") && !text.contains("online"))
        try golden("green-light-replay-80x24", text)
    }

    /// PgUp and PgDn, and SGR mouse reports: a left press, the wheel both ways; releases,
    /// drags and other buttons are nothing; a report split across reads waits for its end.
    @Test func pageKeysAndMouseReportsDecode() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}[5~\u{1B}[6~".utf8)) == [.pageUp, .pageDown])
        #expect(decoder.decode(Array("\u{1B}[<0;10;4M\u{1B}[<0;10;4m".utf8)) == [.click(row: 3, col: 9)])
        #expect(
            decoder.decode(Array("\u{1B}[<64;3;7M\u{1B}[<65;3;7M".utf8)) == [.wheel(up: true, row: 6, col: 2), .wheel(up: false, row: 6, col: 2)])
        #expect(decoder.decode(Array("\u{1B}[<2;1;1M\u{1B}[<32;5;5M\u{1B}[<0;0;0M".utf8)).isEmpty)
        #expect(decoder.decode(Array("\u{1B}[<0;12".utf8)).isEmpty)
        #expect(decoder.decode(Array(";2M".utf8)) == [.click(row: 1, col: 11)])
    }

    /// Focus reports (CSI I and CSI O) are the window's focus, never letters, whole or split;
    /// Escape then a typed O or I is Escape and the letter.
    @Test func focusReportsDecode() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}[O\u{1B}[I".utf8)) == [.focus(false), .focus(true)])
        #expect(decoder.decode(Array("\u{1B}[".utf8)).isEmpty)
        #expect(decoder.decode(Array("O".utf8)) == [.focus(false)])
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.flushEscape() == [.escape])
        #expect(decoder.decode(Array("[I".utf8)) == [.focus(true)])
        #expect(decoder.decode(Array("\u{1B}I".utf8)) == [.escape, .character("I")])
    }

    /// Out of focus past the grace, the player is away, and back with the focus; away, the bell
    /// rings as `CallBack` calls (chat and nudges each time, moves once in ten minutes, nothing
    /// the settings turn off or a blocked player causes); in front, only a nudge rings it.
    @Test func attentionFollowsTheFocusAndTheCallBackRule() {
        var attention = Attention(grace: 15_000)
        let (me, ben, cat) = ("acct-ann", "acct-ben", "acct-cat")
        // (Each a statement of its own: a mutating call cannot sit inside #expect.)
        func tick(_ now: Int64) -> Attention.Change? { attention.tick(now: now) }
        func focus(_ focused: Bool, _ now: Int64) -> Attention.Change? { attention.focus(focused, now: now) }
        func rings(
            _ event: CallBack.Event, _ sender: String, _ settings: CallBack.Settings = CallBack.Settings(), blocked: Set<String> = [], at now: Int64
        ) -> Bool { attention.rings(event, from: sender, to: me, settings: settings, blocked: blocked, now: now) }
        #expect(tick(100_000) == nil)
        #expect(!rings(.chat, ben, at: 100_000))
        #expect(rings(.nudge, ben, at: 100_000))
        #expect(focus(false, 100_000) == nil)
        #expect(tick(114_999) == nil && !attention.isAway)
        // Back within the grace: never away.
        #expect(focus(true, 110_000) == nil)
        #expect(tick(130_000) == nil)
        #expect(focus(false, 200_000) == nil)
        #expect(focus(false, 210_000) == nil)  // (a second report keeps the first time)
        #expect(tick(215_000) == .away && attention.isAway)
        #expect(tick(216_000) == nil)
        #expect(rings(.chat, ben, at: 220_000))
        #expect(rings(.chat, ben, at: 221_000))
        #expect(!rings(.chat, me, at: 221_000))
        #expect(!rings(.chat, cat, blocked: [cat], at: 221_000))
        #expect(!rings(.chat, ben, CallBack.Settings(chat: false), at: 221_000))
        #expect(rings(.moves, ben, at: 230_000))
        #expect(!rings(.moves, ben, at: 230_000 + CallBack.movesIntervalMillis - 1))
        #expect(rings(.moves, ben, at: 230_000 + CallBack.movesIntervalMillis))
        #expect(focus(true, 900_000) == .back && !attention.isAway)
        #expect(!rings(.moves, ben, at: 2_000_000))
    }

    /// A control sequence that has begun is finished or discarded, never typed: split after
    /// its Escape with the Escape already gone out alone (the rest came late), split anywhere
    /// inside, or never finished.
    @Test func aSplitControlSequenceIsNeverTyped() {
        var decoder = KeyDecoder()
        // The Escape waited its time and went out; the rest of a click arrives after.
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.flushEscape() == [.escape])
        #expect(decoder.decode(Array("[<0;11;4M".utf8)) == [.click(row: 3, col: 10)])
        // The same for an arrow.
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.flushEscape() == [.escape])
        #expect(decoder.decode(Array("[B".utf8)) == [.down])
        // Only the read right after: later, "[" is what it is.
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.flushEscape() == [.escape])
        #expect(decoder.decode(Array("a".utf8)) == [.character("a")])
        #expect(decoder.decode(Array("[".utf8)) == [.character("[")])
        // Split inside, in three reads with nothing in between.
        #expect(decoder.decode(Array("\u{1B}[<0".utf8)).isEmpty)
        #expect(decoder.decode(Array(";110;".utf8)).isEmpty)
        #expect(decoder.decode(Array("4Mab".utf8)) == [.click(row: 3, col: 109), .character("a"), .character("b")])
        // A sequence past any terminal's length is dropped, and typing goes on.
        #expect(decoder.decode(Array("\u{1B}[".utf8) + Array(repeating: UInt8(ascii: "1"), count: 40)).isEmpty)
        #expect(decoder.decode(Array("xy".utf8)) == [.character("x"), .character("y")])
        // SS3 read whole; Escape then O apart is Escape and the letter.
        #expect(decoder.decode(Array("\u{1B}OP\u{1B}OH".utf8)) == [.home])
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.decode(Array("ON".utf8)) == [.escape, .character("O"), .character("N")])
    }

    /// A click on a square moves there (again: turns), on a clue goes to its word; PgDn and
    /// PgUp walk the words in list order; the wheel scrolls a list and any key puts it back.
    @Test func clicksAndPageKeysMoveTheCursor() throws {
        let view = view(try BundledPuzzles.puzzle("green-light"))
        var state = PlayState(puzzle: view.puzzle, letterAt: { _ in "" })
        let online = SyncStatus(connection: .online, unsent: 0)
        let screen = { PlayScreen(view: view, state: state, status: online, elapsedSeconds: 0).render(width: 100, height: 30) }
        var frame = screen()
        // Find the frame cell standing for square (1, 2) and the clue 7 Across.
        func cell(of target: FrameTarget) -> (row: Int, col: Int)? {
            for row in 0..<frame.height { for col in 0..<frame.width where frame.target(row: row, col: col) == target { return (row, col) } }
            return nil
        }
        let square = try #require(cell(of: .square(GridPosition(row: 1, col: 2))))
        state.click(frame.target(row: square.row, col: square.col), view: view)
        #expect(state.cursor.position == GridPosition(row: 1, col: 2) && state.cursor.direction == .across)
        state.click(frame.target(row: square.row, col: square.col), view: view)
        #expect(state.cursor.direction == .down)
        _ = state.handle(.pageDown, view: view)
        #expect(state.cursor.position == GridPosition(row: 0, col: 3) && state.cursor.direction == .down)  // 3 Down
        _ = state.handle(.pageUp, view: view)
        _ = state.handle(.pageUp, view: view)
        #expect(state.cursor.position == GridPosition(row: 0, col: 1) && state.cursor.direction == .down)  // 1 Down
        _ = state.handle(.pageUp, view: view)
        #expect(state.cursor.position == GridPosition(row: 4, col: 0) && state.cursor.direction == .across)  // 8 Across, round again
        frame = screen()
        let clue = try #require(cell(of: .clue(.across, number: 7)))
        state.click(frame.target(row: clue.row, col: clue.col), view: view)
        #expect(state.cursor.position == GridPosition(row: 3, col: 0) && state.cursor.direction == .across)
        state.click(.clueList(.down), wheelUp: false, view: view)
        #expect(state.listScroll[.down] != nil)
        _ = state.handle(.right, view: view)
        #expect(state.listScroll.isEmpty)
    }

    /// A rebus reads whole in the clue lists: "[(STAR)___]", not its first letter.
    @Test func aRebusReadsWholeInTheClueLists() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        var replica = GameReplica(puzzle: puzzle, gameID: "game-1", replicaID: "dev-ann", authorID: "acct-ann")
        _ = try replica.perform(.setLetter(GridPosition(row: 0, col: 1), "STAR"), wallMillis: 1_000)
        let state = PlayState(puzzle: puzzle) { _ in "" }
        let text = PlayScreen(
            view: view(puzzle, grid: replica.grid), state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: 0
        )
        .render(width: 100, height: 30).text
        #expect(text.contains("1 In addition [(STAR)___]"), "\(text)")
        #expect(text.contains("[(STAR)____]"), "1 Down shows it too: \(text)")
    }

    @Test func rawBytesDecodeToKeys() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("ab".utf8)) == [.character("a"), .character("b")])
        #expect(decoder.decode([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x44]) == [.up, .left])
        #expect(decoder.decode([0x1B, 0x5B, 0x33, 0x7E, 0x1B, 0x5B, 0x32, 0x7E, 0x1B, 0x5B, 0x5A]) == [.delete, .insert, .shiftTab])
        #expect(decoder.decode([0x1B, 0x5B, 0x31, 0x3B, 0x32, 0x43]) == [.shiftRight])
        #expect(
            decoder.decode([0x1A, 0x19, 0x10, 0x11, 0x7F, 0x09, 0x0D]) == [
                .control("z"), .control("y"), .control("p"), .control("q"), .backspace, .tab, .enter,
            ])
        // Esc then a letter is Escape and the letter, apart or in one read; a lone Esc is
        // Escape once nothing follows.
        #expect(decoder.decode([0x1B]).isEmpty && decoder.hasPendingEscape)
        #expect(decoder.decode(Array("q".utf8)) == [.escape, .character("q")])
        #expect(decoder.decode(Array("\u{1B}BETA".utf8)) == [.escape, .character("B"), .character("E"), .character("T"), .character("A")])
        #expect(decoder.decode(Array("\u{1B}ONE".utf8)) == [.escape, .character("O"), .character("N"), .character("E")])
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.flushEscape() == [.escape])
        // A sequence split across reads, and UTF-8 split across reads.
        #expect(decoder.decode([0x1B, 0x5B]).isEmpty)
        #expect(decoder.decode([0x43]) == [.right])
        #expect(decoder.decode([0xC3]).isEmpty)
        #expect(decoder.decode([0xA9]) == [.character("é")])
    }

    @Test func keysDriveTheCursorAndMenus() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        let empty = view(puzzle)
        var state = PlayState(puzzle: puzzle) { _ in "" }
        #expect(state.cursor.position == GridPosition(row: 0, col: 1))
        #expect(state.handle(.character("a"), view: empty) == [.perform(.setLetter(GridPosition(row: 0, col: 1), "A", pencil: false))])
        #expect(state.handle(.control("z"), view: empty) == [.perform(.undo)])
        #expect(state.handle(.control("x"), view: empty).isEmpty && state.menu == .action)
        #expect(state.handle(.character("c"), view: empty).isEmpty)
        #expect(state.handle(.character("w"), view: empty) == [.perform(.check(.word(state.cursor.position, .across)))])
        // A plain q is a letter; ctrl-q leaves.
        #expect(state.handle(.character("q"), view: empty).first != .quit)
        #expect(state.handle(.control("q"), view: empty) == [.quit])
        #expect(state.handle(.control("p"), view: empty).isEmpty && state.cursor.pencil)
        #expect(state.handle(.insert, view: empty).isEmpty && state.cursor.rebus == "")
    }

    /// ^G and a number: the clue in the cursor's direction, else the other one; a direction
    /// named is that clue. Jumping to the clue the cursor is on is no error.
    @Test func jumpingToAClueByNumber() throws {
        let puzzle = try BundledPuzzles.puzzle("green-light")
        let empty = view(puzzle)
        var state = PlayState(puzzle: puzzle) { _ in "" }
        func jump(_ keys: [InputKey]) {
            _ = state.handle(.control("g"), view: empty)
            for key in keys { _ = state.handle(key, view: empty) }
        }
        // 5 is an Across and a Down; from across it goes to 5 Across.
        jump([.character("5"), .enter])
        #expect(state.cursor.position == GridPosition(row: 1, col: 0) && state.cursor.direction == .across && state.notice == nil)
        // 6 is Across only: from a Down cursor it still goes there.
        jump([.character("2"), .character("d")])
        #expect(state.cursor.direction == .down && state.cursor.position == GridPosition(row: 0, col: 2))
        jump([.character("6"), .enter])
        #expect(state.cursor.position == GridPosition(row: 2, col: 0) && state.cursor.direction == .across && state.notice == nil)
        // Again on the clue it is on: stays, and says nothing is wrong.
        jump([.character("6"), .enter])
        #expect(state.cursor.position == GridPosition(row: 2, col: 0) && state.notice == nil)
        jump([.character("6"), .character("d")])
        #expect(state.notice == "there is no 6 down")
        jump([.character("9"), .character("9"), .enter])
        #expect(state.notice == "there is no clue 99")
    }
}
