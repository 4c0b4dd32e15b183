import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import Logging
import Synchronization

/// A square whose merged state changed, and who wrote what it holds now ("" when emptied).
public struct SquareChange: Hashable, Sendable {
    public var position: GridPosition
    public var authorID: String
}

/// Another device's cursor in a game.
public struct PeerCursor: Hashable, Sendable {
    public var deviceID: String
    public var authorID: String
    public var position: GridPosition
    public var direction: Direction

    public init(deviceID: String, authorID: String, position: GridPosition, direction: Direction) {
        self.deviceID = deviceID
        self.authorID = authorID
        self.position = position
        self.direction = direction
    }
}

/// How this device stands with the server.
public struct SyncStatus: Hashable, Sendable, CustomStringConvertible {
    public enum Connection: Hashable, Sendable {
        /// The socket is open: pokes and cursors arrive live.
        case online
        /// Nothing reaches the server since this time (Unix milliseconds).
        case offline(since: Int64)
        /// The server asked this device to wait (429); pushing resumes at this time.
        case throttled(until: Int64)
    }

    public var connection: Connection
    /// This device's moves not yet acknowledged, across every game.
    public var unsent: Int

    public init(connection: Connection, unsent: Int) {
        self.connection = connection
        self.unsent = unsent
    }

    public var description: String {
        let state =
            switch connection {
            case .online: "online"
            case let .offline(since): "offline since \(Self.clock(since))"
            case .throttled: "throttled by the server"
            }
        return unsent == 0 ? state : "\(state), \(unsent) move\(unsent == 1 ? "" : "s") not yet sent"
    }

    /// A local time of day, HH:MM:SS.
    public static func clock(_ millis: Int64) -> String {
        var time = time_t(millis / 1000)
        var parts = tm()
        localtime_r(&time, &parts)
        return String(format: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}

/// A chat message as a UI shows it: the message, whether the server has it yet, and why it
/// refused it (then it stays, marked, and is not sent again).
public struct ChatLine: Hashable, Sendable {
    public var message: ChatMessage
    public var sent: Bool
    public var refusal: String?
    /// The reactions that stand, each emoji with who gave it.
    public var reactions: [Chat.Tally]

    public init(message: ChatMessage, sent: Bool, refusal: String?, reactions: [Chat.Tally] = []) {
        self.message = message
        self.sent = sent
        self.refusal = refusal
        self.reactions = reactions
    }
}

/// What a UI hears from the engine.
public enum EngineEvent: Sendable {
    /// Squares of a game changed (typed here, or merged from others).
    case gridChanged(gameID: String, squares: [SquareChange])
    case cursorsChanged(gameID: String, cursors: [PeerCursor])
    /// This device may no longer write in the game; its grid stays.
    case becameReadOnly(gameID: String, reason: String)
    /// The game ended: the authority's completion, with the final grid in place.
    case completed(gameID: String, completion: Completion)
    case status(SyncStatus)
    /// The set of games, a title, a player or a seal changed.
    case gamesChanged
    /// The server refused one of this device's moves for good.
    case moveRefused(gameID: String, seq: Int, reason: String)
    /// Another player asks this account to come and help.
    case nudged(NudgeView)
    /// A game's conversation changed: a message arrived, was written here, was sent or refused.
    case chatChanged(gameID: String)
    /// Another player started the next puzzle with this account (the game is in the store).
    case nextGame(NextGameView)
    /// The account's own records changed on one of its devices (a colour pin, a block, a
    /// setting): a UI reads them again.
    case accountChanged
}

/// Why a command was not carried out.
public enum SessionRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownGame(String)
    case readOnly(String)
    case refused(MutationRefusal)
    /// A chat message this device cannot send as typed (empty, too long, control characters).
    case invalidMessage(String)

    public var description: String {
        switch self {
        case let .unknownGame(game): "this device does not have game \(game); join it or sync first"
        case .readOnly: "you were removed from this game: it stays readable but takes no more letters"
        case let .refused(refusal): refusal.description
        case let .invalidMessage(reason): reason
        }
    }
}

/// The device's offset to the server's clock: learned from every answer's `serverTime`, used as
/// the physical part of every timestamp this device makes, so a clock that is minutes off still
/// writes moves the server takes.
final class ServerClock: Sendable {
    private let offset: Mutex<Int64>
    private let localNow: @Sendable () -> Int64
    private let persist: @Sendable (Int64) -> Void

    init(offset: Int64, localNow: @escaping @Sendable () -> Int64, persist: @escaping @Sendable (Int64) -> Void) {
        self.offset = Mutex(offset)
        self.localNow = localNow
        self.persist = persist
    }

    /// The server's time as this device best knows it.
    var now: Int64 { localNow() + offset.withLock { $0 } }
    var local: Int64 { localNow() }

    /// Folds in a `serverTime` from an answer that has just arrived. Differences under a second
    /// are latency, not skew, and are ignored so timestamps do not jitter.
    func observe(serverTime: Int64) {
        let measured = serverTime - localNow()
        let changed = offset.withLock { current -> Bool in
            guard abs(measured - current) > 1_000 else { return false }
            current = measured
            return true
        }
        if changed { persist(measured) }
    }
}

/// The sync engine a native app embeds (CKSyncEngine's role): a local store first, one push in
/// flight (over the socket when it is open, HTTP otherwise), fetches on start, reconnect and
/// poke, and a stream of events for the UI.
public actor SyncEngine {
    public nonisolated let store: ClientStore
    public nonisolated let identity: Identity
    let clock: ServerClock
    private let api: ServerAPI
    var serverAPI: ServerAPI { api }
    private let logger: Logger
    private var socket: SocketLink?
    private var socketTask: Task<Void, Never>?
    private var replicas: [String: GameReplica] = [:]
    /// Other devices' changes relayed before their commit, by game and zone sequence: shown in
    /// the replica, kept out of the store (and the change token) until a relay says the zone is
    /// on disk through them. Dropped, and the replica read again, when the socket reconnects.
    private var relayed: [String: [Int64: ZoneChange]] = [:]
    /// Zone sequences this device's own saved moves took beyond its token (their pushes' answers
    /// say so): a relay's commit runs over them too.
    private var ownSaved: [String: Set<Int64>] = [:]
    private var cursors: [String: [String: PeerCursor]] = [:]
    private var subscribers: [UUID: AsyncStream<EngineEvent>.Continuation] = [:]
    private var connection: SyncStatus.Connection
    private var random: SeededRandomNumberGenerator

    // Pushing: one loop, one batch in flight.
    private var pushTask: Task<Void, Never>?
    private var pushBackoff: Backoff
    private var wakeUp: CheckedContinuation<Void, Never>?
    private var nextPushID = 1
    private var socketPushes: [Int: CheckedContinuation<Result<PushMovesResponse, ServerFailure>, Never>] = [:]

    // Cursors: sent at most every `cursorInterval`, the last one always.
    private var cursorSent: [String: ContinuousClock.Instant] = [:]
    // Chat: the accounts this one blocked (their messages are not shown).
    private var blocked: Set<String> = []
    private var cursorPending: [String: CursorPosition] = [:]
    private let cursorInterval = Duration.milliseconds(100)

    /// `localNow` is the device's own clock in Unix milliseconds (injected in tests: a clock
    /// that is 10 minutes fast is one of them).
    public init(
        store: ClientStore, identity: Identity, seed: UInt64 = UInt64.random(in: 0...UInt64.max),
        localNow: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) },
        logger: Logger = Logger(label: "crossmate.client")
    ) throws {
        self.store = store
        self.identity = identity
        self.logger = logger
        let clock = ServerClock(offset: try store.serverOffsetMillis(), localNow: localNow) { offset in
            try? store.setServerOffsetMillis(offset)
        }
        self.clock = clock
        api = ServerAPI(baseURL: identity.serverURL, token: identity.token) { clock.observe(serverTime: $0) }
        random = SeededRandomNumberGenerator(seed: seed)
        pushBackoff = Backoff(seed: seed &+ 1)
        connection = .offline(since: localNow())
    }

    // MARK: Events

    /// A stream of everything a UI should redraw for. Each call makes a new subscriber.
    public func events() -> AsyncStream<EngineEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: EngineEvent.self, bufferingPolicy: .unbounded)
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        continuation.yield(.status(status))
        return stream
    }

    private func unsubscribe(_ id: UUID) { subscribers[id] = nil }

    private func emit(_ event: EngineEvent) {
        for subscriber in subscribers.values { subscriber.yield(event) }
    }

    public var status: SyncStatus {
        SyncStatus(connection: connection, unsent: (try? store.unsentCount()) ?? 0)
    }

    private func setConnection(_ new: SyncStatus.Connection) {
        if case .offline = connection, case .offline = new { return }
        connection = new
        emit(.status(status))
    }

    // MARK: Running

    /// Goes live: opens the socket (reopened whenever it drops), fetches everything and pushes
    /// what is waiting.
    public func start() {
        guard socket == nil else { return }
        let link = SocketLink(url: api.socketURL, token: identity.token, logger: logger)
        socket = link
        link.start(seed: random.next())
        socketTask = Task { [weak self] in
            for await event in link.events { await self?.handle(event) }
        }
        kickPush()
    }

    /// Stops the socket and the push loop. What is stored stays stored.
    public func stop() async {
        socket?.stop()
        socketTask?.cancel()
        socket = nil
        pushTask?.cancel()
        wake()
        for continuation in socketPushes.values { continuation.resume(returning: .failure(.unreachable("stopped"))) }
        socketPushes = [:]
        for subscriber in subscribers.values { subscriber.finish() }
        subscribers = [:]
    }

    /// Push and fetch everything once (what `crossmate sync` does). Returns what moved.
    public func syncOnce() async throws(ServerFailure) -> SyncReport {
        var report = SyncReport()
        let before = try? store.unsentCount()
        let messagesBefore = (try? store.unsentMessages().count) ?? 0
        try await refreshGameList(report: &report)
        for game in (try? store.games()) ?? [] {
            report.received += try await fetch(game.game.gameID)
        }
        try await drainPushes()
        report.sent = max(0, (before ?? 0) - ((try? store.unsentCount()) ?? 0))
        report.sentMessages = max(0, messagesBefore - ((try? store.unsentMessages().count) ?? 0))
        return report
    }

    public struct SyncReport: Sendable {
        /// Moves, and chat messages, that reached the server.
        public var sent = 0
        public var sentMessages = 0
        public var received = 0
        public var newGames: [String] = []
    }

    // MARK: Socket

    private func handle(_ event: SocketEvent) async {
        switch event {
        case .connected:
            setConnection(.online)
            // Moves shown before their commit may not have been stored (the server went down):
            // held apart until the fetches below have read what was.
            let unconfirmed = relayed
            relayed = [:]
            socket?.send(.relays)
            let games = ((try? store.games()) ?? []).map(\.game.gameID)
            for start in stride(from: 0, to: games.count, by: 200) {
                socket?.send(.subscribe(games: Array(games[start..<min(games.count, start + 200)])))
            }
            for (gameID, cursor) in cursorLast { socket?.send(.cursor(gameID: gameID, cursor: cursor)) }
            for gameID in viewed { socket?.send(.viewing(gameID: gameID, viewing: true)) }
            wake()
            var report = SyncReport()
            do {
                try await refreshGameList(report: &report)
                for game in (try? store.games()) ?? [] { _ = try await fetch(game.game.gameID) }
            } catch {
                logger.info("fetch after connecting failed", metadata: ["error": "\(error)"])
            }
            // A replica still showing a relayed move the store lacks reads the store again (read
            // first, every relayed letter blinked off until the fetch brought it back).
            for (gameID, held) in unconfirmed where !isStored(held.values, in: gameID) { readAgain(gameID) }
            kickPush()
        case let .disconnected(reason, _):
            logger.debug("socket closed", metadata: ["reason": "\(reason)"])
            if case .online = connection { setConnection(.offline(since: clock.local)) }
            for continuation in socketPushes.values { continuation.resume(returning: .failure(.unreachable(reason))) }
            socketPushes = [:]
            // Who is here is unknown until the socket is back (it is told again then).
            for gameID in present.keys where !(present[gameID] ?? []).isEmpty {
                present[gameID] = []
                cursors[gameID] = [:]
                emit(.cursorsChanged(gameID: gameID, cursors: []))
            }
        case let .message(message):
            await handle(message)
        }
    }

    private func handle(_ message: ServerSocketMessage) async {
        switch message {
        case let .poke(zone, token, after, changes):
            guard let local = try? store.game(zone) else { return }
            let held = local.token?.sequence ?? 0
            guard token.sequence > held else { return }
            if let changes, let after, after.sequence == held {
                apply(changes, gameID: zone)
                try? store.setChangeToken(token)
                settled(zone)
                await settleCompletion(zone)
            } else {
                _ = try? await fetch(zone)
            }
        case let .relay(zone, _, changes, committed):
            guard let local = try? store.game(zone) else { return }
            let held = local.token?.sequence ?? 0
            let fresh = changes.filter { $0.sequence > held && relayed[zone]?[$0.sequence] == nil }
            for change in fresh { relayed[zone, default: [:]][change.sequence] = change }
            // Shown in the open replica, not stored: they are not on disk yet.
            merge(Self.moves(in: fresh), gameID: zone)
            await commit(zone, through: committed.sequence)
        case let .cursor(gameID, deviceID, authorID, cursor):
            guard deviceID != identity.deviceID else { return }
            cursors[gameID, default: [:]][deviceID] = Self.peer(deviceID, authorID, cursor)
            // A device that moves its cursor is here, whatever was last said.
            if present[gameID]?.contains(where: { $0.deviceID == deviceID }) == false {
                present[gameID]?.append(PresentDevice(deviceID: deviceID, authorID: authorID))
            }
            emit(.cursorsChanged(gameID: gameID, cursors: peerCursors(gameID)))
        case let .here(gameID, devices):
            // Who shows the game now: a device that left takes its cursor with it, one that just
            // arrived (or was here when this one opened the game) shows where it last was.
            let others = devices.filter { $0.deviceID != identity.deviceID }
            // A device that arrived learns where this one is without waiting for it to move.
            let before = Set((present[gameID] ?? []).map(\.deviceID))
            if present[gameID] != nil, others.contains(where: { !before.contains($0.deviceID) }), let cursor = cursorLast[gameID] {
                socket?.send(.cursor(gameID: gameID, cursor: cursor))
            }
            present[gameID] = others
            var kept: [String: PeerCursor] = [:]
            for device in others {
                if let live = cursors[gameID]?[device.deviceID] {
                    kept[device.deviceID] = live
                } else if let cursor = device.cursor {
                    kept[device.deviceID] = Self.peer(device.deviceID, device.authorID, cursor)
                }
            }
            cursors[gameID] = kept
            emit(.cursorsChanged(gameID: gameID, cursors: peerCursors(gameID)))
        case .feed:
            var report = SyncReport()
            try? await refreshGameList(report: &report)
            emit(.accountChanged)
        case let .pong(serverTime):
            clock.observe(serverTime: serverTime)
        case let .pushed(id, _, response):
            socketPushes.removeValue(forKey: id)?.resume(returning: .success(response))
        case let .pushFailed(id, _, error, retryAfterSeconds):
            let status = error.error == .rateLimited ? 429 : error.error == .serverError ? 500 : 400
            socketPushes.removeValue(forKey: id)?.resume(
                returning: .failure(.refused(error, status: status, retryAfterSeconds: retryAfterSeconds)))
        case let .error(body):
            logger.warning("the server refused the socket", metadata: ["error": "\(body.message)"])
        case let .nudge(nudge):
            nudges[nudge.gameID, default: []].insert(nudge, at: 0)
            emit(.nudged(nudge))
        case let .nextGame(next):
            // The new game is fetched (the list learns of it) before a UI is told.
            var report = SyncReport()
            try? await refreshGameList(report: &report)
            emit(.nextGame(next))
        case .opened, .update, .applied, .refused, .replay, .closed:
            break  // answers to a browser's messages, which this engine does not send
        }
    }

    private static func peer(_ deviceID: String, _ authorID: String, _ cursor: CursorPosition) -> PeerCursor {
        PeerCursor(deviceID: deviceID, authorID: authorID, position: GridPosition(row: cursor.row, col: cursor.col), direction: cursor.direction)
    }

    public func peerCursors(_ gameID: String) -> [PeerCursor] {
        (cursors[gameID] ?? [:]).values.sorted { $0.deviceID < $1.deviceID }
    }

    /// The other accounts with a device showing the game now, as the server last said (none
    /// known while the socket is down).
    public func playersHere(_ gameID: String) -> Set<String> {
        Set((present[gameID] ?? []).map(\.authorID)).subtracting([identity.authorID])
    }

    /// Devices showing each game, as the server last said (`ServerSocketMessage.here`).
    private var present: [String: [PresentDevice]] = [:]

    // MARK: Games

    /// Whether each game was unread when the server last listed them (`GameSummary.unread`).
    public private(set) var unread: [String: Bool] = [:]
    /// Recent nudges to this account, per game, as the server last listed them.
    public private(set) var nudges: [String: [NudgeView]] = [:]
    /// Chat messages others wrote in each game since this account last looked (as the server
    /// last listed them).
    public private(set) var unreadMessages: [String: Int] = [:]

    /// Games this device shows on screen (the others see it is here, live, over the socket).
    private var viewed: Set<String> = []

    /// The game is on this device's screen, or no longer.
    public func viewing(_ gameID: String, _ on: Bool) {
        if on { viewed.insert(gameID) } else { viewed.remove(gameID) }
        socket?.send(.viewing(gameID: gameID, viewing: on))
    }

    /// This device enters a game (a ten-minute lease; entering again renews it) or leaves it,
    /// having shown everything through its change token. Returns the server's answer, or nil
    /// when it cannot be reached (presence is best effort: the lease runs out by itself).
    @discardableResult
    public func presence(_ gameID: String, entering: Bool) async -> PresenceResponse? {
        let shown = (try? store.game(gameID))?.token?.sequence ?? 0
        let answer = try? await api.presence(gameID: gameID, PresenceRequest(action: entering ? "enter" : "leave", readThrough: shown))
        if answer != nil {
            unread[gameID] = false
            unreadMessages[gameID] = 0
        }
        return answer
    }

    /// Learns the account's games from the server (new ones are loaded, removals turn read-only).
    private func refreshGameList(report: inout SyncReport) async throws(ServerFailure) {
        var cursor: GameListCursor?
        var changed = false
        repeat {
            let page = try await api.games(after: cursor)
            if cursor == nil, let restoredAt = page.restoredAt, (try? store.checkedRestore()) != restoredAt {
                // The server was restored from a backup since this device last looked: it may
                // lack moves this device saw acknowledged. Each game's last is sent again.
                let games = (try? store.recheckAcknowledged(replicaID: identity.deviceID)) ?? 0
                logger.notice("the server was restored from a backup: checking this device's moves", metadata: ["games": "\(games)"])
                try? store.setCheckedRestore(restoredAt)
                kickPush()
            }
            for summary in page.games {
                unread[summary.gameID] = summary.unread ?? false
                unreadMessages[summary.gameID] = summary.unreadMessages ?? 0
                nudges[summary.gameID] = summary.nudges ?? []
                let local = try? store.game(summary.gameID)
                if local == nil {
                    _ = try await fetch(summary.gameID)
                    report.newGames.append(summary.gameID)
                    socket?.send(.subscribe(games: [summary.gameID]))
                    changed = true
                }
                if summary.readOnly, local?.readOnly != true {
                    becomeReadOnly(summary.gameID, reason: "removed from the game")
                }
            }
            cursor = page.next
        } while cursor != nil
        if let friends = try? await api.friends() {
            let now = Set(friends.friends.filter(\.blocked).map(\.authorID))
            if now != blocked {
                blocked = now
                for gameID in unreadMessages.keys { emit(.chatChanged(gameID: gameID)) }
            }
        }
        if changed { emit(.gamesChanged) }
    }

    /// Fetches a game's changes since the local token (a game never seen: snapshot plus tail).
    /// Returns how many moves arrived.
    @discardableResult
    public func fetch(_ gameID: String) async throws(ServerFailure) -> Int {
        var received = 0
        var local = try? store.game(gameID)
        if local == nil || local?.token == nil {
            let loaded = try await api.snapshot(gameID: gameID)
            do {
                try store.saveGame(loaded.game, title: loaded.game.puzzle.title)
                if let snapshot = loaded.snapshot {
                    try store.saveSnapshot(gameID: gameID, zoneSeq: loaded.token.sequence, snapshot: snapshot)
                }
            } catch {
                logger.error("the local store failed", metadata: ["error": "\(error)"])
                throw .unreadable("the local store failed: \(error)")
            }
            apply(loaded.records, gameID: gameID)
            try? store.setChangeToken(loaded.token)
            local = try? store.game(gameID)
            emit(.gamesChanged)
        }
        var token = local?.token
        while true {
            let page: ChangesResponse
            do {
                page = try await api.changes(gameID: gameID, since: token)
            } catch {
                if let body = error.errorBody, body.error == .forbidden || body.error == .notFound {
                    becomeReadOnly(gameID, reason: body.message)
                    return received
                }
                throw error
            }
            received += apply(page.changes, gameID: gameID)
            try? store.setChangeToken(page.token)
            token = page.token
            settled(gameID)
            if !page.moreComing { break }
        }
        await settleCompletion(gameID)
        return received
    }

    /// Applies changes from the server: moves merged into the store and the open replica, the
    /// game record, participants and seals stored. Returns the moves applied.
    @discardableResult
    private func apply(_ changes: [ZoneChange], gameID: String) -> Int {
        var moves: [Move] = []
        var others = false
        var chatChanged = false
        var flagsChanged = false
        for change in changes {
            switch change.record {
            case let .move(record):
                if let move = try? record.move() { moves.append(move) }
            case let .game(record):
                try? store.saveGame(record, title: record.puzzle.title)
                others = true
            case let .participant(participant):
                try? store.saveParticipant(participant)
                if participant.authorID == identity.authorID, participant.revoked {
                    becomeReadOnly(gameID, reason: "removed from the game")
                }
                others = true
            case let .seal(seal):
                try? store.saveSeal(seal)
                others = true
            case let .pause(pause):
                try? store.savePause(pause)
            case let .message(message):
                try? store.saveMessage(message, sequence: change.sequence)
                chatChanged = true
            case let .reaction(reaction):
                if (try? store.saveReaction(reaction, sent: true)) == true { chatChanged = true }
            case let .flag(flag):
                if (try? store.saveFlag(flag, sent: true)) == true { flagsChanged = true }
            }
        }
        if !moves.isEmpty {
            do { try store.recordReceived(moves) } catch { logger.error("the local store failed", metadata: ["error": "\(error)"]) }
            if !merge(moves, gameID: gameID) { emit(.gridChanged(gameID: gameID, squares: [])) }
        }
        if others { emit(.gamesChanged) }
        if chatChanged { emit(.chatChanged(gameID: gameID)) }
        if flagsChanged { emit(.gridChanged(gameID: gameID, squares: [])) }
        return moves.count
    }

    /// Merges moves into the game's open replica, telling the UI of the squares that changed;
    /// false when the game has no replica open.
    @discardableResult
    private func merge(_ moves: [Move], gameID: String) -> Bool {
        guard var replica = replicas[gameID] else { return false }
        let before = replica.grid
        replica.receive(moves)
        replicas[gameID] = replica
        emitChanges(gameID: gameID, before: before, after: replica.grid, at: moves.map(\.position))
        return true
    }

    /// The moves among `changes` (other records left out).
    private static func moves(in changes: some Sequence<ZoneChange>) -> [Move] {
        changes.compactMap { change -> Move? in
            if case let .move(record) = change.record { try? record.move() } else { nil }
        }
    }

    /// The zone is on disk through `committed`: the relayed changes up to it are stored and the
    /// token moves on, when they follow on from the token without a gap; else the game is read
    /// (unless not `fetchingOnGap`: a push's answer, where the next poke or relay will tell).
    private func commit(_ gameID: String, through committed: Int64, fetchingOnGap: Bool = true) async {
        guard let held = (try? store.game(gameID))?.token?.sequence, committed > held else { return }
        var run: [ZoneChange] = []
        var next = held + 1
        while next <= committed {
            if let change = relayed[gameID]?[next] {
                run.append(change)
            } else if ownSaved[gameID]?.contains(next) != true {
                break
            }
            next += 1
        }
        guard next > committed else {
            if fetchingOnGap { _ = try? await fetch(gameID) }
            return
        }
        apply(run, gameID: gameID)
        try? store.setChangeToken(ChangeToken(zone: gameID, sequence: committed))
        settled(gameID)
        await settleCompletion(gameID)
    }

    /// Relayed changes the token has reached are stored now: they are dropped from those held.
    private func settled(_ gameID: String) {
        guard let token = (try? store.game(gameID))?.token?.sequence else { return }
        if let held = relayed[gameID] {
            let left = held.filter { $0.key > token }
            relayed[gameID] = left.isEmpty ? nil : left
        }
        if let own = ownSaved[gameID] {
            let left = own.filter { $0 > token }
            ownSaved[gameID] = left.isEmpty ? nil : left
        }
    }

    /// Whether every move among `changes` is in the store (by its replica and seq: a restarted
    /// server may have given its zone sequence to another record).
    private func isStored(_ changes: some Collection<ZoneChange>, in gameID: String) -> Bool {
        let moves = Self.moves(in: changes)
        guard !moves.isEmpty else { return true }
        let stored = Set(((try? store.moves(gameID: gameID)) ?? []).map { "\($0.replicaID):\($0.seq)" })
        return moves.allSatisfy { stored.contains("\($0.replicaID):\($0.seq)") }
    }

    /// Reads a game's replica again from the store (dropping what was only relayed, but for what
    /// is relayed now), telling the UI of every square that changed.
    private func readAgain(_ gameID: String) {
        guard let old = replicas.removeValue(forKey: gameID), var fresh = try? replica(gameID) else { return }
        fresh.receive(Self.moves(in: (relayed[gameID] ?? [:]).sorted { $0.key < $1.key }.map(\.value)))
        replicas[gameID] = fresh
        emitChanges(gameID: gameID, before: old.grid, after: fresh.grid, at: fresh.puzzle.letterPositions)
    }

    private func emitChanges(gameID: String, before: GameGrid, after: GameGrid, at positions: [GridPosition]) {
        var seen = Set<GridPosition>()
        var squares: [SquareChange] = []
        for position in positions where seen.insert(position).inserted && before.state(at: position) != after.state(at: position) {
            squares.append(SquareChange(position: position, authorID: after.state(at: position).cellAuthorID))
        }
        if !squares.isEmpty { emit(.gridChanged(gameID: gameID, squares: squares)) }
    }

    private func becomeReadOnly(_ gameID: String, reason: String) {
        guard let local = try? store.game(gameID), !local.readOnly else { return }
        try? store.setReadOnly(gameID)
        emit(.becameReadOnly(gameID: gameID, reason: reason))
    }

    /// When the game's record carries a completion this device has not adopted: the final grid
    /// comes with the latest snapshot (the one stored with the completion).
    private func settleCompletion(_ gameID: String) async {
        guard let local = try? store.game(gameID), let record = local.game.completion else { return }
        let completion = record.completion
        guard !adoptedFinal.contains(gameID) else { return }
        guard let loaded = try? await api.snapshot(gameID: gameID), let final = loaded.snapshot else { return }
        try? store.saveSnapshot(gameID: gameID, zoneSeq: loaded.token.sequence, snapshot: final)
        adoptedFinal.insert(gameID)
        if var replica = replicas[gameID] {
            let before = replica.grid
            replica.adopt(completion, finalGrid: final.grid)
            replicas[gameID] = replica
            emitChanges(gameID: gameID, before: before, after: replica.grid, at: replica.puzzle.letterPositions)
        }
        emit(.completed(gameID: gameID, completion: completion))
        kickPush()
    }

    private var adoptedFinal: Set<String> = []

    // MARK: Sessions

    /// Loads a game's replica from the local store (its own moves rebuild its journal, so undo
    /// and the next seq are exactly what they were before a restart).
    func replica(_ gameID: String) throws(SessionRefusal) -> GameReplica {
        if let replica = replicas[gameID] { return replica }
        guard let local = try? store.game(gameID) else { throw .unknownGame(gameID) }
        let moves = (try? store.moves(gameID: gameID)) ?? []
        let completion = local.game.completion?.completion
        let replica: GameReplica
        if let snapshot = try? store.snapshot(gameID: gameID) {
            replica = GameReplica(
                puzzle: local.game.puzzle, gameID: gameID, replicaID: identity.deviceID, authorID: identity.authorID,
                snapshot: snapshot.snapshot, moves: moves, completion: completion)
            if completion != nil { adoptedFinal.insert(gameID) }
        } else {
            replica = GameReplica(
                puzzle: local.game.puzzle, gameID: gameID, replicaID: identity.deviceID, authorID: identity.authorID,
                moves: moves, completion: completion)
        }
        replicas[gameID] = replica
        return replica
    }

    /// Opens a game for a UI.
    public func open(_ gameID: String) throws(SessionRefusal) -> GameSession {
        _ = try replica(gameID)
        return GameSession(engine: self, gameID: gameID)
    }

    /// Performs a command: the moves are in the local store before anyone hears of them.
    @discardableResult
    public func perform(_ command: Command, in gameID: String) throws(SessionRefusal) -> [Move] {
        var replica = try replica(gameID)
        if let local = try? store.game(gameID), local.readOnly { throw .readOnly(gameID) }
        let wasComplete = replica.completion != nil
        let before = replica.grid
        let moves: [Move]
        do { moves = try replica.perform(command, wallMillis: clock.now) } catch { throw .refused(error) }
        guard !moves.isEmpty else { return [] }
        do {
            try store.recordOwn(moves)
        } catch {
            // Not stored, so not made: the replica is left as it was.
            logger.error("the local store failed", metadata: ["error": "\(error)"])
            throw .refused(.invalidLetter("(the local store failed: \(error))"))
        }
        replicas[gameID] = replica
        emitChanges(gameID: gameID, before: before, after: replica.grid, at: moves.map(\.position))
        if !wasComplete, let completion = replica.completion { emit(.completed(gameID: gameID, completion: completion)) }
        emit(.status(status))
        kickPush()
        return moves
    }

    /// Writes a chat message: kept in the local store before anyone hears of it, sent when the
    /// server can be reached (a resend after a lost answer is the same message).
    @discardableResult
    public func send(message raw: String, in gameID: String) throws(SessionRefusal) -> ChatMessage {
        guard let local = try? store.game(gameID) else { throw .unknownGame(gameID) }
        if local.readOnly { throw .readOnly(gameID) }
        let text: String
        do { text = try Chat.text(raw) } catch { throw .invalidMessage(error.description) }
        let message = ChatMessage(
            gameID: gameID, authorID: identity.authorID, replicaID: identity.deviceID,
            messageID: Self.messageID(at: clock.local, using: &random), text: text, timestamp: HLCTimestamp(wallMillis: clock.now))
        do { try store.writeMessage(message) } catch { throw .invalidMessage("the local store failed: \(error)") }
        emit(.chatChanged(gameID: gameID))
        kickPush()
        return message
    }

    /// Flags the clue through `position` in `direction` for the other players (`on`), or takes
    /// this player's flag on it down: kept here first, sent when the server can be reached.
    public func flag(_ position: GridPosition, _ direction: Direction, on: Bool, in gameID: String) throws(SessionRefusal) {
        let replica = try replica(gameID)
        if let local = try? store.game(gameID), local.readOnly { throw .readOnly(gameID) }
        guard let clue = replica.puzzle.clue(containing: position, direction) else {
            throw .invalidMessage("no \(direction.rawValue) word goes through that square")
        }
        var flag = ClueFlag(
            gameID: gameID, authorID: identity.authorID, number: clue.number, direction: direction, on: on, timestamp: .zero)
        let held = ((try? store.flags(gameID: gameID)) ?? []).first { $0.key == flag.key }
        flag.timestamp = .after(held?.timestamp, now: clock.now)
        do { try store.saveFlag(flag, sent: false) } catch { throw .invalidMessage("the local store failed: \(error)") }
        emit(.gridChanged(gameID: gameID, squares: []))
        kickPush()
    }

    /// Gives (`on`) or takes back an emoji reaction to a message: kept here first, sent when
    /// the server can be reached.
    public func react(to messageKey: String, with emoji: String, on: Bool = true, in gameID: String) throws(SessionRefusal) {
        guard let local = try? store.game(gameID) else { throw .unknownGame(gameID) }
        if local.readOnly { throw .readOnly(gameID) }
        guard Chat.isReaction(emoji) else {
            throw .invalidMessage("a reaction is one emoji, such as \(Chat.quickReactions.joined(separator: " "))")
        }
        var reaction = Reaction(gameID: gameID, authorID: identity.authorID, messageKey: messageKey, emoji: emoji, on: on, timestamp: .zero)
        let held = ((try? store.reactions(gameID: gameID)) ?? []).first { $0.key == reaction.key }
        reaction.timestamp = .after(held?.timestamp, now: clock.now)
        do { try store.saveReaction(reaction, sent: false) } catch { throw .invalidMessage("the local store failed: \(error)") }
        emit(.chatChanged(gameID: gameID))
        kickPush()
    }

    /// A new message id: the device's time and 12 random letters and digits (an engine started
    /// again with the same seed does not repeat an id it gave before).
    static func messageID(at millis: Int64, using random: inout SeededRandomNumberGenerator) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String(millis, radix: 36) + "-" + String((0..<12).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
    }

    /// A game's conversation as this device shows it: in `Chat.ordered` order, without the
    /// messages of accounts this account blocked.
    public func conversation(_ gameID: String) -> [ChatLine] {
        let held = (try? store.messages(gameID: gameID)) ?? []
        let byKey = Dictionary(held.map { ($0.message.key, $0) }, uniquingKeysWith: { first, _ in first })
        let tallies = Chat.tallies((try? store.reactions(gameID: gameID)) ?? [], hiding: blocked)
        return Chat.shown(Chat.ordered(held.map(\.message)), hiding: blocked).compactMap { message in
            guard let entry = byKey[message.key] else { return nil }
            return ChatLine(message: message, sent: entry.sequence != nil, refusal: entry.refusal, reactions: tallies[message.key] ?? [])
        }
    }

    /// Moves this device's cursor: sent live over the socket, at most every 100 ms (the last
    /// position always goes).
    public func moveCursor(_ position: GridPosition, direction: Direction, in gameID: String) {
        cursorPending[gameID] = CursorPosition(row: position.row, col: position.col, direction: direction)
        let now = ContinuousClock.now
        if let sent = cursorSent[gameID], now - sent < cursorInterval {
            let delay = cursorInterval - (now - sent)
            Task { [weak self] in
                try? await Task.sleep(for: delay)
                await self?.flushCursor(gameID)
            }
            return
        }
        flushCursor(gameID)
    }

    private func flushCursor(_ gameID: String) {
        guard let cursor = cursorPending.removeValue(forKey: gameID) else { return }
        cursorSent[gameID] = .now
        cursorLast[gameID] = cursor
        socket?.send(.cursor(gameID: gameID, cursor: cursor))
    }

    /// The last cursor of each game, sent again when the socket (re)opens.
    private var cursorLast: [String: CursorPosition] = [:]

    /// The state a UI draws.
    public func view(_ gameID: String) throws(SessionRefusal) -> GameView {
        let replica = try replica(gameID)
        guard let local = try? store.game(gameID) else { throw .unknownGame(gameID) }
        return GameView(
            gameID: gameID, title: local.title, puzzle: replica.puzzle, grid: replica.grid, completion: replica.completion,
            canUndo: replica.canUndo && !local.readOnly, canRedo: replica.canRedo && !local.readOnly, readOnly: local.readOnly,
            players: (try? store.participants(gameID: gameID)) ?? [], cursors: peerCursors(gameID), me: identity.authorID,
            sealed: local.sealed, here: playersHere(gameID),
            flags: Flags.shown((try? store.flags(gameID: gameID)) ?? [], puzzle: replica.puzzle, grid: replica.grid, hiding: blocked))
    }

    /// What the finish and the clock count from the game's moves (`Tally`): the snapshot this
    /// device joined from, if any, and every move it holds beside it.
    private func tally(_ gameID: String) -> Tally {
        let moves = (try? store.moves(gameID: gameID)) ?? []
        guard let snapshot = try? store.snapshot(gameID: gameID) else { return Tally(moves) }
        return snapshot.snapshot.tally(adding: moves)
    }

    /// Seconds spent solving, by the shared clock's rule (`SolvingTime`).
    public func solvingSeconds(_ gameID: String) -> Int { solvingSeconds(gameID, tally: tally(gameID)) }

    private func solvingSeconds(_ gameID: String, tally: Tally) -> Int {
        let pauses = ((try? store.pauses(gameID: gameID)) ?? []).map(\.stamp)
        return SolvingTime.measure(moves: tally.stamps, pauses: pauses, end: replicas[gameID]?.completion?.at.wallMillis, now: clock.now)
            .seconds
    }

    /// The finished game's summary (`FinishSummary`: how it ended, the scores, the time, the
    /// line that tells it), as every device tells it; nil while it goes on.
    public func summary(_ gameID: String) throws(SessionRefusal) -> FinishSummary? {
        let replica = try replica(gameID)
        guard let completion = replica.completion else { return nil }
        let tally = tally(gameID)
        return FinishSummary(completion, finalGrid: replica.grid, tally: tally, seconds: solvingSeconds(gameID, tally: tally))
    }

    /// The replay of a finished game, once every device has sealed: fetches the game's whole
    /// history when this device holds only a snapshot of it.
    public func replay(_ gameID: String) async throws(SessionRefusal) -> ReplayAvailability {
        let replica = try replica(gameID)
        let puzzle = replica.puzzle
        func assemble() -> ReplayAvailability {
            ReplayAssembler.assemble(
                width: puzzle.width, height: puzzle.height, moves: try? store.moves(gameID: gameID),
                seals: (try? store.seals(gameID: gameID)) ?? [],
                removed: Set(((try? store.participants(gameID: gameID)) ?? []).filter(\.revoked).map(\.authorID)))
        }
        let first = assemble()
        guard case .waiting = first, replica.completion != nil else { return first }
        // Moves a snapshot covered were never fetched: read the zone from its start.
        var token: ChangeToken?
        while let page = try? await api.changes(gameID: gameID, since: token) {
            apply(page.changes, gameID: gameID)
            token = page.token
            if !page.moreComing { break }
        }
        return assemble()
    }

    // MARK: Pushing

    /// Starts the push loop if the engine is live and the loop is not running.
    private func kickPush() {
        guard socket != nil else { return }
        guard pushTask == nil else {
            wake()
            return
        }
        pushTask = Task { [weak self] in await self?.pushLoop() }
    }

    /// Waits until everything pushable is pushed (what `sync` does), or the server refuses.
    private func drainPushes() async throws(ServerFailure) {
        while let work = nextPushWork() {
            let outcome = await pushOnce(work)
            switch outcome {
            case .done: continue
            case let .wait(_, failure): throw failure
            }
        }
    }

    private enum PushWork {
        case moves(String, [Move])
        case seal(String, lastSeq: Int)
        case message(ChatMessage)
        case reaction(Reaction)
        case flag(ClueFlag)
    }

    private enum PushOutcome {
        case done
        case wait(Duration, ServerFailure)
    }

    private func nextPushWork() -> PushWork? {
        let readOnly = Set(((try? store.games()) ?? []).filter(\.readOnly).map(\.game.gameID))
        if let message = ((try? store.unsentMessages()) ?? []).first(where: { !readOnly.contains($0.gameID) }) {
            return .message(message)
        }
        if let reaction = ((try? store.unsentReactions()) ?? []).first(where: { !readOnly.contains($0.gameID) }) {
            return .reaction(reaction)
        }
        if let flag = ((try? store.unsentFlags()) ?? []).first(where: { !readOnly.contains($0.gameID) }) {
            return .flag(flag)
        }
        for local in (try? store.games()) ?? [] where !local.readOnly {
            let gameID = local.game.gameID
            if let unsent = try? store.unsent(gameID: gameID, limit: ProtocolLimits.maximumRecordsPerBatch), !unsent.isEmpty {
                // At most 2 MB: a batch ends before the move that would take it past.
                var bytes = 64
                let batch = unsent.enumerated().prefix { index, move in
                    bytes += MoveRecord(move).sortedJSON.utf8.count + 1
                    return index == 0 || bytes <= ProtocolLimits.maximumBatchBytes
                }.map(\.element)
                return .moves(gameID, batch)
            }
            if local.game.completion != nil, !local.sealed, adoptedFinal.contains(gameID) {
                let last = (try? store.acknowledgedThrough(gameID: gameID, replicaID: identity.deviceID)) ?? 0
                return .seal(gameID, lastSeq: last)
            }
        }
        return nil
    }

    private func pushLoop() async {
        defer { pushTask = nil }
        while !Task.isCancelled, let work = nextPushWork() {
            switch await pushOnce(work) {
            case .done:
                pushBackoff.reset()
                if case .throttled = connection { setConnection(socket?.isOpen == true ? .online : .offline(since: clock.local)) }
            case let .wait(delay, failure):
                if case let .refused(body, _, _) = failure, body.error == .rateLimited {
                    setConnection(.throttled(until: clock.local + Int64(delay.components.seconds * 1000)))
                } else if socket?.isOpen != true {
                    setConnection(.offline(since: clock.local))
                }
                await sleep(for: delay)
            }
        }
    }

    /// Sleeps, unless woken by a reconnect or new work.
    private func sleep(for delay: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            wakeUp = continuation
            Task { [weak self] in
                try? await Task.sleep(for: delay)
                await self?.wake()
            }
        }
    }

    private func wake() {
        wakeUp?.resume()
        wakeUp = nil
    }

    private func pushOnce(_ work: PushWork) async -> PushOutcome {
        switch work {
        case let .flag(flag):
            do {
                let answer = try await api.postFlag(
                    gameID: flag.gameID, PostFlagRequest(number: flag.number, direction: flag.direction, on: flag.on, timestamp: flag.timestamp))
                _ = try? store.saveFlag(flag, sent: true)
                _ = try? store.saveFlag(answer.flag, sent: true)
                emit(.gridChanged(gameID: flag.gameID, squares: []))
                return .done
            } catch {
                switch Self.socialRefusal(error) {
                case .restamp:
                    var restamped = flag
                    restamped.timestamp = HLCTimestamp(wallMillis: clock.now)
                    _ = try? store.saveFlag(restamped, sent: false)
                case let .forGood(reason):
                    logger.error("the server refused a flag", metadata: ["game": "\(flag.gameID)", "error": "\(reason)"])
                    _ = try? store.saveFlag(flag, sent: true)
                case nil: return failed(error, gameID: flag.gameID)
                }
                return .done
            }
        case let .reaction(reaction):
            do {
                let answer = try await api.postReaction(
                    gameID: reaction.gameID,
                    PostReactionRequest(messageKey: reaction.messageKey, emoji: reaction.emoji, on: reaction.on, timestamp: reaction.timestamp))
                // The server's answer is the one that decides (maybe another device's, later).
                _ = try? store.saveReaction(reaction, sent: true)
                _ = try? store.saveReaction(answer.reaction, sent: true)
                emit(.chatChanged(gameID: reaction.gameID))
                return .done
            } catch {
                switch Self.socialRefusal(error) {
                case .restamp:
                    var restamped = reaction
                    restamped.timestamp = HLCTimestamp(wallMillis: clock.now)
                    _ = try? store.saveReaction(restamped, sent: false)
                case let .forGood(reason):
                    logger.error("the server refused a reaction", metadata: ["game": "\(reaction.gameID)", "error": "\(reason)"])
                    _ = try? store.saveReaction(reaction, sent: true)
                    emit(.chatChanged(gameID: reaction.gameID))
                case nil: return failed(error, gameID: reaction.gameID)
                }
                return .done
            }
        case let .message(message):
            do {
                let answer = try await api.postMessage(
                    gameID: message.gameID, PostMessageRequest(messageID: message.messageID, text: message.text, timestamp: message.timestamp))
                try? store.markMessageSent(answer.message, sequence: answer.sequence)
                emit(.chatChanged(gameID: message.gameID))
                return .done
            } catch {
                switch Self.socialRefusal(error) {
                case .restamp:
                    var restamped = message
                    restamped.timestamp = HLCTimestamp(wallMillis: clock.now)
                    try? store.restampMessage(restamped)
                case let .forGood(reason):
                    // Kept, marked with the reason: nothing typed disappears without a word.
                    try? store.markMessageRefused(message, reason: reason)
                    emit(.chatChanged(gameID: message.gameID))
                case nil: return failed(error, gameID: message.gameID)
                }
                return .done
            }
        case let .seal(gameID, lastSeq):
            do {
                _ = try await api.seal(gameID: gameID, lastSeq: lastSeq)
                try? store.markSealed(gameID)
                try? store.saveSeal(Seal(gameID: gameID, replicaID: identity.deviceID, lastSeq: lastSeq))
                emit(.gamesChanged)
                return .done
            } catch {
                return failed(error, gameID: gameID)
            }
        case let .moves(gameID, batch):
            let result = await send(batch, to: gameID)
            switch result {
            case let .success(response):
                settle(response, batch: batch, gameID: gameID)
                // The answer comes after the commit: what was relayed up to it is stored now
                // (the server sends no separate notice to a socket it answered).
                await commit(gameID, through: response.token.sequence, fetchingOnGap: false)
                await settleCompletion(gameID)
                return .done
            case let .failure(error):
                return failed(error, gameID: gameID)
            }
        }
    }

    /// What a refusal of a message, reaction or flag means: send it again with a new stamp (the
    /// clock is already corrected by the answer's serverTime), or it is refused for good (too
    /// long, not an emoji, the chat full: sending it again cannot mend it), or nil: as any push,
    /// wait (the server busy or away) or stop writing the game (removed, gone).
    enum SocialRefusal: Equatable {
        case restamp
        case forGood(String)
    }

    static func socialRefusal(_ error: ServerFailure) -> SocialRefusal? {
        guard case let .refused(body, status, _) = error else { return nil }
        if body.error == .clockSkew { return .restamp }
        guard status < 500, ![.rateLimited, .readOnly, .forbidden, .notFound, .gone].contains(body.error) else { return nil }
        return .forGood(body.message)
    }

    private func failed(_ error: ServerFailure, gameID: String) -> PushOutcome {
        if case let .refused(body, status, retryAfter) = error {
            switch body.error {
            case .clockSkew:
                // The clock is corrected by the answer's serverTime already: restamp and resend.
                restampUnsent(gameID)
                return .done
            case .readOnly, .forbidden, .notFound, .gone:
                becomeReadOnly(gameID, reason: body.message)
                return .done
            case .rateLimited:
                return .wait(pushBackoff.next(atLeast: .seconds(retryAfter ?? 1)), error)
            default:
                if status >= 500 { return .wait(pushBackoff.next(atLeast: .seconds(retryAfter ?? 0)), error) }
                // A refusal that resending cannot mend (a limit, a malformed batch): the batch's
                // moves leave the outbox, named, so the rest can go.
                logger.error("the server refused a batch", metadata: ["game": "\(gameID)", "error": "\(body.message)"])
                for move in (try? store.unsent(gameID: gameID, limit: 1)) ?? [] {
                    try? store.markRefused(gameID: gameID, replicaID: move.replicaID, seq: move.seq)
                    emit(.moveRefused(gameID: gameID, seq: move.seq, reason: body.message))
                }
                return .done
            }
        }
        return .wait(pushBackoff.next(), error)
    }

    private func send(_ batch: [Move], to gameID: String) async -> Result<PushMovesResponse, ServerFailure> {
        let records = batch.map(MoveRecord.init)
        if let socket, socket.isOpen {
            let id = nextPushID
            nextPushID += 1
            let answer = await withCheckedContinuation { (continuation: CheckedContinuation<Result<PushMovesResponse, ServerFailure>, Never>) in
                socketPushes[id] = continuation
                if !socket.send(.push(gameID: gameID, id: id, moves: records)) {
                    socketPushes.removeValue(forKey: id)?.resume(returning: .failure(.unreachable("the socket closed")))
                    return
                }
                Task { [weak self] in
                    try? await Task.sleep(for: .seconds(30))
                    await self?.expirePush(id)
                }
            }
            return answer
        }
        do {
            return .success(try await api.push(gameID: gameID, moves: records))
        } catch {
            return .failure(error)
        }
    }

    private func expirePush(_ id: Int) {
        socketPushes.removeValue(forKey: id)?.resume(returning: .failure(.unreachable("no answer to a push within 30 s")))
    }

    /// Takes a push's per-record answers: acknowledged moves leave the outbox, refused ones are
    /// named; the change token moves on when the push's moves were the zone's only changes.
    private func settle(_ response: PushMovesResponse, batch: [Move], gameID: String) {
        var acknowledged = 0
        var sequences: [Int64] = []
        var resent = false
        for result in response.results {
            switch result.status {
            case .saved, .duplicate:
                acknowledged = max(acknowledged, result.seq)
                if result.status == .saved, let sequence = result.sequence { sequences.append(sequence) }
            case .rejected where resent:
                continue
            case .rejected:
                // The server's count of this device's moves is behind this device's own (it was
                // restored from a backup): the moves it lost go again, then the rest.
                if let next = result.nextSeq, next < result.seq, result.replicaID == identity.deviceID,
                    let count = try? store.resend(gameID: gameID, replicaID: result.replicaID, from: next), count > 0
                {
                    logger.notice(
                        "the server holds fewer of this device's moves than were acknowledged (restored from a backup?): sending them again",
                        metadata: ["game": "\(gameID)", "from": "\(next)", "moves": "\(count)"])
                    resent = true
                    continue
                }
                try? store.markRefused(gameID: gameID, replicaID: result.replicaID, seq: result.seq)
                emit(.moveRefused(gameID: gameID, seq: result.seq, reason: result.error?.message ?? "refused"))
            }
        }
        if acknowledged > 0 { try? store.markSent(gameID: gameID, replicaID: identity.deviceID, through: acknowledged) }
        if let held = try? store.game(gameID)?.token?.sequence, !sequences.isEmpty {
            ownSaved[gameID, default: []].formUnion(sequences.filter { $0 > held })
            sequences.sort()
            if sequences.first == held + 1, sequences.last == response.token.sequence,
                sequences.count == Int(response.token.sequence - held)
            {
                try? store.setChangeToken(response.token)
                settled(gameID)
            }
        }
        if let completion = response.completion {
            var local = try? store.game(gameID)
            if local?.game.completion == nil {
                local?.game.completion = completion
                if let local { try? store.saveGame(local.game, title: local.title) }
            }
        }
        emit(.status(status))
    }

    /// The server refused a batch as stamped too far ahead: this device's unsent moves of the
    /// game get new timestamps from the corrected clock (in the same order; nobody has seen
    /// them), and the replica is rebuilt from the store.
    private func restampUnsent(_ gameID: String) {
        guard let moves = try? store.moves(gameID: gameID), let unsent = try? store.unsent(gameID: gameID, limit: Int.max) else { return }
        let pendingIDs = Set(unsent.map { MoveID(replicaID: $0.replicaID, seq: $0.seq) })
        var hlc = HybridLogicalClock()
        for move in moves where !pendingIDs.contains(MoveID(replicaID: move.replicaID, seq: move.seq)) && move.timestamp.wallMillis <= clock.now {
            hlc.observe(move.timestamp)
        }
        let restamped = unsent.sorted { $0.seq < $1.seq }.map { move in
            var move = move
            move.timestamp = hlc.tick(wallMillis: clock.now)
            return move
        }
        try? store.restamp(restamped)
        logger.info("moves restamped after clock skew", metadata: ["game": "\(gameID)", "count": "\(restamped.count)"])
        if let before = replicas.removeValue(forKey: gameID)?.grid, let replica = try? replica(gameID) {
            emitChanges(gameID: gameID, before: before, after: replica.grid, at: restamped.map(\.position))
        }
    }
}
