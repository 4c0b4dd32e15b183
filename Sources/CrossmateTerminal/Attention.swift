import CrossmateCore
import CrossmateSync

/// Whether the player is in front of the game, as a terminal can tell: one that reports its
/// focus (CSI ?1004) and loses it is away once `Presence.awayGraceMillis` has gone by, as a
/// hidden page is, and back as soon as it has the focus again. Away, the bell is this device's
/// call-back, rung by the rule every notifier applies (`CallBack`): a nudge, a chat message, a
/// friend's moves (at most once in `CallBack.movesIntervalMillis`), each as the account's
/// settings want. In front, only a nudge rings it. Pure: time comes in as `now`.
public struct Attention: Sendable {
    public enum Change: Hashable, Sendable {
        /// Out of sight past the grace: the device leaves the game (the others see it go, and
        /// the account's other devices are called back).
        case away
        /// In front again after being away: the device enters the game again.
        case back
    }

    public private(set) var isAway = false
    public let grace: Int64
    private var unfocusedSince: Int64?
    private var lastCalledForMoves: Int64?

    public init(grace: Int64 = Presence.awayGraceMillis) {
        self.grace = grace
    }

    /// The terminal gained or lost the focus.
    public mutating func focus(_ focused: Bool, now: Int64) -> Change? {
        guard focused else {
            if unfocusedSince == nil { unfocusedSince = now }
            return nil
        }
        unfocusedSince = nil
        guard isAway else { return nil }
        isAway = false
        return .back
    }

    /// Time passed (the loop's clock ticks each second): away once the grace is over.
    public mutating func tick(now: Int64) -> Change? {
        guard !isAway, let since = unfocusedSince, now - since >= grace else { return nil }
        isAway = true
        return .away
    }

    /// Whether `event`, caused by `sender`, rings the bell for `me` now.
    public mutating func rings(
        _ event: CallBack.Event, from sender: AuthorID, to me: AuthorID, settings: CallBack.Settings, blocked: Set<AuthorID>, now: Int64
    ) -> Bool {
        guard isAway else { return event == .nudge && sender != me && !blocked.contains(sender) }
        let facts = CallBack.Facts(
            event: event, sender: sender, recipient: me, blocked: blocked, settings: settings, sequence: 1, lastCalledForMoves: lastCalledForMoves)
        guard CallBack.calls(facts, now: now) else { return false }
        if event == .moves { lastCalledForMoves = now }
        return true
    }
}
