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
