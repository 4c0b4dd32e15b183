import ArgumentParser
import CrossmateClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import CrossmateTerminal
import Foundation

struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Solve a game in the terminal, live with the other players.",
        discussion: """
            Letters fill and move on; arrows move (an arrow across the direction turns); space turns; Tab and \
            Shift-Tab go to the next and previous unfilled word; Backspace erases back, Delete in place; Home/End; \
            Insert (or ctrl-r) opens a rebus entry; ctrl-p pencil; ctrl-x check/reveal/clear; ctrl-z undo, ctrl-y \
            redo; ctrl-g go to a clue; ctrl-o the puzzle's notes; ctrl-f follow another player; ctrl-t chat; ctrl-w flag \
            the word for the others; ctrl-n nudge the others; ctrl-l a link to invite a friend; ctrl-k pin a player's \
            colour; ctrl-e at the finish, the next puzzle with everyone (f: a file of your own); ? help; ctrl-q leaves. Works offline: what you type is kept and sent when the server is back. \
            When another player starts the next puzzle from this one, play goes straight into it. NO_COLOR turns colour off.
            """
    )

    @Argument(help: .game)
    var game: String

    @Flag(help: "No bell when another player nudges you.")
    var quiet = false

    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            let engine = try profile.engine()
            try RawTerminal.require("play")
            var session = try await engine.open(try await engine.resolve(game))
            let terminal = try RawTerminal(for: "play")
            defer { terminal.restore() }
            await engine.start()
            _ = try? await engine.syncOnce()
            // Keys reach whichever game is on screen: one reader for the whole session (a
            // stream's reader cancelled would end the stream for the next game too).
            let merge = PlayLoop.Merge()
            let keys = Task {
                for await input in terminal.inputs { await merge.send(.terminal(input)) }
                await merge.send(.terminal(.key(.control("q"))))
            }
            defer { keys.cancel() }
            var opening: String?
            while true {
                // This device is in the game while it plays (a lease the loop renews every few
                // minutes while the player is in front), and leaves it on the way out, having
                // shown everything it holds. Entering after others moved brings the catch-up,
                // shown as the opening notice.
                let entered = await engine.presence(session.gameID, entering: true)
                await engine.viewing(session.gameID, true)
                let outcome = try await PlayLoop(
                    engine: engine, session: session, terminal: terminal, merge: merge, bell: !quiet,
                    opening: opening ?? entered?.catchUp.map { "Since you were last here: \($0)." },
                    caught: PlayLoop.squares(entered?.catchUpSquares)
                ).run()
                await engine.viewing(session.gameID, false)
                await engine.presence(session.gameID, entering: false)
                // Another player started the next puzzle from this one: straight into it.
                guard case let .next(gameID, said) = outcome else { break }
                guard let nextSession = try? await engine.open(gameID) else { break }
                session = nextSession
                opening = TextRule.terminalSafe(said)
                terminal.write("\u{1B}[2J")
            }
            await engine.stop()
            // Back on the ordinary screen: say what has not reached the server, and that it is kept.
            terminal.restore()
            let unsent = (try? engine.store.unsentCount(gameID: session.gameID)) ?? 0
            if unsent > 0 {
                print(
                    "\(unsent) move\(unsent == 1 ? " has" : "s have") not reached the server yet: kept on this device, "
                        + "sent by the next `crossmate sync` or `crossmate play`.")
            }
        }
    }
}

/// The terminal client's loop: keys, engine events, resizes and the timer, each redrawing.
struct PlayLoop {
    let engine: SyncEngine
    let session: GameSession
    let terminal: RawTerminal
    /// Keys and engine events, one stream (`Play` forwards the keys).
    let merge: Merge
    /// Whether a nudge rings the terminal's bell (once for each; `--quiet` turns it off).
    var bell = true
    /// A notice to open with (the catch-up), and the squares it speaks of.
    var opening: String?
    var caught: Set<GridPosition> = []

    /// The lease on the game is renewed this often while the player is in front.
    static let leaseRenewalMillis: Int64 = 240_000

    /// How long the terminal may be out of focus before the player is away
    /// (`Presence.awayGraceMillis`; tests shorten it with `CROSSMATE_TEST_AWAY_GRACE_MS`).
    static var awayGrace: Int64 {
        ProcessInfo.processInfo.environment["CROSSMATE_TEST_AWAY_GRACE_MS"].flatMap { Int64($0) } ?? Presence.awayGraceMillis
    }

    /// The catch-up's squares as the server lists them ([row, col] pairs).
    static func squares(_ pairs: [[Int]]?) -> Set<GridPosition> {
        Set((pairs ?? []).compactMap { $0.count == 2 ? GridPosition(row: $0[0], col: $0[1]) : nil })
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    enum Outcome {
        case quit
        /// The next puzzle from this game, started by another player or this one: the game to
        /// go into and what to say there.
        case next(gameID: String, opening: String)
    }

    func run() async throws -> Outcome {
        let presence = PresenceLane(engine: engine, gameID: session.gameID, merge: merge)
        do {
            let outcome = try await play(presence)
            await presence.finish()
            return outcome
        } catch {
            await presence.finish()
            throw error
        }
    }

    private func play(_ presence: PresenceLane) async throws -> Outcome {
        let colors = ColorMode(environment: ProcessInfo.processInfo.environment)
        var view = try await session.view()
        var state = PlayState(puzzle: view.puzzle) { view.grid.letter(at: $0) }
        if let opening { state.notice = opening }
        state.nextPuzzles = BundledPuzzles.identifiers.compactMap { id in (try? BundledPuzzles.puzzle(id)).map { (id, $0.title) } }
        state.caught = caught
        var status = await engine.status
        var elapsed = await engine.solvingSeconds(session.gameID)
        var summary = view.completion == nil ? nil : try await session.summary()
        var chat = await engine.conversation(session.gameID)
        // The account's pins and preferred colour (best effort: offline, the stable colours), and
        // its settings: how the solving keys move (as on its other devices) and what calls the
        // player back; asked at once, and read again whenever one of the account's devices
        // changes them.
        async let friends = try? engine.friends()
        async let accountSettings = Self.accountSettings(engine)
        var zone = await friends
        var pins = Self.pins(zone)
        // In front of the terminal or away from it (its focus).
        var attention = Attention(grace: Self.awayGrace)
        var settings = await accountSettings
        state.options = settings.options
        var callBack = CallBack.Settings(settings)
        var leased = Self.now()
        func ring(_ event: CallBack.Event, from sender: String) {
            let blocked = Set((zone?.friends ?? []).filter(\.blocked).map(\.authorID))
            if bell, attention.rings(event, from: sender, to: view.me, settings: callBack, blocked: blocked, now: Self.now()) {
                terminal.write("\u{07}")
            }
        }
        let events = await engine.events()
        let forward = Task {
            for await event in events {
                switch event {
                case .gridChanged, .cursorsChanged, .becameReadOnly, .completed, .gamesChanged, .moveRefused, .status, .nudged, .accountChanged,
                    .chatChanged, .nextGame:
                    await merge.send(.engine(event))
                }
            }
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                await merge.send(.terminal(.tick))
            }
        }
        // Where this device's cursor was when it last left the game (kept on the device alone).
        let store = engine.store
        let cursorKey = "cursor:" + session.gameID
        if let saved = try? store.localValue(cursorKey), let cursor = Self.cursor(saved, in: view.puzzle) { state.cursor = cursor }
        defer {
            forward.cancel()
            ticker.cancel()
            try? store.setLocalValue(cursorKey, Self.saved(state.cursor))
        }
        // A puzzle's notes (instructions, a theme) are read first, the first time it is opened here.
        let notesKey = "notes-shown:" + session.gameID
        if !view.puzzle.notes.isEmpty, (try? store.localValue(notesKey)) == nil {
            state.showingNotes = true
            try? store.setLocalValue(notesKey, "1")
        }
        var lastCursor = state.cursor
        // The frame on screen: what a click lands on.
        var shown: Frame?
        func draw() {
            let size = terminal.size
            var screen = PlayScreen(
                view: view, state: state, status: status, elapsedSeconds: elapsed, summary: summary, pins: pins,
                preferred: zone?.preferredColor)
            screen.chat = chat
            let frame = screen.render(width: size.width, height: size.height, colors: colors)
            shown = frame
            terminal.write(frame.ansi(colors))
        }
        draw()
        await session.moveCursor(to: state.cursor.position, direction: state.cursor.direction)
        for await input in merge.stream {
            switch input {
            case let .terminal(.key(.focus(focused))):
                if attention.focus(focused, now: Self.now()) == .back {
                    // In front again: in the game again; what came meanwhile is said when the
                    // server answers (`cameBack`).
                    await engine.viewing(session.gameID, true)
                    presence.tell(.back)
                    leased = Self.now()
                    state.notice = "Back in the game."
                }
            case let .cameBack(gameID, entered):
                guard gameID == session.gameID, !attention.isAway else { break }
                if let catchUp = entered?.catchUp {
                    state.notice = "Since you were last here: \(catchUp)."
                    state.caught = Self.squares(entered?.catchUpSquares)
                }
            case let .terminal(.key(key)):
                switch key {
                case let .click(row, col): state.click(shown?.target(row: row, col: col), view: view)
                case let .wheel(up, row, col): state.click(shown?.target(row: row, col: col), wheelUp: up, view: view)
                default: break
                }
                for action in state.handle(key, view: view) {
                    switch action {
                    case .quit: return .quit
                    case let .toggleFlag(position, direction):
                        guard let clue = view.puzzle.clue(containing: position, direction) else { break }
                        let mine = view.flags.contains { $0.authorID == view.me && $0.number == clue.number && $0.direction == clue.direction }
                        do {
                            try await engine.flag(position, direction, on: !mine, in: session.gameID)
                            state.notice = mine ? "Flag taken down." : "Flagged \(Flags.name(clue.number, clue.direction)) for the others."
                        } catch {
                            state.notice = error.description
                        }
                    case .invite:
                        do {
                            state.notice = "Invite a friend with this link: " + (try await engine.invite(session.gameID))
                        } catch {
                            state.notice = "No invitation: \(error.description)"
                        }
                    case .pause:
                        do {
                            _ = try await engine.pause(session.gameID)
                            state.paused = true
                            elapsed = await engine.solvingSeconds(session.gameID)
                        } catch {
                            state.notice = "Not paused: \(error.description)"
                        }
                    case let .nudge(message):
                        do {
                            _ = try await engine.nudge(session.gameID, message: message)
                            state.notice = "Nudged the others: \(message)."
                        } catch {
                            state.notice = error.description
                        }
                    case let .pinColour(authorID, colour):
                        do {
                            let friends = try await engine.decide(kind: DecisionKind.color.rawValue, about: authorID, value: colour.map(String.init))
                            zone = friends
                            pins = Self.pins(friends)
                            let name = view.name(of: authorID)
                            let said = colour.map { "\(name) is \(PlayerColors.palette[$0].name) on all your devices." }
                            state.notice = said ?? "\(name)'s colour is dealt again."
                        } catch {
                            state.notice = error.description
                        }
                    case let .nextPuzzle(id):
                        do {
                            var request = CreateGameRequest(bundled: id)
                            request.with = session.gameID
                            let gameID = try await engine.createGame(request)
                            let title = (try? engine.store.game(gameID)?.title) ?? id
                            return .next(gameID: gameID, opening: "You started \(title) with everyone from \(view.title).")
                        } catch {
                            state.notice = error.description
                        }
                    case let .nextPuzzleFile(typed):
                        // A file of the player's own, read here first so a bad one is named
                        // before anything is sent (as `crossmate new FILE` does).
                        let path = (typed as NSString).expandingTildeInPath
                        do {
                            var request = try PuzzleInput.upload(path, shown: typed).request
                            request.with = session.gameID
                            let gameID = try await engine.createGame(request)
                            let title = (try? engine.store.game(gameID)?.title) ?? typed
                            return .next(gameID: gameID, opening: "You started \(title) with everyone from \(view.title).")
                        } catch {
                            state.notice = "No next puzzle: \(error)"
                        }
                    case let .say(text):
                        do {
                            try await engine.send(message: text, in: session.gameID)
                        } catch {
                            state.notice = error.description
                            state.chat = text  // nothing typed is lost: it is back on the line
                        }
                    case let .perform(command):
                        state.caught = []  // the catch-up has been seen once the player acts
                        do {
                            try await engine.perform(command, in: session.gameID)
                            // A check says what it found.
                            if case let .check(scope) = command {
                                state.notice = PlayState.checkSummary(scope, view: try await session.view()) + "."
                            }
                        } catch {
                            state.notice = error.description
                        }
                    }
                }
                view = try await session.view()
                if state.cursor.position != lastCursor.position || state.cursor.direction != lastCursor.direction {
                    lastCursor = state.cursor
                    await session.moveCursor(to: state.cursor.position, direction: state.cursor.direction)
                }
            case .terminal(.resize), .terminal(.redraw):
                terminal.write("\u{1B}[2J")
            case .terminal(.tick):
                elapsed = await engine.solvingSeconds(session.gameID)
                let now = Self.now()
                if attention.tick(now: now) == .away {
                    // Out of sight past the grace: out of the game until the focus comes back.
                    await engine.viewing(session.gameID, false)
                    presence.tell(.leave)
                    state.notice = "Away: the others no longer see you here, and the bell calls you back."
                } else if !attention.isAway, now - leased >= Self.leaseRenewalMillis {
                    presence.tell(.renew)
                    leased = now
                }
            case let .engine(event):
                switch event {
                case let .status(new): status = new
                case let .becameReadOnly(_, reason): state.notice = "Read-only: \(reason)"
                case let .moveRefused(_, seq, reason): state.notice = "The server refused move \(seq): \(reason)"
                case let .nudged(nudge):
                    state.notice = "\(nudge.fromName) nudged you" + (nudge.message.isEmpty ? "" : ": \(nudge.message)")
                    ring(.nudge, from: nudge.fromAuthor)
                case let .gridChanged(gameID, squares) where gameID == session.gameID:
                    if let other = squares.first(where: { $0.authorID != view.me }) { ring(.moves, from: other.authorID) }
                case .completed:
                    elapsed = await engine.solvingSeconds(session.gameID)
                case .accountChanged:
                    if let fresh = try? await engine.friends() {
                        zone = fresh
                        pins = Self.pins(fresh)
                    }
                    settings = await Self.accountSettings(engine)
                    state.options = settings.options
                    callBack = CallBack.Settings(settings)
                case let .nextGame(next) where next.fromGameID == session.gameID:
                    return .next(gameID: next.gameID, opening: "\(next.byName) started \(next.title) with you: here it is.")
                case let .chatChanged(gameID) where gameID == session.gameID:
                    let before = Set(chat.map(\.message.key))
                    chat = await engine.conversation(session.gameID)
                    // Messages from others are unread until the chat is opened (while a
                    // message is being written, they are read as they come).
                    let news = chat.filter { !before.contains($0.message.key) && $0.message.authorID != view.me }
                    if state.chat == nil { state.chatUnread += news.count }
                    if let first = news.first { ring(.chat, from: first.message.authorID) }
                default: break
                }
                let flagsBefore = view.flags
                view = try await session.view()
                if let news = PlayState.flagNews(before: flagsBefore, now: view.flags, view: view) { state.notice = news }
                if case .cursorsChanged = event { state.follow(view) }
                if view.completion != nil { summary = try await session.summary() }
            }
            draw()
        }
        return .quit
    }

    /// A cursor as this device keeps it ("row,col,across"), and back: nil unless it stands on a
    /// letter square of `puzzle`.
    static func saved(_ cursor: SolvingKeys.Cursor) -> String {
        "\(cursor.position.row),\(cursor.position.col),\(cursor.direction.rawValue)"
    }

    static func cursor(_ saved: String, in puzzle: Puzzle) -> SolvingKeys.Cursor? {
        let parts = saved.split(separator: ",")
        guard parts.count == 3, let row = Int(parts[0]), let col = Int(parts[1]), let direction = Direction(rawValue: String(parts[2])) else {
            return nil
        }
        let position = GridPosition(row: row, col: col)
        guard puzzle.contains(position), puzzle.cell(at: position).isLetter else { return nil }
        return SolvingKeys.Cursor(position: position, direction: direction)
    }

    /// The account's settings (the defaults, when the server cannot be asked).
    static func accountSettings(_ engine: SyncEngine) async -> SolverSettings {
        (try? await engine.settings()).map { SolverSettings(stored: $0.settings) } ?? SolverSettings()
    }

    /// The account's colour pins: friend → palette index (`PlayerColors.pins`).
    static func pins(_ zone: FriendsResponse?) -> [String: Int] {
        PlayerColors.pins((zone?.decisions ?? []).lazy.map { (kind: $0.kind, key: $0.key, value: $0.value) })
    }

    enum Input: Sendable {
        case terminal(TerminalInput)
        case engine(EngineEvent)
        /// The server's answer to this device coming back to a game (`PresenceLane`).
        case cameBack(gameID: String, PresenceResponse?)
    }

    /// This device's presence in the game while it plays, told to the server in order and off
    /// the loop: a slow or unreachable server never holds a key, and no renewal lands after the
    /// device has left (the caller's last word waits for `finish`).
    struct PresenceLane: Sendable {
        enum Note: Sendable { case renew, leave, back }

        private let notes: AsyncStream<Note>.Continuation
        private let teller: Task<Void, Never>

        init(engine: SyncEngine, gameID: String, merge: Merge) {
            let (stream, notes) = AsyncStream.makeStream(of: Note.self, bufferingPolicy: .unbounded)
            self.notes = notes
            teller = Task {
                for await note in stream {
                    let answer = await engine.presence(gameID, entering: note != .leave)
                    if note == .back { await merge.send(.cameBack(gameID: gameID, answer)) }
                }
            }
        }

        func tell(_ note: Note) { notes.yield(note) }

        /// Waits until all that was told has reached the server (or failed to).
        func finish() async {
            notes.finish()
            await teller.value
        }
    }

    actor Merge {
        nonisolated let stream: AsyncStream<Input>
        private let continuation: AsyncStream<Input>.Continuation

        init() { (stream, continuation) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .unbounded) }

        func send(_ input: Input) { continuation.yield(input) }
    }
}
