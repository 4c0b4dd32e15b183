import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import Logging
import Synchronization

/// The sync engine a native app embeds (CKSyncEngine's role): a local store first, one push in
/// flight (over the socket when it is open, HTTP otherwise), fetches on start, reconnect and
/// poke, and a stream of events for the UI.
public actor SyncEngine {
    public nonisolated let store: ClientStore
    public nonisolated let identity: Identity
    let clock: ServerClock
    let api: ServerAPI
    var serverAPI: ServerAPI { api }
    let logger: Logger
    var socket: SocketLink?
    var socketTask: Task<Void, Never>?
    var replicas: [String: GameReplica] = [:]
    /// Each game's zone beyond its token: changes relayed before their commit, and the sequences
    /// this device's own saved moves took (`AheadOfTheToken`).
    var ahead = AheadOfTheToken()
    var cursors: [String: [String: PeerCursor]] = [:]
    var subscribers: [UUID: AsyncStream<EngineEvent>.Continuation] = [:]
    var connection: SyncStatus.Connection
    var random: SeededRandomNumberGenerator

    // Pushing: one loop, one batch in flight.
    var pushTask: Task<Void, Never>?
    var pushBackoff: Backoff
    var wakeUp = WakeUp()
    /// The pushes sent over the socket and waiting for their answers (`AwaitedPushes`).
    var awaited = AwaitedPushes()

    /// This device's cursors as they go to the others (`OutgoingCursors`).
    var outgoingCursors = OutgoingCursors()
    // Chat: the accounts this one blocked (their messages are not shown).
    var blocked: Set<String> = []

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

    /// Devices showing each game, as the server last said (`ServerSocketMessage.here`).
    var present: [String: [PresentDevice]] = [:]
    /// Whether each game was unread when the server last listed them (`GameSummary.unread`).
    public internal(set) var unread: [String: Bool] = [:]
    /// Recent nudges to this account, per game, as the server last listed them.
    public internal(set) var nudges: [String: [NudgeView]] = [:]
    /// Chat messages others wrote in each game since this account last looked (as the server
    /// last listed them).
    public internal(set) var unreadMessages: [String: Int] = [:]
    /// Games this device shows on screen (the others see it is here, live, over the socket).
    var viewed: Set<String> = []
    var adoptedFinal: Set<String> = []

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

    func unsubscribe(_ id: UUID) { subscribers[id] = nil }

    func emit(_ event: EngineEvent) {
        for subscriber in subscribers.values { subscriber.yield(event) }
    }

    public var status: SyncStatus {
        SyncStatus(connection: connection, unsent: (try? store.unsentCount()) ?? 0)
    }

    func setConnection(_ new: SyncStatus.Connection) {
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
        awaited.failAll("stopped")
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
}
