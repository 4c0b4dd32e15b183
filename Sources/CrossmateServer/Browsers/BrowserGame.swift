import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation

/// One browser device's replica of one game, hosted by the server (`BrowserHost`). Its concerns
/// are kept apart: the replica and the zone it has read (here), the commands it answered
/// (`CommandLedger`), its social view (`BrowserConversation`), who is in the game
/// (`BrowserRoster`), its presence (`BrowserGame+Presence`), and the commands it performs
/// (`BrowserGame+Commands`).
actor BrowserGame {
    nonisolated let gameID: String
    let device: StoredDevice
    let puzzle: Puzzle
    /// When the game was created: no move is stamped before it.
    let createdAt: Int64
    var replica: GameReplica
    /// The zone sequence read through (moves relayed before their commit included).
    var sequence: Int64
    /// The zone sequence known to be committed: what this device has shown is stored only
    /// through here (a relayed move may yet be lost to a crash).
    var committed: Int64
    /// Changes handed over by relays and pokes that came while the replica was catching up,
    /// and the relayed moves as the relay decoded them, by zone sequence.
    private var handed: [InlineChanges] = []
    private var relayed: [Int64: Move] = [:]
    var moves: [Move]
    /// `moves` as the finish and the solving clock read them (`Tally`, kept as moves arrive, not
    /// rebuilt per answer).
    private var tally: Tally
    /// Each move's zone sequence, beside `moves`.
    private var moveSequences: [Int64]
    /// Every player's pauses (the solving clock stops a player's share at one), and their
    /// keys (this device's own are added when made, and not again when read back).
    var pauses: [SolvingTime.Stamp]
    var pauseKeys: Set<String>
    var ledger: CommandLedger
    var social: BrowserConversation
    var roster: BrowserRoster
    /// This device's presence in the game (a lease while a browser views it, and what it has
    /// been shown), when it was last stored (server time), and the pass that stores what it
    /// has shown since.
    var presence: DevicePresence
    var presenceStoredAt: Int64?
    var presenceFlush: Task<Void, Never>?
    /// Its page has been hidden past the grace (`goAway`): no lease, nothing shown.
    var away = false
    private var refreshing = false
    private var refreshAgain = false
    /// Whether this device's Seal (all its moves are stored) has been written since completion.
    private var sealed = false
    /// Commands and catch-ups take turns: each awaits the store, and the actor would otherwise
    /// let one start while another is half done.
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func exclusively<T>(_ body: () async throws -> T) async rethrows -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }

    private init(
        gameID: String, device: StoredDevice, puzzle: Puzzle, createdAt: Int64, replica: GameReplica, read: GameProjection.Activity,
        players: [StoredParticipant]
    ) {
        self.gameID = gameID
        self.device = device
        self.puzzle = puzzle
        self.createdAt = createdAt
        self.replica = replica
        ledger = CommandLedger(batches: replica.journal.map(\.batchID))
        sequence = read.through
        committed = read.through
        moves = read.moves.map(\.move)
        tally = Tally(read.moves.map(\.move))
        moveSequences = read.moves.map(\.sequence)
        pauses = read.pauses.map(\.stamp)
        pauseKeys = Set(read.pauses.map(\.key))
        social = BrowserConversation(messages: read.messages, reactions: read.reactions, flags: read.flags)
        roster = BrowserRoster(players: players, authors: Set(read.moves.map(\.move.authorID)), local: device.authorID)
        presence = DevicePresence(gameID: gameID, deviceID: device.deviceID, authorID: device.authorID)
    }

    static func load(_ gameID: String, device: StoredDevice, services: BrowserServices) async throws -> BrowserGame {
        let (stored, _) = try await services.store.access(gameID, for: device, write: false)
        try await services.store.markBrowser(deviceID: device.deviceID)
        let projection = try await services.directory.projection(for: stored)
        let read = try await GameProjection.sequencedActivity(store: services.store, gameID: gameID, after: 0)
        var replica = GameReplica(
            puzzle: projection.puzzle, gameID: gameID, replicaID: device.deviceID, authorID: device.authorID, moves: read.moves.map(\.move))
        if let completion = await projection.completion { replica.adopt(completion, finalGrid: await projection.replica.grid) }
        let players = try await services.store.participants(gameID: gameID)
        return BrowserGame(
            gameID: gameID, device: device, puzzle: projection.puzzle, createdAt: stored.createdAt, replica: replica, read: read,
            players: players)
    }

    /// Reads this account's zone again: its blocks, pins and preferred colour.
    private func readAccountZone(services: BrowserServices) async throws {
        let decisions = try await services.store.decisions(of: device.authorID)
        roster.pins = AccountDecisions.pins(decisions)
        social.blocked = AccountDecisions.blocked(decisions)
        roster.preferred = try await services.store.preferredColor(of: device.authorID)
    }

    var readOnly: Bool { roster.readOnly }

    /// The shared clock (`SolvingTime`) and the finish (`Scoreboard`), with moves just made that
    /// are not yet in `moves`.
    private func summary(now: Int64, adding made: [Move]) -> (timer: TimerView, finish: FinishSummary?) {
        var tally = tally
        tally.add(made)
        let measured = SolvingTime.measure(moves: tally.stamps, pauses: pauses, end: replica.completion?.at.wallMillis, now: now)
        let timer = TimerView(seconds: measured.seconds, countsFor: measured.countsFor)
        return (timer, replica.completion.map { FinishSummary($0, finalGrid: replica.grid, tally: tally, seconds: measured.seconds) })
    }

    /// The game as it now is, with `squares` to draw (`made`: moves just made, not yet read back
    /// into `moves`): what every message that redraws the game carries.
    func state(squares: [SquareView], made: [Move] = [], now: Int64) -> GameStateView {
        let summary = summary(now: now, adding: made)
        return GameStateView(
            gameID: gameID, squares: squares, completion: replica.completion.map(CompletionRecord.init), scoreboard: summary.finish?.scores,
            finish: summary.finish?.finish, headline: summary.finish?.headline, canUndo: replica.canUndo && !readOnly,
            canRedo: replica.canRedo && !readOnly, timer: summary.timer,
            messages: social.takeNews(), reactions: social.takeReactionNews(), flags: social.takeFlagNews(puzzle: puzzle, grid: replica.grid))
    }

    /// The whole game as it now is, for a browser opening it.
    /// The game as a page opens it, handed to `deliver` before anything else may change the
    /// replica: an update folded after it reaches the page after it, never before (a page that
    /// took an update and then an older `opened` would show the older grid until the next change).
    /// `others`: the device's other pages with the game open, told what the catch-up changed.
    func open(services: BrowserServices, others: Set<Int> = [], deliver: (GameOpened) throws -> Void) async throws {
        try await exclusively { () async throws -> Void in
            away = false  // a page opening the game is in front
            let before = shown
            tell(others, squares: try await catchUp(services: services), since: before, services: services)
            // A finished game's device seals before the page has it, so a replay it asks for
            // next waits for nobody (not for this device's own refresh to come round).
            await sealIfComplete(services: services)
            roster.here = services.hub.devicesViewing(gameID)
            try await readAccountZone(services: services)
            // Entering: a lease, and this device has now shown everything through `sequence`.
            // The account's horizon before this is where the catch-up starts; storing the new
            // read-through moves it on, so a sibling device entering next has nothing to show.
            let now = services.now()
            let baseline = try await enter(now: now, services: services)
            let (messages, reactions) = social.opening()
            var opened = GameOpened(
                self.state(squares: SquareView.all(replica.grid, of: puzzle), now: now), layout: PuzzleLayout(puzzle), players: roster.views,
                me: device.authorID, deviceID: device.deviceID, readOnly: readOnly)
            opened.messages = messages
            opened.reactions = reactions
            opened.quickReactions = Chat.quickReactions
            let viewing = Set(roster.here.keys)
            opened.cursors = try await services.store.cursors(gameID: gameID).compactMap { stored in
                guard stored.deviceID != device.deviceID, viewing.contains(stored.authorID) else { return nil }
                return PeerCursorView(deviceID: stored.deviceID, authorID: stored.authorID, cursor: stored.cursor)
            }
            let summary = CatchUp.since(
                baseline, moves: zip(moveSequences, moves).map { (sequence: $0.0, move: $0.1) }, messages: social.messageSequences,
                me: device.authorID, hiding: social.blocked)
            if baseline > 0, let sentence = summary.sentence(name: roster.name) {
                opened.catchUp = CatchUpView(squares: summary.squares.map { [$0.row, $0.col] }, sentence: sentence)
            }
            try deliver(opened)
        }
    }

    /// Reads the zone's changes after the last one read into the replica (this device's own
    /// moves too: they are already in its journal and change nothing); the squares that changed.
    /// Changes handed over with a poke that follow on from what the replica holds are folded as
    /// they are, without reading them back from the store.
    func catchUp(services: BrowserServices, handed: [InlineChanges] = []) async throws -> [SquareView] {
        let before = replica.grid
        let known = relayed
        defer { relayed = relayed.filter { $0.key > sequence } }
        // Changes relayed before their commit come again in the poke after it: nothing to read.
        if !handed.isEmpty, handed.allSatisfy({ ($0.changes.last?.sequence ?? .max) <= sequence }) { return [] }
        let read: GameProjection.Activity
        if let run = InlineChanges.run(handed, after: sequence), let folded = try Self.activity(run, after: sequence, gameID: gameID, known: known) {
            read = folded
        } else {
            read = try await GameProjection.sequencedActivity(store: services.store, gameID: gameID, after: sequence)
            committed = max(committed, read.through)
        }
        let fresh = read.moves
        let through = read.through
        guard through > sequence else { return [] }
        // Every record takes the next zone sequence, so fewer moves, pauses and messages than
        // sequences read means a participant (or seal) record came: only then is the roster
        // read again.
        let rosterMayHaveChanged =
            through - sequence > Int64(fresh.count + read.pauses.count + read.messages.count + read.reactions.count + read.flags.count)
        for pause in read.pauses where pauseKeys.insert(pause.key).inserted { pauses.append(pause.stamp) }
        social.hear(read.messages)
        social.hear(read.reactions)
        social.keep(read.flags)
        sequence = through
        replica.receive(fresh.map(\.move))
        for (_, move) in fresh where move.replicaID == device.deviceID { ledger.performed(move.batchID) }
        moves += fresh.map(\.move)
        roster.authors.formUnion(fresh.map(\.move.authorID))
        tally.add(fresh.map(\.move))
        moveSequences += fresh.map(\.sequence)
        if rosterMayHaveChanged { roster.players = try await services.store.participants(gameID: gameID) }
        if let projection = services.directory.cached(gameID), let completion = await projection.completion, replica.completion != completion {
            replica.adopt(completion, finalGrid: await projection.replica.grid)
        }
        return SquareView.changed(from: before, to: replica.grid, of: puzzle)
    }

    /// A poke's changes as the players' activity, when they follow on from `sequence` and are
    /// only that (anything else, or a gap, is read from the store instead).
    static func activity(
        _ inline: InlineChanges?, after sequence: Int64, gameID: String, known: [Int64: Move] = [:]
    ) throws -> GameProjection.Activity? {
        guard let inline, inline.after == sequence, !inline.changes.isEmpty, inline.changes.allSatisfy({ GameProjection.Activity.holds($0.kind) })
        else { return nil }
        return try GameProjection.activity(in: inline.changes, gameID: gameID, known: known)
    }

    /// Catches up after a poke (folding the changes it hands over, when it does) and sends the
    /// viewers what changed. Pokes that arrive meanwhile fold into one more pass.
    func refresh(
        host: BrowserHost, viewers: Set<Int>, inline: InlineChanges? = nil, decoded: [Int64: Move] = [:], committed poked: Int64? = nil
    ) async {
        let services = host.services
        if let poked { committed = max(committed, poked) }
        if let inline { handed.append(inline) }
        relayed.merge(decoded) { $1 }
        if refreshing {
            refreshAgain = true
            return
        }
        refreshing = true
        defer { refreshing = false }
        repeat {
            refreshAgain = false
            let caughtUp = await exclusively { () -> Bool in
                let before = shown
                do {
                    let taken = handed
                    handed = []
                    let squares = try await catchUp(services: services, handed: taken)
                    if roster.hasLeft {
                        // Left from another device (on any instance): the pages showing it hear
                        // nothing more of the game, chat written after the leave included.
                        host.evict(self, viewers: viewers, reason: "You left this game.")
                        return false
                    }
                    roster.here = services.hub.devicesViewing(gameID)
                    await sealIfComplete(services: services)
                    // The viewers see the change first; then what this device has shown moves
                    // on (and a viewed game keeps its lease), which no screen waits for.
                    tell(viewers, squares: squares, since: before, services: services)
                    try await showed(through: min(sequence, committed), services: services)
                    return true
                } catch {
                    services.logger.error("a browser's replica could not catch up", metadata: ["game": "\(gameID)", "error": "\(error)"])
                    return false
                }
            }
            guard caughtUp else { return }
        } while refreshAgain
    }

    /// The zone is committed through `poked`. When the replica holds it already (relayed before
    /// the commit, or its own moves, which it made), it only marks it committed and stores what
    /// this device has shown; else it catches up (`refresh`).
    func committed(through poked: Int64, inline: InlineChanges?, host: BrowserHost, viewers: Set<Int>) async {
        let services = host.services
        let held = await exclusively { () -> Bool in
            guard sequence >= poked else { return false }
            committed = max(committed, poked)
            do { try await showed(through: min(sequence, committed), services: services) } catch {
                services.logger.error("a browser's presence could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
            }
            return true
        }
        if !held { await refresh(host: host, viewers: viewers, inline: inline, committed: poked) }
    }

    /// This device's own moves, `made` (already in its journal), were stored through `through`,
    /// committed: when nothing else came between them and what the replica has read, it has read
    /// through them now, without reading them back (else its next catch-up reads them). Whether
    /// it has.
    func stored(_ made: [Move], through: Int64) -> Bool {
        guard through == sequence + Int64(made.count) else { return false }
        moves += made
        roster.authors.insert(device.authorID)
        tally.add(made)
        moveSequences += (sequence + 1...through).map { $0 }
        sequence = through
        committed = max(committed, through)
        return true
    }

    /// What a page shows of the game beside its squares, as a catch-up may change it.
    struct Shown: Equatable {
        var readOnly: Bool
        var completion: Completion?
        var players: [PlayerView]
        var pauses: Int
        var flags: [String: ClueFlag]
    }

    var shown: Shown {
        Shown(readOnly: readOnly, completion: replica.completion, players: roster.views, pauses: pauses.count, flags: social.flags)
    }

    /// Tells `viewers` what a catch-up changed (`squares`, and the game as it now is) when it
    /// changed anything they are shown since `before`. Every catch-up of a viewed replica tells
    /// its viewers so, whatever it was for: the pass that folds it in moves `sequence` on, and no
    /// later pass finds those changes again to show them.
    func tell(_ viewers: Set<Int>, squares: [SquareView], since before: Shown, services: BrowserServices) {
        guard !viewers.isEmpty, !squares.isEmpty || social.hasNews || shown != before else { return }
        let update = ServerSocketMessage.update(update(squares: squares, now: services.now()))
        for viewer in viewers { services.hub.tell(.socket(viewer), update) }
    }

    /// The game as it now is, with the squares that changed.
    private func update(squares: [SquareView], now: Int64) -> GameUpdate {
        GameUpdate(state(squares: squares, now: now), players: roster.views, readOnly: readOnly)
    }

    /// The account's pins or preferred colour changed: read them again, and redraw the roster
    /// if its colours moved. (Only then: a poke does not read the account zone.)
    func accountZoneChanged(services: BrowserServices, viewers: Set<Int>) async {
        let changed = await exclusively { () -> GameUpdate? in
            let before = roster.views
            do { try await readAccountZone(services: services) } catch {
                services.logger.error("a browser's colours could not be read", metadata: ["game": "\(gameID)", "error": "\(error)"])
                return nil
            }
            return roster.views == before ? nil : update(squares: [], now: services.now())
        }
        guard let changed else { return }
        for viewer in viewers { services.hub.tell(.socket(viewer), .update(changed)) }
    }

    /// Once the game is complete, every move this device made is stored (the server made and
    /// stored them itself), so it seals at once: the replay waits for no browser.
    func sealIfComplete(services: BrowserServices) async {
        guard replica.completion != nil, !sealed, !readOnly else { return }
        let seal = Seal(gameID: gameID, replicaID: device.deviceID, lastSeq: replica.journal.count)
        do {
            try await services.writes.put(.seal(seal), in: gameID)
            sealed = true
        } catch {
            services.logger.error("a browser's seal could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
        }
    }

    /// The page from step `from` of the finished game's replay, once every device that wrote
    /// has sealed. A ready replay is assembled once per game (`ReplayCache`), and an account
    /// assembles one history at a time (`HistoryGate`).
    func replay(from: Int, host: BrowserHost) async throws -> ReplayView {
        let services = host.services
        return try await exclusively { () async throws -> ReplayView in
            let before = shown
            tell(host.viewers(of: self), squares: try await catchUp(services: services), since: before, services: services)
            guard replica.completion != nil else {
                return ReplayView(gameID: gameID, ready: false, waitingFor: 0, steps: [], times: [])
            }
            let removed = Set(roster.players.filter(\.revoked).map(\.authorID))
            let key = ReplayCache.Key(moves: moves.count, removed: removed)
            if let kept = services.history.replays.replay(gameID, key: key) { return kept.page(from: from) }
            let assembled = try await services.history.gate.run(for: device.authorID) { () async throws -> ReplayView in
                let seals = try await services.store.seals(gameID: gameID)
                services.metrics.replaysAssembled.increment()
                return ReplayView(
                    gameID: gameID, width: puzzle.width, height: puzzle.height,
                    availability: ReplayAssembler.assemble(
                        width: puzzle.width, height: puzzle.height, moves: moves, seals: seals, removed: removed))
            }
            guard let assembled else { throw HistoryGate.busy }
            services.history.replays.keep(assembled, for: gameID, key: key)
            return assembled.page(from: from)
        }
    }
}
