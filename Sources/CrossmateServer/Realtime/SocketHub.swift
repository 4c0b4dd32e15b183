import CrossmateProtocol
import CrossmateStore
import Foundation
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// This instance's live WebSockets: which device each is, which games it watches, and the
/// channel its frames go out on. Pokes and cursors fan out from here. Every method is synchronous
/// under one lock, and frames are written straight onto the sockets' event loops, so a poke
/// reaches the wire without waking a task for each socket.
final class SocketHub: Sendable {
    struct Connection {
        var deviceID: String
        var authorID: String
        var games: Set<String> = []
        var out: SocketOut
        var channel: any Channel { out.channel }
        /// Games a browser has open on this socket: it hears of their changes as squares from
        /// its hosted replica, so their pokes (moves to merge) are not sent to it.
        var openInBrowser: Set<String> = []
        /// Games a native device shows on screen on this socket.
        var viewing: Set<String> = []
        /// Games open in this browser whose page is hidden, each with the hiding's number (a
        /// page hidden and shown again is a new hiding), and those hidden past the grace: away.
        var hidden: [String: Int] = [:]
        var away: Set<String> = []
        /// The socket asked for `relays`: it hears of moves when they are ordered, before their
        /// commit, and not again in the poke after it.
        var relays = false

        /// The socket shows `game` (open in a browser, or viewed by a native device).
        func shows(_ game: String) -> Bool { (openInBrowser.contains(game) || viewing.contains(game)) && !away.contains(game) }
    }

    private struct State {
        var connections: [Int: Connection] = [:]
        var byGame: [String: Set<Int>] = [:]
        var nextID = 0
        /// Pages hidden so far (`hide`): each hiding's number.
        var hidings = 0
        /// The newest zone sequence poked per watched game, so a reconnecting listener can tell
        /// what it missed. Only games some socket here watches are kept (as in `byGame`), so
        /// neither grows with games nobody here is looking at.
        var lastPoked: [String: Int64] = [:]
        /// The sockets each game's relays went to, by the last sequence relayed: the poke after
        /// that commit passes them over. Dropped when a poke reaches the sequence (or passes it).
        var relayedTo: [String: [Int64: Set<Int>]] = [:]
        /// Sockets owed a commit notice per game, with the sequence each is owed: relayed moves
        /// now committed that no later relay, and no answer to the socket's own push, has told
        /// them of. A notice goes after a quiet spell (`noticeDelay` since the game's last
        /// commit), so typing that goes on carries its commits in its relays and answers and
        /// costs no frame of its own. While a game owes any, one notice task is scheduled for it.
        var owedNotices: [String: OwedNotices] = [:]

        /// The sockets watching `game` that hear of its changes, but not those of `deviceID`: for
        /// `moves` (pokes and relays), not browsers with the game open either (their hosted
        /// replicas show them the moves).
        func listeners(of game: String, exceptDevice deviceID: String?, moves: Bool) -> [(id: Int, connection: Connection)] {
            (byGame[game] ?? []).compactMap { id in
                guard let connection = connections[id], deviceID == nil || connection.deviceID != deviceID,
                    !(moves && connection.openInBrowser.contains(game))
                else { return nil }
                return (id, connection)
            }
        }

        mutating func unwatch(_ game: String, by id: Int) {
            connections[id]?.games.remove(game)
            byGame[game]?.remove(id)
            if byGame[game]?.isEmpty == true {
                byGame[game] = nil
                lastPoked[game] = nil
                relayedTo[game] = nil
                owedNotices[game] = nil
            }
        }
    }

    /// The sockets one game owes a commit notice (with the sequence each is owed), and when the
    /// game will have been quiet long enough for it.
    struct OwedNotices {
        var sockets: [Int: Int64] = [:]
        var due: NIODeadline
    }

    private let state = Mutex(State())
    /// Who shows each game on the other instances (PostgreSQL only; else always empty).
    let remote = RemoteViewers()
    private let metrics: ServerMetrics
    private let logger: Logger

    /// Whether sockets that took relays are told of a commit no later relay will carry (off only
    /// in crash tests, to stand for a server that died between the commit and the notice).
    private let commitNotices: Bool

    init(metrics: ServerMetrics, logger: Logger, commitNotices: Bool = true) {
        self.metrics = metrics
        self.logger = logger
        self.commitNotices = commitNotices
    }

    var count: Int { state.withLock { $0.connections.count } }

    /// Where a socket's frames go: its channel, through its `FrameWriter` when it has one.
    struct SocketOut: Sendable {
        var channel: any Channel
        var writer: FrameWriter?
    }

    func register(deviceID: String, authorID: String, channel: any Channel, writer: FrameWriter? = nil) -> Int {
        state.withLock {
            $0.nextID += 1
            $0.connections[$0.nextID] = Connection(deviceID: deviceID, authorID: authorID, out: SocketOut(channel: channel, writer: writer))
            return $0.nextID
        }
    }

    func unregister(_ id: Int) {
        state.withLock { state in
            guard let connection = state.connections[id] else { return }
            for game in connection.games { state.unwatch(game, by: id) }
            state.connections[id] = nil
        }
    }

    func subscribe(_ id: Int, to games: [String]) {
        state.withLock {
            for game in games where $0.connections[id] != nil {
                $0.connections[id]?.games.insert(game)
                $0.byGame[game, default: []].insert(id)
            }
        }
    }

    func unsubscribe(_ id: Int, from games: [String]) {
        state.withLock {
            for game in games { $0.unwatch(game, by: id) }
        }
    }

    /// Whether `relay` would send `game`'s moves from `deviceID` to any socket here.
    func takesRelays(_ game: String, exceptDevice deviceID: String) -> Bool {
        state.withLock { $0.listeners(of: game, exceptDevice: deviceID, moves: true).contains { $0.connection.relays } }
    }

    /// The socket takes relays from now on.
    func takeRelays(_ id: Int) {
        state.withLock { $0.connections[id]?.relays = true }
    }

    /// Moves of one push, checked and ordered, not yet committed: to the sockets that take
    /// relays and watch the game (not browsers with it open, not the sender's), with the zone's
    /// sequence as committed so far (the last poked: pokes follow commits).
    func relay(game: String, _ moves: InlineChanges, exceptDevice deviceID: String) {
        guard let last = moves.changes.last else { return }
        let (sockets, committed) = state.withLock { state -> ([SocketOut], Int64) in
            let relayed = state.listeners(of: game, exceptDevice: deviceID, moves: true).filter(\.connection.relays)
            if !relayed.isEmpty {
                let ids = Set(relayed.map(\.id))
                state.relayedTo[game, default: [:]][last.sequence] = ids
                // This relay carries the commit so far: those it goes to are owed no notice.
                if let owed = state.owedNotices[game]?.sockets { state.owedNotices[game]!.sockets = owed.filter { !ids.contains($0.key) } }
            }
            return (relayed.map(\.connection.out), state.lastPoked[game] ?? 0)
        }
        guard !sockets.isEmpty else { return }
        write(
            ServerSocketMessage.relayJSON(
                zone: game, after: ChangeToken(zone: game, sequence: moves.after), changes: moves.changes,
                committed: ChangeToken(zone: game, sequence: committed)),
            to: sockets)
    }

    /// Relays of `game` were not committed after all (their group failed): the sockets they went
    /// to close, and reconnecting drops what they were shown and reads the game again.
    func relaysFailed(game: String) {
        let channels = state.withLock { state -> [any Channel] in
            let ids = (state.relayedTo.removeValue(forKey: game) ?? [:]).values.reduce(into: Set<Int>()) { $0.formUnion($1) }
            return ids.compactMap { state.connections[$0]?.channel }
        }
        for channel in channels { channel.close(promise: nil) }
    }

    func openInBrowser(_ id: Int, game: String, _ open: Bool) {
        state.withLock {
            if open { $0.connections[id]?.openInBrowser.insert(game) } else { $0.connections[id]?.openInBrowser.remove(game) }
            $0.connections[id]?.hidden[game] = nil
            $0.connections[id]?.away.remove(game)
        }
    }

    /// A browser's page with `game` open was hidden: the hiding's number, to make it away with
    /// once the grace is over (nil when the game is not open on that socket).
    func hide(_ id: Int, game: String) -> Int? {
        state.withLock { state -> Int? in
            guard state.connections[id]?.openInBrowser.contains(game) == true else { return nil }
            state.hidings += 1
            state.connections[id]!.hidden[game] = state.hidings
            return state.hidings
        }
    }

    /// The grace of hiding `number` is over: when the page is still hidden, the socket no longer
    /// shows the game (away). Whether it went away now.
    func goAway(_ id: Int, game: String, hiding number: Int) -> Bool {
        state.withLock { state -> Bool in
            guard state.connections[id]?.hidden[game] == number else { return false }
            return state.connections[id]!.away.insert(game).inserted
        }
    }

    /// The page is shown again: whether it had gone away (and is back now).
    func show(_ id: Int, game: String) -> Bool {
        state.withLock { state -> Bool in
            state.connections[id]?.hidden[game] = nil
            return state.connections[id]?.away.remove(game) != nil
        }
    }

    /// A callback, boxed. A bare function type in a `Mutex` is re-abstracted every time
    /// `withLock` passes it `inout` through its generic signature, and the stored closure grows a
    /// thunk per call: after a minute of pokes, calling it walked thousands of thunks (the
    /// server bench at 1,000 devices went from p99 7 ms to 3.5 s). A class reference is not
    /// re-abstracted.
    final class Listener<Value>: Sendable {
        let call: @Sendable (Value) -> Void

        init(_ call: @escaping @Sendable (Value) -> Void) {
            self.call = call
        }
    }

    /// The games a native device's socket says it views.
    func viewedGames(_ id: Int) -> Set<String> {
        state.withLock { $0.connections[id]?.viewing ?? [] }
    }

    func setViewing(_ id: Int, game: String, _ viewing: Bool) {
        state.withLock {
            if viewing { $0.connections[id]?.viewing.insert(game) } else { $0.connections[id]?.viewing.remove(game) }
        }
    }

    /// How many devices of each account show `game` now, on this instance and the others
    /// (browsers with it open, native devices that said they view it). Asked by every hosted
    /// browser's refresh, so it is one pass under the lock, with no sorting.
    func devicesViewing(_ game: String) -> [String: Int] {
        authorsByDevice(showing: game).values.reduce(into: [:]) { counts, authorID in counts[authorID, default: 0] += 1 }
    }

    /// The devices showing `game` now, on this instance and the others, each once.
    func viewers(_ game: String) -> [(deviceID: String, authorID: String)] {
        authorsByDevice(showing: game).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Each device showing `game` now, on this instance and the others, with its account.
    private func authorsByDevice(showing game: String) -> [String: String] {
        var devices = remote.authorsByDevice(of: game)
        for viewer in localViewers(game) { devices[viewer.deviceID] = viewer.authorID }
        return devices
    }

    /// The devices showing `game` on this instance (browsers with it open, native devices viewing it).
    func localViewers(_ game: String) -> Set<RemoteViewers.Viewer> {
        state.withLock { state in
            var seen: Set<RemoteViewers.Viewer> = []
            for id in state.byGame[game] ?? [] {
                guard let connection = state.connections[id], connection.shows(game) else { continue }
                seen.insert(RemoteViewers.Viewer(deviceID: connection.deviceID, authorID: connection.authorID))
            }
            return seen
        }
    }

    /// The games a socket shows (open in a browser, or viewed by a native device).
    func shownGames(_ id: Int) -> Set<String> {
        state.withLock { state in
            guard let connection = state.connections[id] else { return [] }
            return connection.viewing.union(connection.openInBrowser)
        }
    }

    func isSubscribed(_ id: Int, to game: String) -> Bool {
        state.withLock { $0.connections[id]?.games.contains(game) ?? false }
    }

    /// Games some local socket watches.
    var watchedGames: [String] { state.withLock { Array($0.byGame.keys) } }

    /// Games with watchers and games with a remembered poke: both shrink as sockets leave.
    var tracked: (watched: Int, poked: Int) { state.withLock { ($0.byGame.count, $0.lastPoked.count) } }

    func lastPoked(_ game: String) -> Int64 { state.withLock { $0.lastPoked[game] ?? 0 } }

    private func poke(game: String, sequence: Int64, exceptDevice: String? = nil, inline: InlineChanges? = nil) {
        let (sockets, schedule) = state.withLock { state -> ([SocketOut], (any EventLoop)?) in
            if state.byGame[game] != nil, sequence > state.lastPoked[game, default: 0] { state.lastPoked[game] = sequence }
            // The sockets these changes were relayed to have them. Their commit comes with the
            // next relay; a socket that has been relayed nothing since is owed a notice, sent
            // when the game has been quiet a moment, so it stores what it shows when the typing
            // stops.
            var heard: Set<Int> = []
            var schedule: (any EventLoop)?
            if var relays = state.relayedTo[game] {
                heard = inline.flatMap { $0.changes.last.flatMap { relays[$0.sequence] } } ?? []
                relays = relays.filter { $0.key > sequence }
                state.relayedTo[game] = relays.isEmpty ? nil : relays
                let owed = heard.subtracting(relays.values.reduce(into: Set<Int>()) { $0.formUnion($1) })
                if commitNotices, !owed.isEmpty, let loop = owed.first.flatMap({ state.connections[$0]?.channel.eventLoop }) {
                    // Each commit puts the notice off: it goes once the game is quiet.
                    let due = loop.now + Self.noticeDelay
                    if state.owedNotices[game] == nil {
                        state.owedNotices[game] = OwedNotices(due: due)
                        schedule = loop
                    }
                    state.owedNotices[game]!.due = due
                    for id in owed { state.owedNotices[game]!.sockets[id] = sequence }
                }
            }
            let listeners = state.listeners(of: game, exceptDevice: exceptDevice, moves: true)
            return (listeners.filter { !heard.contains($0.id) }.map(\.connection.out), schedule)
        }
        // Encoded only for a socket that is to hear it: where every device took the relay, none.
        if !sockets.isEmpty { write(Self.pokeText(game: game, sequence: sequence, inline: inline), to: sockets) }
        if let schedule { scheduleCommitNotices(game: game, on: schedule, in: Self.noticeDelay) }
    }

    /// A socket's push to `game` was answered, committed through `sequence`: a relay-taking
    /// client stores what it was relayed up to there (`SyncEngine`), so it is owed no notice for
    /// commits up to it.
    func answered(_ id: Int, game: String, through sequence: Int64) {
        state.withLock { state in
            if let owed = state.owedNotices[game]?.sockets[id], owed <= sequence { state.owedNotices[game]!.sockets[id] = nil }
        }
    }

    /// How long a game is left quiet before the sockets that took its last relays are told of
    /// their commit in a frame of its own.
    static let noticeDelay = TimeAmount.milliseconds(400)

    /// Tells the sockets still owed a notice for `game` that it is committed as far as poked, in
    /// a relay of no changes, once the game has been quiet for `noticeDelay`; if it was committed
    /// again meanwhile, looks again when it will have been.
    private func scheduleCommitNotices(game: String, on loop: any EventLoop, in delay: TimeAmount) {
        loop.scheduleTask(in: delay) { [self] in
            let (owed, committed, later) = state.withLock { state -> ([SocketOut], Int64, TimeAmount?) in
                guard let owed = state.owedNotices[game] else { return ([], 0, nil) }
                if owed.due > loop.now { return ([], 0, owed.due - loop.now) }
                state.owedNotices[game] = nil
                let sockets = owed.sockets.keys.compactMap { id in state.connections[id].flatMap { $0.games.contains(game) ? $0.out : nil } }
                return (sockets, state.lastPoked[game] ?? 0, nil)
            }
            if let later { scheduleCommitNotices(game: game, on: loop, in: later) }
            guard !owed.isEmpty, committed > 0 else { return }
            let token = ChangeToken(zone: game, sequence: committed)
            write(ServerSocketMessage.relayJSON(zone: game, after: token, changes: [], committed: token), to: owed)
        }
    }

    /// The poke as `ServerSocketMessage.poke` encodes it, around the stored JSON of the inline
    /// changes.
    static func pokeText(game: String, sequence: Int64, inline: InlineChanges?) -> String {
        ServerSocketMessage.pokeJSON(
            zone: game, token: ChangeToken(zone: game, sequence: sequence), after: inline.map { ChangeToken(zone: game, sequence: $0.after) },
            changes: inline?.changes)
    }

    private func feed(authorID: String, sequence: Int64) {
        tell(.account(authorID), .feed(token: ChangeToken(zone: "feed", sequence: sequence)))
    }

    private func cursor(game: String, deviceID: String, authorID: String, cursor: CursorPosition) {
        send(Self.encode(.cursor(gameID: game, deviceID: deviceID, authorID: authorID, cursor: cursor)), toGame: game, exceptDevice: deviceID)
    }

    /// Who a message is for: one socket (an answer, an error), every socket of an account, or
    /// every socket watching a game.
    enum Audience {
        case socket(Int)
        case account(String)
        case game(String)
    }

    /// The one verb for telling devices something directly (answers, errors, notices): the
    /// message is encoded through the frame budget once, and only if some socket is to hear it.
    /// What the write path publishes reaches the sockets as facts (`hear`), which end here too.
    func tell(_ audience: Audience, _ message: ServerSocketMessage) {
        tell(audience, text: Self.encode(message))
    }

    /// `tell`, with a message already encoded.
    func tell(_ audience: Audience, text: @autoclosure () -> String) {
        let sockets = state.withLock { state -> [SocketOut] in
            switch audience {
            case let .socket(id): state.connections[id].map { [$0.out] } ?? []
            case let .account(authorID): state.connections.values.filter { $0.authorID == authorID }.map(\.out)
            case let .game(game): state.listeners(of: game, exceptDevice: nil, moves: false).map(\.connection.out)
            }
        }
        if !sockets.isEmpty { write(text(), to: sockets) }
    }

    /// Called with each device whose sockets close because it was revoked (the device cache
    /// forgets its token).
    let onRevoked = Mutex<Listener<String>?>(nil)

    /// Closes a revoked device's sockets.
    private func closeSockets(deviceID: String) {
        onRevoked.withLock { $0 }?.call(deviceID)
        let channels = state.withLock { $0.connections.values.filter { $0.deviceID == deviceID }.map(\.channel) }
        for channel in channels { channel.close(promise: nil) }
    }

    /// Stops pokes for an account's devices watching a game they lost access to.
    func dropSubscriptions(authorID: String, game: String) {
        state.withLock {
            for (id, connection) in $0.connections where connection.authorID == authorID && connection.games.contains(game) {
                $0.unwatch(game, by: id)
            }
        }
    }

    /// Sends `text` to every socket watching `game`, but not the sockets of `deviceID`; encoded
    /// only if some socket is to hear it.
    private func send(_ text: @autoclosure () -> String, toGame game: String, exceptDevice deviceID: String?) {
        let sockets = state.withLock { $0.listeners(of: game, exceptDevice: deviceID, moves: false).map(\.connection.out) }
        if !sockets.isEmpty { write(text(), to: sockets) }
    }

    /// Writes one text frame to each socket: one trip to each event loop involved, however many
    /// of its sockets the frame goes to. The frame is encoded once and its bytes shared, not
    /// copied per socket (`FrameWriter`). A channel that has more than `socketBufferBytes` unsent
    /// (its writability) is closed.
    private func write(_ text: String, to sockets: [SocketOut]) {
        guard !sockets.isEmpty else { return }
        let bytes = FrameWriter.encode(text)
        let queuedAt = ContinuousClock.now
        var remaining = sockets
        while let first = remaining.first {
            let loop = first.channel.eventLoop
            let onLoop = remaining.filter { $0.channel.eventLoop === loop }
            remaining.removeAll { $0.channel.eventLoop === loop }
            loop.execute { [metrics, logger] in
                // For a socket without a frame writer (or whose writer is gone as it closes).
                var frame: WebSocketFrame?
                for socket in onLoop where socket.channel.isActive {
                    let channel = socket.channel
                    if socket.writer?.write(bytes) != true {
                        let unencoded = frame ?? WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
                        frame = unencoded
                        channel.writeAndFlush(unencoded, promise: nil)
                    }
                    if !channel.isWritable {
                        logger.notice(
                            "closing a WebSocket that is not reading what it is sent",
                            metadata: ["peer": "\(channel.remoteAddress?.description ?? "?")"])
                        channel.close(promise: nil)
                    }
                }
                metrics.pushLatency.recordNanoseconds(queuedAt.duration(to: .now).inNanoseconds)
            }
        }
    }

    /// Socket messages are encoded through the one frame budget (`FrameBudget.encode`).
    static func encode(_ message: ServerSocketMessage) -> String { FrameBudget.encode(message) }
}

/// This instance's sockets hear every fact they show, from this instance or another: moves
/// relayed before their commit to the sockets that take relays, pokes, cursors, feeds, who is
/// here, nudges and the next game, and revoked devices' sockets close.
extension SocketHub: FactListener {
    func hear(_ fact: Fact, from origin: Origin) {
        switch fact {
        case let .movesOrdered(game, saved, sender):
            if let moves = InlineChanges(saved: saved) { relay(game: game, moves, exceptDevice: sender) }
        case let .notCommitted(game): relaysFailed(game: game)
        case let .zoneChanged(game, sequence, sender, inline): poke(game: game, sequence: sequence, exceptDevice: sender, inline: inline)
        case let .feedChanged(authorID, sequence): feed(authorID: authorID, sequence: sequence)
        case let .cursorMoved(game, deviceID, authorID, cursor): self.cursor(game: game, deviceID: deviceID, authorID: authorID, cursor: cursor)
        case let .presenceChanged(game, cursors):
            let devices = viewers(game).map { PresentDevice(deviceID: $0.deviceID, authorID: $0.authorID, cursor: cursors[$0.deviceID]) }
            tell(.game(game), .here(gameID: game, devices: devices))
        case let .left(game, authorID): dropSubscriptions(authorID: authorID, game: game)
        case let .deviceRevoked(deviceID): closeSockets(deviceID: deviceID)
        case let .nudged(authorID, nudge): tell(.account(authorID), .nudge(nudge))
        case let .nextGame(authorID, next): tell(.account(authorID), .nextGame(next))
        case .finished, .accountChanged, .mayCallBack: break
        }
    }

    func hearsBeforeCommit(_ game: String, exceptDevice deviceID: String) -> Bool { takesRelays(game, exceptDevice: deviceID) }
}
