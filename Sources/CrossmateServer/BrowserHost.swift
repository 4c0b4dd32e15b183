import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import ServiceLifecycle
import Synchronization

/// Browsers' replicas, hosted by the server. A browser is a device like any other, but it holds
/// no rules: its replica (journal, clock, undo stacks) lives here, rebuilt from the zone's stored
/// moves when a browser opens a game, so any instance can host it. Commands run through the
/// mutator and the moves go through the same ingest as every device's push; other devices'
/// changes reach the replica after each poke and go to the browser as changed squares.
final class BrowserHost: Sendable {
    private struct Hosted {
        var game: BrowserGame
        var viewers: Set<Int>
        /// When the last viewer left (nil while someone views it).
        var idleSince: Int64?
    }

    /// By game, then by device: a poke finds its game's replicas without looking at the rest.
    private let hosted = Mutex([String: [String: Hosted]]())

    /// The replica of `gameID` for `device`, shared by every socket of that device (two tabs of
    /// one browser are one device), loaded on first use.
    func open(_ gameID: String, device: StoredDevice, connection: Int, state: ServerState) async throws -> BrowserGame {
        let deviceID = device.deviceID
        if let game = hosted.withLock({ hosted -> BrowserGame? in
            hosted[gameID]?[deviceID]?.viewers.insert(connection)
            hosted[gameID]?[deviceID]?.idleSince = nil
            return hosted[gameID]?[deviceID]?.game
        }) {
            return game
        }
        let loaded = try await BrowserGame.load(gameID, device: device, state: state)
        return hosted.withLock { hosted in
            if hosted[gameID, default: [:]][deviceID] == nil { hosted[gameID, default: [:]][deviceID] = Hosted(game: loaded, viewers: []) }
            hosted[gameID]![deviceID]!.viewers.insert(connection)
            return hosted[gameID]![deviceID]!.game
        }
    }

    /// Drops `game`'s replica (its player left): each of `viewers` stops showing the game and
    /// is told why.
    func evict(_ game: BrowserGame, viewers: Set<Int>, reason: String, state: ServerState) {
        let gameID = game.gameID
        let deviceID = game.device.deviceID
        let all = hosted.withLock { hosted -> Set<Int> in
            guard let entry = hosted[gameID]?[deviceID], entry.game === game else { return [] }
            hosted[gameID]![deviceID] = nil
            if hosted[gameID]!.isEmpty { hosted[gameID] = nil }
            return entry.viewers
        }
        for viewer in all.union(viewers) {
            state.hub.openInBrowser(viewer, game: gameID, false)
            state.hub.unsubscribe(viewer, from: [gameID])
            state.hub.reply(viewer, .closed(gameID: gameID, reason: reason))
        }
    }

    func game(_ gameID: String, deviceID: String, connection: Int) -> BrowserGame? {
        hosted.withLock { hosted in
            guard let entry = hosted[gameID]?[deviceID], entry.viewers.contains(connection) else { return nil }
            return entry.game
        }
    }

    /// A socket stops viewing a game (or every game, when it closes). A replica nobody views is
    /// kept for `grace` milliseconds (a reconnecting browser resends what it has not heard
    /// answered), then dropped, to be rebuilt from the store on the next open.
    /// Returns the replicas nobody views any more (their devices have left the game).
    @discardableResult
    func close(connection: Int, gameID: String? = nil, now: Int64, grace: Int64) -> [BrowserGame] {
        hosted.withLock { hosted in
            var left: [BrowserGame] = []
            for game in gameID.map({ [$0] }) ?? Array(hosted.keys) {
                for (deviceID, entry) in hosted[game] ?? [:] where entry.viewers.contains(connection) {
                    hosted[game]![deviceID]!.viewers.remove(connection)
                    if hosted[game]![deviceID]!.viewers.isEmpty {
                        hosted[game]![deviceID]!.idleSince = now
                        left.append(entry.game)
                    }
                }
            }
            Self.dropIdle(&hosted, now: now, grace: grace)
            return left
        }
    }

    /// Drops the replicas nobody has viewed for `grace` milliseconds. Called on a timer, so an
    /// idle replica goes whether or not any other socket ever closes; the number dropped.
    @discardableResult
    func sweep(now: Int64, grace: Int64) -> Int {
        hosted.withLock { hosted in
            let before = hosted.values.reduce(0) { $0 + $1.count }
            Self.dropIdle(&hosted, now: now, grace: grace)
            return before - hosted.values.reduce(0) { $0 + $1.count }
        }
    }

    private static func dropIdle(_ hosted: inout [String: [String: Hosted]], now: Int64, grace: Int64) {
        for (game, devices) in hosted {
            for (deviceID, entry) in devices {
                if let idle = entry.idleSince, now - idle >= grace { hosted[game]![deviceID] = nil }
            }
            if hosted[game]?.isEmpty == true { hosted[game] = nil }
        }
    }

    /// Games one socket has open at once: a page shows one, a few tabs share a socket at most.
    static let maximumOpenPerConnection = 8

    /// How many games `connection` has open.
    func openCount(connection: Int) -> Int {
        hosted.withLock { hosted in hosted.values.reduce(0) { $0 + $1.values.count { $0.viewers.contains(connection) } } }
    }

    /// A game's zone changed (committed through `sequence`, when the poke says): every hosted
    /// replica of it catches up and tells its viewers.
    func changed(gameID: String, sequence: Int64? = nil, inline: InlineChanges? = nil, state: ServerState) {
        for (game, viewers) in viewed(gameID) {
            Task { await game.refresh(state: state, viewers: viewers, inline: inline, committed: sequence) }
        }
    }

    /// Moves checked and ordered, not yet committed (`Store.appendMoves`): the replicas fold them
    /// and their viewers see them now, a commit's fsync sooner. What this device has shown does
    /// not move on until the poke after the commit.
    func relay(gameID: String, _ saved: [SavedMove], state: ServerState) {
        let replicas = viewed(gameID)
        guard !replicas.isEmpty, let moves = InlineChanges(saved: saved) else { return }
        // Decoded once here for every replica (one that does not convert is decoded, and
        // reported, by the replica from its stored JSON).
        var decoded: [Int64: Move] = [:]
        for move in saved { decoded[move.sequence] = try? move.move.move() }
        for (game, viewers) in replicas {
            Task { [decoded] in await game.refresh(state: state, viewers: viewers, inline: moves, decoded: decoded, committed: nil) }
        }
    }

    /// Moves relayed to the game's replicas were not stored after all (their group commit
    /// failed): each replica is read again from the store and its viewers get the game whole.
    func reload(gameID: String, state: ServerState) async {
        for (stale, viewers) in viewed(gameID) {
            do {
                let fresh = try await BrowserGame.load(gameID, device: stale.device, state: state)
                let kept = hosted.withLock { hosted -> Bool in
                    guard hosted[gameID]?[stale.device.deviceID]?.game === stale else { return false }
                    hosted[gameID]![stale.device.deviceID]!.game = fresh
                    return true
                }
                guard kept else { continue }
                let opened = ServerSocketMessage.opened(try await fresh.open(state: state))
                for viewer in viewers { state.hub.reply(viewer, opened) }
            } catch {
                state.logger.error("a browser's replica could not be read again", metadata: ["game": "\(gameID)", "error": "\(error)"])
            }
        }
    }

    /// The game's replicas somebody views, with their viewers.
    private func viewed(_ gameID: String) -> [(BrowserGame, Set<Int>)] {
        hosted.withLock { $0[gameID]?.values.filter { !$0.viewers.isEmpty }.map { ($0.game, $0.viewers) } ?? [] }
    }

    /// An account's Decisions or Preferences changed: its devices' open games redraw (colours).
    func changed(authorID: String, state: ServerState) {
        let games = hosted.withLock { hosted in
            hosted.values.flatMap { $0.values.filter { $0.game.device.authorID == authorID && !$0.viewers.isEmpty }.map { ($0.game, $0.viewers) } }
        }
        for (game, viewers) in games {
            Task { await game.accountZoneChanged(state: state, viewers: viewers) }
        }
    }

    var count: Int { hosted.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}

/// Hands every poke the hub sends to the hosted browser replicas of its game (they fold the
/// changes it carries, or catch up from the store). The hub publishes pokes without knowing
/// who folds them; this service, which holds the state the replicas catch up from, connects the
/// two (the hub held a callback into the state before, and the state held the hub).
struct BrowserPokes: Service {
    let state: ServerState

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await poke in state.hub.pokes {
                state.browsers.changed(gameID: poke.game, sequence: poke.sequence, inline: poke.inline, state: state)
            }
        }
    }
}

/// One browser device's replica of one game.
actor BrowserGame {
    nonisolated let gameID: String
    let device: StoredDevice
    let puzzle: Puzzle
    /// When the game was created: no move is stamped before it.
    let createdAt: Int64
    /// The batches of this device's journal: a command's moves are one batch named after the
    /// command (`batchID(for:)`), so a command sent again after a restart, on any instance, is
    /// found here and answered rather than performed twice.
    private var performedBatches: Set<String>
    private var replica: GameReplica
    /// The zone sequence read through (moves relayed before their commit included).
    private var sequence: Int64
    /// The zone sequence known to be committed: what this device has shown is stored only
    /// through here (a relayed move may yet be lost to a crash).
    private var committed: Int64
    /// Changes handed over by relays and pokes that came while the replica was catching up,
    /// and the relayed moves as the relay decoded them, by zone sequence.
    private var handed: [InlineChanges] = []
    private var relayed: [Int64: Move] = [:]
    private var moves: [Move]
    /// `moves` as the solving clock reads them (kept as moves arrive, not rebuilt per answer).
    private var moveStamps: [SolvingTime.Stamp]
    /// Every player's pauses (the solving clock stops a player's share at one), and their
    /// keys (this device's own are added when made, and not again when read back).
    private var pauses: [SolvingTime.Stamp]
    private var pauseKeys: Set<String>
    /// Each move's zone sequence, beside `moves`.
    private var moveSequences: [Int64]
    /// The conversation this browser holds, in `Chat.ordered` order, without the messages of
    /// accounts this one blocked (as of opening); the keys of every message read; and the
    /// messages the browser has not been sent yet.
    private var conversation: [ChatMessage] = []
    private var messageKeys: Set<String> = []
    /// Each message's zone sequence (the catch-up counts those after the account's horizon).
    private var messageSequences: [(sequence: Int64, message: ChatMessage)] = []
    private var news: [MessageView] = []
    /// The deciding reaction of each author, message and emoji (`Chat.tallies` says which
    /// stand), and the messages whose reactions the browser has not been sent yet.
    private var reactions: [String: Reaction] = [:]
    private var reactionNews: Set<String> = []
    /// The deciding flag of each author and clue, and the flags that show as the browser was
    /// last sent them.
    private var flags: [String: ClueFlag] = [:]
    private var flagsSent: [FlagView]?
    /// This device's presence in the game (a lease while a browser views it, and what it has
    /// been shown).
    private var presence: DevicePresence
    /// Devices viewing the game now, by account (sockets on this instance).
    private var here: [String: Int] = [:]
    /// This account's colour pins and preferred colour (its account zone).
    private var pins: [String: Int] = [:]
    private var preferred: Int?

    /// Accounts this one blocked: their messages are not shown.
    private var blocked: Set<String> = []

    private func readAccountZone(state: ServerState) async throws {
        let decisions = try await state.store.decisions(of: device.authorID)
        pins = SocialController.pins(decisions)
        blocked = SocialController.blocked(decisions)
        preferred = try await state.store.preferredColor(of: device.authorID)
    }
    private var players: [StoredParticipant]
    private var refreshing = false
    /// Whether this device's Seal (all its moves are stored) has been written since completion.
    private var sealed = false
    private var refreshAgain = false
    /// Commands and catch-ups take turns: each awaits the store, and the actor would otherwise
    /// let one start while another is half done.
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// A command as the browser names it: its id, and when it was typed (ids start again in a
    /// browser whose queue was wiped; times do not).
    private struct CommandKey: Hashable {
        var id: Int
        var typedAt: Int64?
    }

    /// The latest commands answered (nil: applied), so a command sent again after a lost answer
    /// is not performed twice. Bounded in bytes: at most `answersKept` entries, each reason at
    /// most `ErrorBody.maximumMessageBytes`, its game id at most
    /// `ProtocolLimits.maximumIdentifierBytes`. Commands that made moves are also found in the
    /// journal, which outlives this memory (`performedBatches`).
    private var answered: [CommandKey: CommandRefusal?] = [:]
    private var answeredOrder: [CommandKey] = []
    static let answersKept = 256

    private func exclusively<T>(_ body: () async throws -> T) async rethrows -> T {
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
        gameID: String, device: StoredDevice, puzzle: Puzzle, createdAt: Int64, replica: GameReplica, sequence: Int64,
        moves: [(sequence: Int64, move: Move)], pauses: [Pause], messages: [(sequence: Int64, message: ChatMessage)], reactions: [Reaction],
        flags: [ClueFlag], players: [StoredParticipant]
    ) {
        self.flags = [String: ClueFlag](deciding: flags)
        self.reactions = [String: Reaction](deciding: reactions)
        self.gameID = gameID
        self.device = device
        self.puzzle = puzzle
        self.createdAt = createdAt
        self.replica = replica
        performedBatches = Set(replica.journal.map(\.batchID))
        self.sequence = sequence
        committed = sequence
        self.moves = moves.map(\.move)
        authors = Set(moves.map(\.move.authorID))
        moveStamps = moves.map(\.move.stamp)
        moveSequences = moves.map(\.sequence)
        self.pauses = pauses.map(\.stamp)
        pauseKeys = Set(pauses.map(\.key))
        messageKeys = Set(messages.map(\.message.key))
        messageSequences = messages
        conversation = Chat.ordered(messages.map(\.message))
        self.players = players
        presence = DevicePresence(gameID: gameID, deviceID: device.deviceID, authorID: device.authorID)
    }

    static func load(_ gameID: String, device: StoredDevice, state: ServerState) async throws -> BrowserGame {
        let (stored, _) = try await state.access(gameID, for: device, write: false)
        try await state.store.markBrowser(deviceID: device.deviceID)
        let projection = try await state.directory.projection(for: stored)
        let read = try await GameProjection.sequencedActivity(store: state.store, gameID: gameID, after: 0)
        var replica = GameReplica(
            puzzle: projection.puzzle, gameID: gameID, replicaID: device.deviceID, authorID: device.authorID, moves: read.moves.map(\.move))
        if let completion = await projection.completion { replica.adopt(completion, finalGrid: await projection.replica.grid) }
        let players = try await state.store.participants(gameID: gameID)
        return BrowserGame(
            gameID: gameID, device: device, puzzle: projection.puzzle, createdAt: stored.createdAt, replica: replica, sequence: read.through,
            moves: read.moves, pauses: read.pauses, messages: read.messages, reactions: read.reactions, flags: read.flags, players: players)
    }

    private var me: StoredParticipant? { players.first { $0.authorID == device.authorID } }
    private var readOnly: Bool { me?.revoked ?? true }

    /// The shared clock (`SolvingTime`), with moves just made that are not yet in `moves`.
    private func timer(now: Int64, adding made: [Move] = []) -> TimerView {
        let measured = SolvingTime.measure(
            moves: moveStamps + made.map(\.stamp), pauses: pauses, end: replica.completion?.at.wallMillis, now: now)
        return TimerView(seconds: measured.seconds, countsFor: measured.countsFor)
    }

    /// Every move's author (kept as moves arrive: a roster reading all the moves per keystroke
    /// was the largest cost of a browser's keystroke on the server).
    private var authors: Set<String> = []

    /// What the roster is made from, and the roster last made from it.
    private struct RosterInputs: Equatable {
        var players: [StoredParticipant]
        var authors: Set<String>
        var here: [String: Int]
        var pins: [String: Int]
        var preferred: Int?
    }
    private var roster: (inputs: RosterInputs, views: [PlayerView])?

    /// The roster with colours as this account sees them; authors of letters who have left
    /// the game keep a colour too (listed as removed players). Made again only when what it is
    /// made from changed.
    private var playerViews: [PlayerView] {
        let inputs = RosterInputs(players: players, authors: authors, here: here, pins: pins, preferred: preferred)
        if let roster, roster.inputs == inputs { return roster.views }
        let views = Self.roster(inputs, local: device.authorID)
        roster = (inputs, views)
        return views
    }

    private static func roster(_ inputs: RosterInputs, local: String) -> [PlayerView] {
        let (players, here, pins, preferred) = (inputs.players, inputs.here, inputs.pins, inputs.preferred)
        let present = players.filter { !$0.hasLeft }
        let authors = inputs.authors.subtracting(present.map(\.authorID))
        let colors = PlayerColors.assign(players: present.map(\.authorID) + authors, local: local, preferred: preferred, pinned: pins)
        func color(_ authorID: String) -> String { PlayerColors.palette[colors[authorID] ?? 0].hex }
        let names = PlayerNames.shown(present.map { ($0.authorID, $0.displayName) })
        return present.map {
            PlayerView(
                authorID: $0.authorID, displayName: names[$0.authorID] ?? $0.displayName, role: $0.role, removed: $0.revoked,
                color: color($0.authorID),
                symbol: PlayerColors.avatarSymbol($0.authorID), here: here[$0.authorID] ?? 0)
        }
            + authors.sorted().map {
                PlayerView(
                    authorID: $0, displayName: PlayerColors.placeholderName($0), role: .player, removed: true, color: color($0),
                    symbol: PlayerColors.avatarSymbol($0))
            }
    }

    private var scoreboard: [PlayerScore]? { scoreboard(adding: []) }

    /// The scoreboard once the game is over, with moves just made that are not yet in `moves`.
    private func scoreboard(adding made: [Move]) -> [PlayerScore]? {
        replica.completion == nil ? nil : Scoreboard.scores(finalGrid: replica.grid, moves: moves + made)
    }

    /// A command's answer: the squares it changed and the game as it now is (`made`: the
    /// command's moves, not yet read back into `moves`). Every applied command answers so.
    private func applied(_ request: CommandRequest, squares: [SquareView] = [], made: [Move] = [], now: Int64) -> ServerSocketMessage {
        .applied(CommandApplied(id: request.id, state(squares: squares, made: made, now: now)))
    }

    /// The game as it now is, with `squares` to draw (`made`: moves just made, not yet read back
    /// into `moves`): what every message that redraws the game carries.
    private func state(squares: [SquareView], made: [Move] = [], now: Int64) -> GameStateView {
        GameStateView(
            gameID: gameID, squares: squares, completion: replica.completion.map(CompletionRecord.init), scoreboard: scoreboard(adding: made),
            canUndo: replica.canUndo && !readOnly, canRedo: replica.canRedo && !readOnly, timer: timer(now: now, adding: made),
            messages: takeNews(), reactions: takeReactionNews(), flags: takeFlagNews())
    }

    /// Flags read from the zone or just raised: each key keeps its deciding one.
    private func keep(_ fresh: [ClueFlag]) {
        for flag in fresh { flags.keepDeciding(flag) }
    }

    /// The flags that show, when they differ from what the browser was last sent (a word just
    /// filled takes its flags down).
    private func takeFlagNews() -> [FlagView]? {
        let shown = Flags.shown(flags.values, puzzle: puzzle, grid: replica.grid, hiding: blocked).map { FlagView($0, puzzle: puzzle) }
        guard shown != flagsSent else { return nil }
        flagsSent = shown
        return shown
    }

    /// The standing reactions of messages whose reactions changed since the last message.
    private func takeReactionNews() -> [MessageReactions]? {
        guard !reactionNews.isEmpty else { return nil }
        defer { reactionNews = [] }
        let tallies = Chat.tallies(reactions.values, hiding: blocked)
        // Each message's share of the frame's budget for the conversation.
        let share = FrameBudget.conversationBytes / reactionNews.count
        return reactionNews.sorted().map { key in
            MessageReactions(key: key, tallies: FrameBudget.fitTallies(tallies[key] ?? [], key: key, bytes: share).tallies)
        }
    }

    /// Reactions read from the zone or just given: the messages they are on are sent again.
    private func hear(_ fresh: [Reaction]) {
        for reaction in fresh where reactions.keepDeciding(reaction) { reactionNews.insert(reaction.messageKey) }
    }

    /// The messages not yet sent to the browser (each sent once, with the next message).
    private func takeNews() -> [MessageView]? {
        defer { news = [] }
        return news.isEmpty ? nil : news
    }

    /// Messages read from the zone or just written: each new one takes its place in the
    /// conversation, and the browser is sent it with its index there.
    private func hear(_ messages: [ChatMessage]) {
        for message in Chat.ordered(messages) where messageKeys.insert(message.key).inserted && !blocked.contains(message.authorID) {
            let index = conversation.firstIndex { Chat.ordered([$0, message]).first == message } ?? conversation.count
            conversation.insert(message, at: index)
            news.append(MessageView(message, index: index))
        }
    }

    /// The whole game as it now is, for a browser opening it.
    func open(state: ServerState) async throws -> GameOpened {
        try await exclusively { () async throws -> GameOpened in
            _ = try await catchUp(state: state)
            here = state.hub.devicesViewing(gameID)
            try await readAccountZone(state: state)
            // Entering: a lease, and this device has now shown everything through `sequence`.
            // The account's horizon before this is where the catch-up starts; storing the new
            // read-through moves it on, so a sibling device entering next has nothing to show.
            let now = state.now()
            presence = Presence.showed(Presence.enter(presence, now: now), through: min(sequence, committed))
            let baseline = try await state.store.putPresence(presence)
            presenceStoredAt = now
            await announcePresence(state: state)
            news = []
            flagsSent = nil
            var opened = opened(now: now)
            // The newest messages that fit the frame's budget for them, with their reactions.
            let (shown, tallies) = FrameBudget.fitConversation(
                Array(Chat.shown(conversation, hiding: blocked).suffix(MessageView.maximumOpened)),
                tallies: Chat.tallies(reactions.values, hiding: blocked))
            conversation = shown
            opened.messages = conversation.enumerated().map { MessageView($0.element, index: $0.offset) }
            reactionNews = []
            opened.quickReactions = Chat.quickReactions
            opened.reactions = conversation.compactMap { message in tallies[message.key].map { MessageReactions(key: message.key, tallies: $0) } }
            let viewing = Set(here.keys)
            opened.cursors = try await state.store.cursors(gameID: gameID).compactMap { stored in
                guard stored.deviceID != device.deviceID, viewing.contains(stored.authorID) else { return nil }
                return PeerCursorView(deviceID: stored.deviceID, authorID: stored.authorID, cursor: stored.cursor)
            }
            let summary = CatchUp.since(
                baseline, moves: zip(moveSequences, moves).map { (sequence: $0.0, move: $0.1) }, messages: messageSequences, me: device.authorID,
                hiding: blocked)
            if baseline > 0, let sentence = summary.sentence(name: name) {
                opened.catchUp = CatchUpView(squares: summary.squares.map { [$0.row, $0.col] }, sentence: sentence)
            }
            return opened
        }
    }

    /// A read horizon is stored at most this often while the game is viewed (and when it is left).
    static let presenceStoreMillis: Int64 = 1_000
    /// When this device's presence was last stored (server time), and the pass that stores what
    /// it has shown since, once `presenceStoreMillis` is over.
    private var presenceStoredAt: Int64?
    private var presenceFlush: Task<Void, Never>?

    /// This device has shown the zone through `shown` (and a viewed game keeps its lease). Stored
    /// at once when the lease needs it or `presenceStoreMillis` has passed since the last store,
    /// else by one pass when it has: a store per letter per viewer was most of a browser game's
    /// writes to the database. Leaving stores it too; a crash loses at most that second of the
    /// horizon (the next catch-up then names a letter or two already seen).
    private func showed(through shown: Int64, state: ServerState) async throws {
        let now = state.now()
        let leaseDue = Presence.needsRefresh(presence, now: now)
        guard shown > presence.readThrough || leaseDue else { return }
        presence = Presence.showed(Presence.enter(presence, now: now), through: shown)
        if leaseDue || presenceStoredAt.map({ now - $0 >= Self.presenceStoreMillis }) ?? true {
            try await state.store.putPresence(presence)
            presenceStoredAt = now
        } else if presenceFlush == nil {
            presenceFlush = Task {
                try? await Task.sleep(for: .milliseconds(Self.presenceStoreMillis))
                guard !Task.isCancelled else { return }  // left meanwhile: leaving stored it
                await flushPresence(state: state)
            }
        }
    }

    /// Stores the horizon a deferred pass was left to store (in turn with commands and leaving).
    private func flushPresence(state: ServerState) async {
        await exclusively {
            presenceFlush = nil
            do {
                try await state.store.putPresence(presence)
                presenceStoredAt = state.now()
            } catch {
                state.logger.error("a browser's presence could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
            }
        }
    }

    /// The device has left the game: its lease ends now (what it was shown stays).
    func leave(state: ServerState) async {
        await exclusively {
            presence = Presence.leave(presence, now: state.now())
            presenceFlush?.cancel()
            presenceFlush = nil
            do { try await state.store.putPresence(presence) } catch {
                state.logger.error("a browser's presence could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
            }
            await announcePresence(state: state)
        }
    }

    /// The account's other devices redraw their game lists (the unread badge may change).
    private func announcePresence(state: ServerState) async {
        await state.writes.feedChanged(of: device.authorID)
    }

    private func name(_ authorID: String) -> String {
        players.first { $0.authorID == authorID }?.displayName ?? PlayerColors.placeholderName(authorID)
    }

    private func opened(now: Int64) -> GameOpened {
        GameOpened(
            state(squares: SquareView.all(replica.grid, of: puzzle), now: now), layout: PuzzleLayout(puzzle), players: playerViews,
            me: device.authorID, deviceID: device.deviceID, readOnly: readOnly)
    }

    /// Reads the zone's changes after the last one read into the replica (this device's own
    /// moves too: they are already in its journal and change nothing); the squares that changed.
    /// Changes handed over with a poke that follow on from what the replica holds are folded as
    /// they are, without reading them back from the store.
    private func catchUp(state: ServerState, handed: [InlineChanges] = []) async throws -> [SquareView] {
        let before = replica.grid
        let known = relayed
        defer { relayed = relayed.filter { $0.key > sequence } }
        // Changes relayed before their commit come again in the poke after it: nothing to read.
        if !handed.isEmpty, handed.allSatisfy({ ($0.changes.last?.sequence ?? .max) <= sequence }) { return [] }
        let read: GameProjection.Activity
        if let run = InlineChanges.run(handed, after: sequence), let folded = try Self.activity(run, after: sequence, gameID: gameID, known: known) {
            read = folded
        } else {
            read = try await GameProjection.sequencedActivity(store: state.store, gameID: gameID, after: sequence)
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
        messageSequences += read.messages
        hear(read.messages.map(\.message))
        hear(read.reactions)
        keep(read.flags)
        sequence = through
        replica.receive(fresh.map(\.move))
        for (_, move) in fresh where move.replicaID == device.deviceID { performedBatches.insert(move.batchID) }
        moves += fresh.map(\.move)
        authors.formUnion(fresh.map(\.move.authorID))
        moveStamps += fresh.map(\.move.stamp)
        moveSequences += fresh.map(\.sequence)
        if rosterMayHaveChanged { players = try await state.store.participants(gameID: gameID) }
        if let projection = state.directory.cached(gameID), let completion = await projection.completion, replica.completion != completion {
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
        state: ServerState, viewers: Set<Int>, inline: InlineChanges? = nil, decoded: [Int64: Move] = [:], committed poked: Int64? = nil
    ) async {
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
                let wasReadOnly = readOnly
                let wasComplete = replica.completion
                let roster = playerViews
                let pausesBefore = pauses.count
                let flagsBefore = flags
                do {
                    let taken = handed
                    handed = []
                    let squares = try await catchUp(state: state, handed: taken)
                    if hasLeft {
                        // Left from another device (on any instance): the pages showing it hear
                        // nothing more of the game, chat written after the leave included.
                        state.browsers.evict(self, viewers: viewers, reason: "You left this game.", state: state)
                        return false
                    }
                    here = state.hub.devicesViewing(gameID)
                    await sealIfComplete(state: state)
                    // The viewers see the change first; then what this device has shown moves
                    // on (and a viewed game keeps its lease), which no screen waits for.
                    if !squares.isEmpty || wasReadOnly != readOnly || wasComplete != replica.completion || roster != playerViews
                        || pauses.count != pausesBefore || !news.isEmpty || !reactionNews.isEmpty || flags != flagsBefore
                    {
                        let update = ServerSocketMessage.update(update(squares: squares, now: state.now()))
                        for viewer in viewers { state.hub.reply(viewer, update) }
                    }
                    try await showed(through: min(sequence, committed), state: state)
                    return true
                } catch {
                    state.logger.error("a browser's replica could not catch up", metadata: ["game": "\(gameID)", "error": "\(error)"])
                    return false
                }
            }
            guard caughtUp else { return }
        } while refreshAgain
    }

    /// Whether this device's player has left the game (a player who leaves is no longer among
    /// its participants).
    private var hasLeft: Bool { !players.contains { $0.authorID == device.authorID && !$0.hasLeft } }

    /// The game as it now is, with the squares that changed.
    private func update(squares: [SquareView], now: Int64) -> GameUpdate {
        GameUpdate(state(squares: squares, now: now), players: playerViews, readOnly: readOnly)
    }

    /// The account's pins or preferred colour changed: read them again, and redraw the roster
    /// if its colours moved. (Only then: a poke does not read the account zone.)
    func accountZoneChanged(state: ServerState, viewers: Set<Int>) async {
        let changed = await exclusively { () -> GameUpdate? in
            let before = playerViews
            do { try await readAccountZone(state: state) } catch {
                state.logger.error("a browser's colours could not be read", metadata: ["game": "\(gameID)", "error": "\(error)"])
                return nil
            }
            return playerViews == before ? nil : update(squares: [], now: state.now())
        }
        guard let changed else { return }
        for viewer in viewers { state.hub.reply(viewer, .update(changed)) }
    }

    /// Once the game is complete, every move this device made is stored (the server made and
    /// stored them itself), so it seals at once: the replay waits for no browser.
    private func sealIfComplete(state: ServerState) async {
        guard replica.completion != nil, !sealed, !readOnly else { return }
        let seal = Seal(gameID: gameID, replicaID: device.deviceID, lastSeq: replica.journal.count)
        do {
            try await state.writes.put(.seal(seal), in: gameID)
            sealed = true
        } catch {
            state.logger.error("a browser's seal could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
        }
    }

    /// The page from step `from` of the finished game's replay, once every device that wrote
    /// has sealed. A ready replay is assembled once per game (`ReplayCache`), and an account
    /// assembles one history at a time (`HistoryGate`).
    func replay(from: Int, state: ServerState) async throws -> ReplayView {
        try await exclusively { () async throws -> ReplayView in
            _ = try await catchUp(state: state)
            guard replica.completion != nil else {
                return ReplayView(gameID: gameID, ready: false, waitingFor: 0, steps: [], times: [])
            }
            let removed = Set(players.filter(\.revoked).map(\.authorID))
            let key = ReplayCache.Key(moves: moves.count, removed: removed)
            if let kept = state.replays.replay(gameID, key: key) { return kept.page(from: from) }
            let assembled = try await state.history.run(for: device.authorID) { () async throws -> ReplayView in
                let seals = try await state.store.seals(gameID: gameID)
                state.metrics.replaysAssembled.increment()
                return ReplayView(
                    gameID: gameID, width: puzzle.width, height: puzzle.height,
                    availability: ReplayAssembler.assemble(
                        width: puzzle.width, height: puzzle.height, moves: moves, seals: seals, removed: removed))
            }
            guard let assembled else { throw HistoryGate.busy }
            state.replays.keep(assembled, for: gameID, key: key)
            return assembled.page(from: from)
        }
    }

    /// How far in the past a command's `typedAt` may be: a browser offline for longer sends its
    /// queue stamped no earlier than this.
    static let oldestTypedAt: Int64 = 7 * 24 * 3_600_000

    /// Performs a browser's command and stores its moves as this device's; the answer.
    func perform(_ request: CommandRequest, state: ServerState) async -> ServerSocketMessage {
        await exclusively { await performAlone(request, state: state) }
    }

    /// The batch a command's moves are stored under: the device, the command's id and the time
    /// it was typed (a browser whose queue was wiped starts its ids again, with new times). A
    /// command without its time has no lasting identity, and its moves are batched as any.
    func batchID(for request: CommandRequest) -> String? {
        request.typedAt.map { "\(device.deviceID):c\(request.id):\($0)" }
    }

    private func performAlone(_ request: CommandRequest, state: ServerState) async -> ServerSocketMessage {
        let performed = batchID(for: request).map(performedBatches.contains) ?? false
        let key = CommandKey(id: request.id, typedAt: request.typedAt)
        let earlier: CommandRefusal?? = answered[key] ?? (performed ? .some(nil) : nil)
        if let earlier {
            // Already answered: the grid the browser was sent on reopening holds its effect.
            if let refusal = earlier { return .refused(refusal) }
            return applied(request, now: state.now())
        }
        let answer = await performOnce(request, state: state)
        switch answer {
        case let .refused(refusal) where refusal.code == .rateLimited || refusal.code == .serverError: break  // to be sent again
        case let .refused(refusal): remember(key, refusal)
        default: remember(key, nil)
        }
        return answer
    }

    private func remember(_ key: CommandKey, _ refusal: CommandRefusal?) {
        if answered.updateValue(refusal, forKey: key) == nil { answeredOrder.append(key) }
        if answeredOrder.count > Self.answersKept { answered[answeredOrder.removeFirst()] = nil }
    }

    /// The player paused: their share of the shared clock stops at the moment they did (as
    /// typed, within the bounds a command's time has) until their next move.
    private func pause(_ request: CommandRequest, state: ServerState) async -> ServerSocketMessage {
        guard !readOnly else { return refusal(request, .removed, "you were removed from this game; it is read-only for you") }
        guard replica.completion == nil else { return refusal(request, .finished, "the game is finished; its clock has stopped") }
        let now = state.now()
        let at = typedAt(request, now: now)
        let pause = Pause(gameID: gameID, authorID: device.authorID, replicaID: device.deviceID, at: at)
        do {
            try await state.writes.put(.pause(pause), in: gameID)
            if pauseKeys.insert(pause.key).inserted { pauses.append(pause.stamp) }
        } catch {
            state.logger.error("a browser's pause could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
            return refusal(request, .serverError, "the server could not save that; it has been logged")
        }
        return applied(request, now: now)
    }

    /// When a command was typed, within the bounds a command's time has: never before the game
    /// existed (a browser whose clock offset is stale may say so) nor after now, nor more than a
    /// week back.
    private func typedAt(_ request: CommandRequest, now: Int64) -> Int64 {
        max(createdAt, min(now, max(now - Self.oldestTypedAt, request.typedAt ?? now)))
    }

    private func refusal(_ request: CommandRequest, _ code: RefusalCode, _ reason: String) -> ServerSocketMessage {
        .refused(CommandRefusal(id: request.id, gameID: gameID, CommandRefusal.Reason(code: code, reason: reason)))
    }

    /// A message, reaction or flag through the write path, `write` given its time as typed:
    /// applied, or refused in the write path's words (or as the server's fault, logged).
    private func performSocial(
        _ request: CommandRequest, state: ServerState, _ write: (HLCTimestamp) async throws -> Void
    ) async -> ServerSocketMessage {
        let now = state.now()
        do {
            try await write(HLCTimestamp(wallMillis: typedAt(request, now: now)))
        } catch let error as APIError {
            if error.body.error == .readOnly || error.body.error == .forbidden {
                players = (try? await state.store.participants(gameID: gameID)) ?? players
            }
            return refusal(request, RefusalCode(error.body.error), error.body.message)
        } catch {
            state.logger.error(
                "a browser's command could not be stored",
                metadata: ["game": "\(gameID)", "kind": "\(request.command.kind.name)", "error": "\(error)"])
            return refusal(request, .serverError, "the server could not save that; it has been logged")
        }
        return applied(request, now: now)
    }

    /// The player wrote a chat message: kept once by its id (a command sent again is harmless)
    /// and shown at once in this browser's conversation.
    private func chat(_ request: CommandRequest, state: ServerState) async -> ServerSocketMessage {
        guard let text = request.command.text, let messageID = request.command.messageID else {
            return refusal(request, .invalid, "that command is incomplete (chat needs text and messageID)")
        }
        return await performSocial(request, state: state) { at in
            let answer = try await state.writes.chat(PostMessageRequest(messageID: messageID, text: text, timestamp: at), in: gameID, by: device)
            hear([answer.message])
        }
    }

    /// The player flagged the word at a square for the others (or took the flag down).
    private func flag(_ request: CommandRequest, state: ServerState) async -> ServerSocketMessage {
        guard let row = request.command.row, let col = request.command.col, let direction = request.command.direction, let on = request.command.on
        else { return refusal(request, .invalid, "that command is incomplete (flag needs row, col, direction and on)") }
        guard let clue = puzzle.clue(containing: GridPosition(row: row, col: col), direction) else {
            return refusal(request, .invalid, "no \(direction.rawValue) word goes through that square")
        }
        let key = ClueFlag(gameID: gameID, authorID: device.authorID, number: clue.number, direction: direction, on: on, timestamp: .zero).key
        return await performSocial(request, state: state) { at in
            let answer = try await state.writes.flag(
                PostFlagRequest(number: clue.number, direction: direction, on: on, timestamp: .after(flags[key]?.timestamp, now: at.wallMillis)),
                in: gameID, by: device)
            keep([answer.flag])
        }
    }

    /// The player gave or took back a reaction (the latest decides), shown at once.
    private func react(_ request: CommandRequest, state: ServerState) async -> ServerSocketMessage {
        guard let messageKey = request.command.messageKey, let emoji = request.command.emoji, let on = request.command.on else {
            return refusal(request, .invalid, "that command is incomplete (react needs messageKey, emoji and on)")
        }
        let key = Reaction(gameID: gameID, authorID: device.authorID, messageKey: messageKey, emoji: emoji, on: on, timestamp: .zero).key
        return await performSocial(request, state: state) { at in
            let answer = try await state.writes.react(
                PostReactionRequest(
                    messageKey: messageKey, emoji: emoji, on: on, timestamp: .after(reactions[key]?.timestamp, now: at.wallMillis)),
                in: gameID, by: device)
            hear([answer.reaction])
        }
    }

    private func performOnce(_ request: CommandRequest, state: ServerState) async -> ServerSocketMessage {
        if request.command.kind == .pause { return await pause(request, state: state) }
        if request.command.kind == .chat { return await chat(request, state: state) }
        if request.command.kind == .react { return await react(request, state: state) }
        if request.command.kind == .flag { return await flag(request, state: state) }
        let command: Command
        switch request.command.command() {
        case let .success(made): command = made
        case let .failure(reason): return .refused(CommandRefusal(id: request.id, gameID: gameID, reason))
        }
        do {
            _ = try await catchUp(state: state)
        } catch {
            state.logger.error("a browser's replica could not catch up", metadata: ["game": "\(gameID)", "error": "\(error)"])
            return refusal(request, .serverError, "the server could not load this game; it has been logged")
        }
        guard !readOnly else { return refusal(request, .removed, "you were removed from this game; it is read-only for you") }
        let now = state.now()
        var next = replica
        let made: [Move]
        do { made = try next.perform(command, wallMillis: typedAt(request, now: now), batchID: batchID(for: request)) } catch {
            return .refused(CommandRefusal(id: request.id, gameID: gameID, error.browserReason))
        }
        if !made.isEmpty {
            let response: PushMovesResponse
            do {
                // One gesture is one batch however many squares it touches (a whole 25×25 grid
                // checked is 625 moves): the grid bounds it, not the batch limit pushes have.
                response = try await state.writes.ingest(
                    made.map(MoveRecord.init), into: gameID, from: device, maximumRecords: puzzle.width * puzzle.height)
            } catch let error as APIError {
                if error.body.error == .readOnly { players = (try? await state.store.participants(gameID: gameID)) ?? players }
                let code = RefusalCode(error.body.error)
                return refusal(request, code, error.body.message)
            } catch {
                state.logger.error("a browser's command could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
                return refusal(request, .serverError, "the server could not save that; it has been logged")
            }
            if let refused = response.results.first(where: { $0.status == .rejected }) {
                // The mutator's moves pass the server's rules; one that does not is kept out, and
                // the browser is told why (a command that cannot be stored is not the server's
                // fault to retry for ever).
                state.logger.warning("a browser's move was refused", metadata: ["game": "\(gameID)", "error": "\(refused.error?.message ?? "")"])
                return refusal(request, .invalid, refused.error?.message ?? "the server refused that move")
            }
            performedBatches.insert(made[0].batchID)
            if let stored = response.completion?.completion, next.completion != stored,
                let projection = state.directory.cached(gameID)
            {
                next.adopt(stored, finalGrid: await projection.replica.grid)
            }
        }
        let squares = SquareView.changed(from: replica.grid, to: next.grid, of: puzzle)
        replica = next
        await sealIfComplete(state: state)
        return applied(request, squares: squares, made: made, now: now)
    }
}
