import CrossmateProtocol
import CrossmateStore
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// A fact as it goes between instances (`FanoutEvent(fact)`, `fact`), and what the fan-out says
/// of its own (viewers, roll calls).
enum FanoutEvent: Codable, Sendable {
    /// `exceptDevice`: the device that made the change, which knows it from its response.
    /// `inline`: the changes themselves, when they are few.
    case poke(game: String, sequence: Int64, exceptDevice: String? = nil, inline: InlineChanges? = nil)
    case feed(authorID: String, sequence: Int64)
    case cursor(game: String, deviceID: String, authorID: String, cursor: CursorPosition)
    /// A device was signed out or revoked: its token is forgotten and its sockets close.
    case deviceRevoked(deviceID: String)
    /// Messages for one account's sockets, wherever they are: a nudge, the next puzzle started
    /// with it.
    case nudge(authorID: String, nudge: NudgeView)
    case nextGame(authorID: String, next: NextGameView)
    /// The devices that show `game` on `instance`, for `ttlMillis` from when it is heard (an
    /// empty list: none any more). Said when they change and again every `viewersEvery`.
    case viewers(game: String, instance: String, devices: [RemoteViewers.Viewer], ttlMillis: Int64)
    /// `instance` (re)started listening: every instance says its viewers now.
    case rollCall(instance: String)
}

/// Several instances on one PostgreSQL: this instance's facts go to the others through NOTIFY,
/// and theirs are published here (`Facts`, from `.elsewhere`). Each instance holds one LISTEN
/// connection; after (re)connecting it re-reads the zone sequence of every game watched or
/// cached here and tells what it missed.
///
/// Outgoing events wait in an outbox for one sender, which packs whatever has gathered into as
/// few notifications as fit and sends them in one statement: a NOTIFY per event cost PostgreSQL a
/// transaction each and every instance a wake-up each, and a push's answer waited for it. Nobody
/// waits for the sender now (pokes are hints: a device that misses one fetches on its next poke or
/// reconnect), and one sender keeps this instance's events in order.
final class PostgresFanout: Service {
    static let channel = "crossmate_events"
    /// PostgreSQL refuses payloads of 8,000 bytes or more.
    static let maximumPayload = 7_900

    /// This instance's sockets: who shows each game here, and what they were last poked.
    let hub: SocketHub
    /// Where the other instances' facts are published here, as this instance's own are.
    let facts: Facts
    let database: PostgresSQLDatabase
    let store: Store
    /// This instance's game projections: after a reconnect, each catches up.
    let directory: GameDirectory
    let instance = UUID().uuidString
    let logger: Logger
    private let outbox = Mutex<[FanoutEvent]>([])
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation
    /// What a consumer of heard events may fall behind by: past it, it loses the oldest.
    static let heardBuffered = 4_096
    /// Games whose viewers on the other instances changed (heard, or expired): this instance's
    /// sockets and browser rosters are told again (`RemotePresence`).
    let presenceHeard: AsyncStream<String>
    private let presenceSink: AsyncStream<String>.Continuation
    /// What this instance last said of each game's viewers (games with none are left out).
    private let viewersSaid = Mutex([String: Set<RemoteViewers.Viewer>]())
    /// How often an instance says its viewers again; what it said holds three times as long, so
    /// a dead instance's players count as here for at most that (`ServerConfiguration.viewersEvery`).
    let viewersEvery: Duration
    var viewersHold: Duration { viewersEvery * 3 }

    init(
        hub: SocketHub, facts: Facts, database: PostgresSQLDatabase, store: Store, directory: GameDirectory, viewersEvery: Duration = .seconds(10),
        logger: Logger
    ) {
        self.viewersEvery = viewersEvery
        self.hub = hub
        self.facts = facts
        self.database = database
        self.store = store
        self.directory = directory
        self.logger = logger
        (doorbell, ring) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        (presenceHeard, presenceSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(Self.heardBuffered))
    }

    func shareViewers(of game: String) {
        let now = hub.localViewers(game)
        let changed = viewersSaid.withLock { said in
            guard (said[game] ?? []) != now else { return false }
            said[game] = now.isEmpty ? nil : now
            return true
        }
        if changed { forward(viewersEvent(game, now)) }
    }

    private func viewersEvent(_ game: String, _ viewers: Set<RemoteViewers.Viewer>) -> FanoutEvent {
        .viewers(
            game: game, instance: instance, devices: viewers.sorted { $0.deviceID < $1.deviceID },
            ttlMillis: viewersHold.inMilliseconds)
    }

    /// Says again every game's viewers here, so the others' record of them does not lapse;
    /// forgets what the others said that has lapsed (a dead instance's players).
    private func sayViewersAgain() {
        for (game, viewers) in viewersSaid.withLock({ $0 }) { forward(viewersEvent(game, viewers)) }
        for game in hub.remote.expire() { presenceSink.yield(game) }
    }

    /// Every `viewersEvery`, until the server stops.
    private func keepViewersSaid() async {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do { try await Task.sleep(for: viewersEvery) } catch { return }
            sayViewersAgain()
        }
    }

    /// Events the outbox holds at most, while PostgreSQL is slow or away; past it the cursors go
    /// first (they are stale by the next one), then the oldest half (pokes are hints, and a
    /// device that reconnects fetches what it missed). A flood of cursors cannot push pokes out.
    static let maximumWaiting = 10_000

    func forward(_ event: FanoutEvent) {
        if outbox.withLock({ Self.enqueue(event, into: &$0) }) { ring.yield() }
    }

    /// Adds `event` to `events` within `maximumWaiting`; true when the outbox was empty before.
    static func enqueue(_ event: FanoutEvent, into events: inout [FanoutEvent]) -> Bool {
        if events.count >= maximumWaiting {
            events.removeAll { if case .cursor = $0 { true } else { false } }
            if events.count >= maximumWaiting / 2 { events.removeFirst(events.count - maximumWaiting / 2) }
        }
        events.append(event)
        return events.count == 1
    }

    /// Notification payloads for `events`: the sending instance, a space, and a JSON array of
    /// events, each payload under `maximumPayload` bytes, in the events' order. A poke whose
    /// inline changes would not fit goes plainly (its devices fetch the changes).
    static func payloads(for events: [FanoutEvent], instance: String) -> [String] {
        let encoder = JSONEncoder()
        let room = maximumPayload - instance.utf8.count - 3
        var payloads: [String] = []
        var batch: [String] = []
        var size = 0
        func flush() {
            if !batch.isEmpty { payloads.append("\(instance) [\(batch.joined(separator: ","))]") }
            batch = []
            size = 0
        }
        for event in events {
            guard var json = try? String(decoding: encoder.encode(event), as: UTF8.self) else { continue }
            if json.utf8.count > room, case let .poke(game, sequence, exceptDevice, _) = event {
                guard let plain = try? encoder.encode(FanoutEvent.poke(game: game, sequence: sequence, exceptDevice: exceptDevice)) else { continue }
                json = String(decoding: plain, as: UTF8.self)
            }
            guard json.utf8.count <= room else { continue }
            if size + json.utf8.count + 1 > room { flush() }
            batch.append(json)
            size += json.utf8.count + 1
        }
        flush()
        return payloads
    }

    /// The events of a payload, or nil when it is this instance's own (or not one of ours).
    static func events(in payload: String, except instance: String) -> [FanoutEvent]? {
        guard let space = payload.firstIndex(of: " "), payload[..<space] != instance else { return nil }
        return try? JSONDecoder().decode([FanoutEvent].self, from: Data(payload[payload.index(after: space)...].utf8))
    }

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.send() }
            group.addTask { await self.listen() }
            group.addTask { await cancelWhenGracefulShutdown { await self.keepViewersSaid() } }
        }
    }

    /// Sends what the outbox holds each time it fills from empty, and once more at shutdown.
    private func send() async {
        for await _ in doorbell.cancelOnGracefulShutdown() {
            await sendWaiting()
        }
        await sendWaiting()
    }

    private func sendWaiting() async {
        let events = outbox.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
        guard !events.isEmpty else { return }
        do {
            try await database.notify(channel: Self.channel, payloads: Self.payloads(for: events, instance: instance))
        } catch {
            // Other instances' clients still fetch on their next poke or reconnect.
            logger.warning("NOTIFY failed", metadata: ["error": "\(String(reflecting: error))", "events": "\(events.count)"])
        }
    }

    /// Listens for the other instances' events, reconnecting while PostgreSQL is away. The log
    /// says once that the connection was lost (with why) and once that it is back, with how many
    /// tries it took; not every try.
    private func listen() async {
        var attempt = 0
        var lostAt: ContinuousClock.Instant?
        // Before the first connection, a database that cannot be used is told by the check at
        // start-up (`PostgresSQLDatabase.preflight`), once; this loop stays quiet.
        var connected = false
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: database.connectionConfiguration, id: attempt, logger: logger)
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: Self.channel) { notifications in
                    if let since = lostAt {
                        logger.notice(
                            "listening to the other instances again after \(since.duration(to: .now).components.seconds) s and \(attempt) tries")
                        lostAt = nil
                    }
                    attempt = 0
                    connected = true
                    await catchUp()
                    // What the others said while this one was not listening is unknown: ask.
                    forward(.rollCall(instance: instance))
                    sayViewersAgain()
                    for try await notification in notifications.cancelOnGracefulShutdown() {
                        for event in Self.events(in: notification.payload, except: instance) ?? [] {
                            switch event {
                            case let .viewers(game, from, devices, ttl):
                                let hold = Duration.milliseconds(min(max(ttl, 0), viewersHold.inMilliseconds))
                                if hub.remote.heard(Set(devices), of: game, from: from, ttl: hold) {
                                    presenceSink.yield(game)
                                }
                                continue
                            case .rollCall:
                                sayViewersAgain()
                                continue
                            default: break
                            }
                            if let fact = event.fact { facts.publish(fact, from: .elsewhere) }
                        }
                    }
                }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                if connected, lostAt == nil {
                    lostAt = .now
                    logger.warning(
                        "lost the connection that hears the other instances (\(DatabaseTrouble.sentence(for: error))); reconnecting quietly")
                }
            }
            attempt += 1
            try? await Task.sleep(for: .milliseconds(min(2_000, 100 * attempt)))
        }
    }

    /// After a (re)connect: every game watched or cached here whose zone moved on while we were
    /// not listening is told as the others' write it was (its sockets are poked, its projection
    /// and replicas catch up).
    private func catchUp() async {
        for game in Set(hub.watchedGames).union(directory.cachedGames) {
            do {
                guard let stored = try await store.game(game) else { continue }
                if stored.zoneSeq > hub.lastPoked(game) { facts.publish(.zoneChanged(game: game, sequence: stored.zoneSeq), from: .elsewhere) }
            } catch {
                logger.warning("catching up a game failed", metadata: ["game": "\(game)", "error": "\(error)"])
            }
        }
    }
}

/// Tells this instance's devices again who shows a game, when the viewers on the other instances
/// changed (`PostgresFanout.presenceHeard`).
struct RemotePresence: Service {
    let heard: AsyncStream<String>
    let writes: GameWrites

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await game in heard { await writes.announceHere(game) }
        }
    }
}

/// The other instances hear what happened here that their devices show: the fan-out forwards
/// this instance's facts (not those it heard from them), and says who shows a game here when
/// that changed.
extension PostgresFanout: FactListener {
    func hear(_ fact: Fact, from origin: Origin) {
        guard origin == .here else { return }
        if case let .presenceChanged(game, _) = fact { return shareViewers(of: game) }
        if let event = FanoutEvent(fact) { forward(event) }
    }
}

extension FanoutEvent {
    /// The event that carries `fact` to the other instances; nil for a fact only this instance
    /// acts on (moves before their commit, a finish, a call-back, a leave, an account's
    /// colours) or shares its own way (presence, `shareViewers`).
    init?(_ fact: Fact) {
        switch fact {
        case let .zoneChanged(game, sequence, sender, inline): self = .poke(game: game, sequence: sequence, exceptDevice: sender, inline: inline)
        case let .feedChanged(authorID, sequence): self = .feed(authorID: authorID, sequence: sequence)
        case let .cursorMoved(game, deviceID, authorID, cursor): self = .cursor(game: game, deviceID: deviceID, authorID: authorID, cursor: cursor)
        case let .deviceRevoked(deviceID): self = .deviceRevoked(deviceID: deviceID)
        case let .nudged(authorID, nudge): self = .nudge(authorID: authorID, nudge: nudge)
        case let .nextGame(authorID, next): self = .nextGame(authorID: authorID, next: next)
        // An account's colours redraw in the browsers hosted where it changed them.
        case .movesOrdered, .notCommitted, .presenceChanged, .left, .finished, .mayCallBack, .accountChanged: return nil
        }
    }

    /// The fact an event heard from another instance tells here; nil for what only the fan-out
    /// keeps (viewers, roll calls).
    var fact: Fact? {
        switch self {
        case let .poke(game, sequence, exceptDevice, inline): .zoneChanged(game: game, sequence: sequence, sender: exceptDevice, inline: inline)
        case let .feed(authorID, sequence): .feedChanged(authorID: authorID, sequence: sequence)
        case let .cursor(game, deviceID, authorID, cursor): .cursorMoved(game: game, deviceID: deviceID, authorID: authorID, cursor: cursor)
        case let .deviceRevoked(deviceID): .deviceRevoked(deviceID: deviceID)
        case let .nudge(authorID, nudge): .nudged(authorID: authorID, nudge: nudge)
        case let .nextGame(authorID, next): .nextGame(authorID: authorID, next: next)
        case .viewers, .rollCall: nil
        }
    }
}

/// Hands the other instances' writes to the write path, which folds them into this instance's
/// projections and stores a completion one notices (`GameWrites.heard`). A queue of its own: the
/// fold awaits, and a listener never makes the publisher wait. Falling behind loses the oldest
/// (a projection that misses one catches up from the store on the next write).
final class RemoteWrites: Service, FactListener {
    /// Another instance's write: its game, the zone's sequence after it, its changes when few.
    private typealias Write = (game: String, sequence: Int64, inline: InlineChanges?)
    private let writes: GameWrites
    private let heard: AsyncStream<Write>
    private let sink: AsyncStream<Write>.Continuation

    init(writes: GameWrites) {
        self.writes = writes
        (heard, sink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(PostgresFanout.heardBuffered))
    }

    func hear(_ fact: Fact, from origin: Origin) {
        if case let .zoneChanged(game, sequence, _, inline) = fact, origin == .elsewhere { sink.yield((game, sequence, inline)) }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown { [heard, writes] in
            for await write in heard { await writes.heard(write.game, through: write.sequence, inline: write.inline) }
        }
    }
}
