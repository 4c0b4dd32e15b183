import CrossmateProtocol

/// This device's cursor in each game, as it goes to the others: at most one every `interval` per
/// game, and always the last one (held until the interval is over); the last one sent is kept to
/// say again when the socket reopens or someone arrives. One job, apart from the engine's others.
struct OutgoingCursors {
    let interval = Duration.milliseconds(100)
    private var sentAt: [String: ContinuousClock.Instant] = [:]
    private var pending: [String: CursorPosition] = [:]
    /// The last cursor sent in each game.
    private(set) var last: [String: CursorPosition] = [:]

    /// A cursor moved at `now`: nil when it may go now (`take` it), else how long to wait first.
    mutating func moved(_ cursor: CursorPosition, in gameID: String, now: ContinuousClock.Instant) -> Duration? {
        pending[gameID] = cursor
        guard let sent = sentAt[gameID], now - sent < interval else { return nil }
        return interval - (now - sent)
    }

    /// The cursor waiting in `gameID`, taken to send at `now` (nil when none waits).
    mutating func take(_ gameID: String, now: ContinuousClock.Instant) -> CursorPosition? {
        guard let cursor = pending.removeValue(forKey: gameID) else { return nil }
        sentAt[gameID] = now
        last[gameID] = cursor
        return cursor
    }
}
