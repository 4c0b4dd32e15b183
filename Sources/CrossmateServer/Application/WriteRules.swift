import CrossmateCore
import CrossmateProtocol
import Synchronization

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
