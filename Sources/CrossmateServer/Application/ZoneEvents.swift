import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Logging
import Synchronization

/// What the write path tells the rest of the server, in the order it happened: one typed stream.
/// The write path (`GameWrites`) knows only this; the server's sink (`ZoneEventRouter`) hands each
/// event to whoever consumes it — this instance's sockets (the hub), the other instances (the
/// fan-out), the hosted browser replicas and the stats keeper — and a test can record them.
enum ZoneEvent: Sendable {
    /// Moves checked and ordered, not yet committed: to the sockets that take relays and the
    /// hosted replicas, a commit's fsync sooner (not to `exceptDevice`, which sent them).
    case ordered(game: String, saved: [SavedMove], exceptDevice: String)
    /// The group commit of a game's ordered moves failed: what was relayed is withdrawn.
    case notCommitted(game: String)
    /// For every instance's sockets.
    case everyone(FanoutEvent)
    /// For this instance's sockets now (inside a projection's fold, so in zone order); the
    /// other instances hear it with the `othersOnly` that follows.
    case hereNow(FanoutEvent)
    /// For the other instances only: this instance's sockets have it (`hereNow`).
    case othersOnly(FanoutEvent)
    /// Who shows the game now, with the stored cursors of its devices: told to its sockets.
    case whoIsHere(game: String, cursors: [String: CursorPosition])
    /// A player left a game: their sockets stop hearing of it.
    case left(game: String, authorID: String)
    /// A game finished: what it contributes to its players' stats is worked out.
    case finished(game: String)
    /// Something that may call players back to the game (`CallBack`, `PushNotifier`).
    case callBack(CallBackCandidate)
}

/// A nudge, chat message or moves that may call players back to a game: the notifier works out
/// whom (`CallBack.calls`).
struct CallBackCandidate: Sendable {
    var event: CallBack.Event
    var gameID: String
    var sender: String
    /// The zone sequence of the message or the newest move (0 for a nudge).
    var sequence: Int64
    /// A chat message's or nudge's words.
    var text: String? = nil
    /// The one player a nudge is for (nil: every player of the game).
    var recipient: String? = nil
}

/// Where `GameWrites` sends its events. Synchronous: an event is handed over, never waited on
/// (the fan-out to other instances queues it).
protocol ZoneEventSink: Sendable {
    func emit(_ event: ZoneEvent)
    /// Whether anyone here but `deviceID` hears of `game`'s moves once they are ordered, before
    /// their commit (a socket that takes relays, a hosted browser replica with a viewer): then
    /// `deviceID`'s push is ordered at once rather than with the rest of a commit window.
    func hearsBeforeCommit(_ game: String, exceptDevice deviceID: String) -> Bool
}

extension ZoneEventSink {
    func hearsBeforeCommit(_ game: String, exceptDevice deviceID: String) -> Bool { true }
}

/// The rules the write path holds every write to, beside the store's.
struct WriteRules: Sendable {
    /// How far ahead of the server's clock a stamp may be (`ServerConfiguration.maximumSkewMillis`).
    var maximumSkewMillis: Int64
    /// Messages, reactions and flags, per writing account (`Limits.chatMessage`).
    var chatLimiter = RateLimiter(Limits.chatMessage.perAccount!)
    /// When each device's cursor in each game was last stored.
    var cursors = CursorThrottle()
}

/// A device's cursor is stored at most every `millis` per game (it is a hint for who arrives
/// later, not a record), and its last one is stored: a cursor that arrives too soon after the
/// last store waits as the key's one pending cursor (a later one replaces it) until `millis` have
/// passed. Bounded memory: one time and at most one pending cursor per device and game.
final class CursorThrottle: Sendable {
    static let millis: Int64 = 5_000

    enum Verdict: Equatable {
        /// Store it now.
        case now
        /// Store what `takePending` gives after this many milliseconds (the first one held).
        case later(Int64)
        /// Held; a store is already coming for the key.
        case held
    }

    private struct Entry {
        var storedAt: Int64
        var pending: CursorPosition?
    }

    private let entries = Mutex([String: Entry]())

    /// What to do with the cursor of `deviceID` in `gameID` at `now`.
    func offer(_ cursor: CursorPosition, deviceID: String, gameID: String, now: Int64) -> Verdict {
        let key = deviceID + " " + gameID
        return entries.withLock { entries -> Verdict in
            guard let entry = entries[key], now - entry.storedAt < Self.millis else {
                if entries.count > 100_000 { entries.removeAll() }
                entries[key] = Entry(storedAt: now)
                return .now
            }
            let first = entry.pending == nil
            entries[key]?.pending = cursor
            return first ? .later(entry.storedAt + Self.millis - now) : .held
        }
    }

    /// The cursor held for the key, taken as stored at `now`; nil when none is held.
    func takePending(deviceID: String, gameID: String, now: Int64) -> CursorPosition? {
        let key = deviceID + " " + gameID
        return entries.withLock { entries in
            guard let pending = entries[key]?.pending else { return nil }
            entries[key] = Entry(storedAt: now)
            return pending
        }
    }
}

/// The server's sink: hands each event to its consumers — this instance's sockets (the hub), the
/// other instances (the fan-out), the hosted browser replicas and the stats keeper (`history`).
/// The replicas write through `GameWrites` themselves, so the router holds them weakly (attached
/// once built): nothing here keeps the write path alive in a circle.
final class ZoneEventRouter: ZoneEventSink {
    private let hub: SocketHub
    private let fanout: any Fanout
    private let history: HistoryReads
    private let notifier: PushNotifier?
    private let logger: Logger
    private let browsers = Mutex(WeakBrowsers())

    private struct WeakBrowsers {
        weak var host: BrowserHost?
    }

    init(hub: SocketHub, fanout: any Fanout, history: HistoryReads, notifier: PushNotifier? = nil, logger: Logger) {
        self.hub = hub
        self.notifier = notifier
        self.fanout = fanout
        self.history = history
        self.logger = logger
    }

    /// The hosted browser replicas hear of moves from now on.
    func attach(_ host: BrowserHost) {
        browsers.withLock { $0.host = host }
    }

    func hearsBeforeCommit(_ game: String, exceptDevice deviceID: String) -> Bool {
        hub.takesRelays(game, exceptDevice: deviceID) || browsers.withLock({ $0.host })?.isViewed(game) == true
    }

    func emit(_ event: ZoneEvent) {
        switch event {
        case let .ordered(game, saved, sender):
            browsers.withLock { $0.host }?.relay(gameID: game, saved)
            if let moves = InlineChanges(saved: saved) { hub.relay(game: game, moves, exceptDevice: sender) }
        case let .notCommitted(game):
            hub.relaysFailed(game: game)
            if let host = browsers.withLock({ $0.host }) { Task { await host.reload(gameID: game) } }
        case let .everyone(event):
            hub.deliver(event)
            fanout.forward(event)
        case let .hereNow(event):
            hub.deliver(event)
        case let .othersOnly(event):
            fanout.forward(event)
        case let .whoIsHere(game, cursors):
            let devices = hub.viewers(game).map { PresentDevice(deviceID: $0.deviceID, authorID: $0.authorID, cursor: cursors[$0.deviceID]) }
            hub.tell(.game(game), .here(gameID: game, devices: devices))
            fanout.shareViewers(of: game)
        case let .left(game, authorID):
            hub.dropSubscriptions(authorID: authorID, game: game)
        case let .callBack(candidate):
            notifier?.consider(candidate)
        case let .finished(game):
            Task { [history, logger] in
                do { _ = try await history.finishedGame(game) } catch {
                    logger.error("a finished game's stats could not be kept", metadata: ["game": "\(game)", "error": "\(error)"])
                }
            }
        }
    }
}
