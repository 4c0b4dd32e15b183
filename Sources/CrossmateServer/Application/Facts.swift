import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Logging
import ServiceLifecycle
import Synchronization

/// What happened, as the write path tells it, with the device that did it where there is one.
/// A fact names no audience: the write path publishes it (`Facts.publish`) and each listener
/// decides for itself what it does with it — the sockets here, the other instances, the hosted
/// browser replicas, the push notifier, the stats keeper.
enum Fact: Sendable {
    /// Moves checked and ordered, not yet committed (published only when some listener hears
    /// of moves before their commit, `FactListener.hearsBeforeCommit`).
    case movesOrdered(game: String, saved: [SavedMove], sender: String)
    /// The group commit of a game's ordered moves failed: what was shown of them is withdrawn.
    case notCommitted(game: String)
    /// The game's zone is committed through `sequence`: moves, a record, a completion. `sender`,
    /// the device that wrote (it knows from its answer); `inline`, the changes themselves when
    /// they end the zone and are few.
    case zoneChanged(game: String, sequence: Int64, sender: String? = nil, inline: InlineChanges? = nil)
    /// An account's list of games changed (a game added, left, read, a nudge).
    case feedChanged(authorID: String, sequence: Int64)
    /// A device's cursor moved.
    case cursorMoved(game: String, deviceID: String, authorID: String, cursor: CursorPosition)
    /// Who shows the game changed, with the stored cursors of its devices.
    case presenceChanged(game: String, cursors: [String: CursorPosition])
    /// A player left the game.
    case left(game: String, authorID: String)
    /// The game finished.
    case finished(game: String)
    /// A device was signed out or revoked.
    case deviceRevoked(deviceID: String)
    /// A player nudged `authorID`.
    case nudged(authorID: String, nudge: NudgeView)
    /// The next puzzle was started with `authorID` in it.
    case nextGame(authorID: String, next: NextGameView)
    /// An account's decisions or preferences changed (blocks, pins, colour).
    case accountChanged(authorID: String)
    /// A nudge, chat message or moves that may call players back to the game.
    case mayCallBack(CallBackCandidate)
}

/// Where a fact happened: on this instance, or on another one (heard through the fan-out).
enum Origin: Sendable {
    case here
    case elsewhere
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

/// Hears every fact, in the order published, and decides for itself what it does with one.
/// Synchronous: a listener hands work on (to a socket's event loop, a queue, a task) and never
/// makes the publisher wait.
protocol FactListener: Sendable {
    func hear(_ fact: Fact, from origin: Origin)
    /// Whether this listener shows `game`'s moves from anyone but `deviceID` before their commit
    /// (then they are ordered at once, not with the rest of a commit window, and published as
    /// `movesOrdered`).
    func hearsBeforeCommit(_ game: String, exceptDevice deviceID: String) -> Bool
}

extension FactListener {
    func hearsBeforeCommit(_ game: String, exceptDevice deviceID: String) -> Bool { false }
}

/// The one ordered list of listeners, and the one place facts are published: this instance's
/// writes (`GameWrites`) and the other instances' (`PostgresFanout`) alike. The list is made at
/// the composition root (`buildApplication`) before the server serves, and let go when it stops
/// (the replicas it holds write through the write path that publishes here).
final class Facts: Service {
    private let listeners: Mutex<[any FactListener]>

    init(_ listeners: [any FactListener] = []) {
        self.listeners = Mutex(listeners)
    }

    /// Adds listeners at the end of the list (before the server serves).
    func listen(_ more: [any FactListener]) {
        listeners.withLock { $0 += more }
    }

    func publish(_ fact: Fact, from origin: Origin = .here) {
        for listener in listeners.withLock({ $0 }) { listener.hear(fact, from: origin) }
    }

    func hearsBeforeCommit(_ game: String, exceptDevice deviceID: String) -> Bool {
        listeners.withLock { $0 }.contains { $0.hearsBeforeCommit(game, exceptDevice: deviceID) }
    }

    /// Until the server stops; then nobody hears any more.
    func run() async throws {
        try? await gracefulShutdown()
        listeners.withLock { $0 = [] }
    }
}

/// Works out what a finished game contributes to its players' stats, in the background, so no
/// stats request reads its history.
struct StatsKeeper: FactListener {
    let history: HistoryReads
    let logger: Logger

    func hear(_ fact: Fact, from origin: Origin) {
        guard case let .finished(game) = fact else { return }
        Task { [history, logger] in
            do { _ = try await history.finishedGame(game) } catch {
                logger.error("a finished game's stats could not be kept", metadata: ["game": "\(game)", "error": "\(error)"])
            }
        }
    }
}

/// What the server keeps in memory past its use and lets go on a timer (`Housekeeping`).
protocol IdleSweeper: Sendable {
    func sweepIdle(now: Int64)
}
