import CrossmateCore

/// When a player is called back to a game (ARCHITECTURE.md, "Presence and read horizons"): the
/// one rule every notifier applies — the server's Web Push, an Apple app's APNs, the terminal's
/// marks and bell. Pure: the caller gathers the facts, time comes in as `now`.
public enum CallBack {
    /// What happened, as a recipient would be told of it.
    public enum Event: String, Codable, Hashable, Sendable {
        /// Another player nudged this player.
        case nudge
        /// A chat message in a game.
        case chat
        /// Another player's moves in a game.
        case moves
    }

    /// Which events an account wants to be called back for (`notify-nudges`, `notify-chat`,
    /// `notify-moves`); each on unless turned off.
    public struct Settings: Codable, Hashable, Sendable {
        public var nudges: Bool
        public var chat: Bool
        public var moves: Bool

        public init(nudges: Bool = true, chat: Bool = true, moves: Bool = true) {
            self.nudges = nudges
            self.chat = chat
            self.moves = moves
        }

        public func wants(_ event: Event) -> Bool {
            switch event {
            case .nudge: nudges
            case .chat: chat
            case .moves: moves
            }
        }
    }

    /// Moves call a player back to one game at most once in this long (the session nudge).
    public static let movesIntervalMillis: Int64 = 600_000

    /// What the rule needs to know about one recipient and one event.
    public struct Facts: Sendable {
        public var event: Event
        public var sender: AuthorID
        public var recipient: AuthorID
        /// Accounts the recipient blocked.
        public var blocked: Set<AuthorID>
        public var settings: Settings
        /// The recipient's devices' presence in the game.
        public var devices: [DevicePresence]
        /// The recipient's read horizon in the game.
        public var horizon: Int64
        /// The zone sequence of the event (the newest move, the message).
        public var sequence: Int64
        /// When moves in this game last called the recipient back (nil: never).
        public var lastCalledForMoves: Int64?

        public init(
            event: Event, sender: AuthorID, recipient: AuthorID, blocked: Set<AuthorID> = [], settings: Settings = Settings(),
            devices: [DevicePresence] = [], horizon: Int64 = 0, sequence: Int64 = 0, lastCalledForMoves: Int64? = nil
        ) {
            self.event = event
            self.sender = sender
            self.recipient = recipient
            self.blocked = blocked
            self.settings = settings
            self.devices = devices
            self.horizon = horizon
            self.sequence = sequence
            self.lastCalledForMoves = lastCalledForMoves
        }
    }

    /// Whether the recipient is called back: never for their own doing, never from an account
    /// they blocked, never for what they turned off, never while one of their devices holds the
    /// game's lease (they are in it); a nudge always otherwise, a chat message always otherwise,
    /// moves only past the recipient's read horizon and at most once per `movesIntervalMillis`.
    public static func calls(_ facts: Facts, now: Int64) -> Bool {
        guard facts.sender != facts.recipient, !facts.blocked.contains(facts.sender), facts.settings.wants(facts.event),
            !Presence.isHere(facts.devices, now: now)
        else { return false }
        switch facts.event {
        case .nudge, .chat:
            return true
        case .moves:
            guard facts.sequence > facts.horizon else { return false }
            if let last = facts.lastCalledForMoves, now - last < movesIntervalMillis { return false }
            return true
        }
    }
}

extension CallBack.Settings {
    /// The account's call-back settings among its solver settings.
    public init(_ settings: SolverSettings) {
        self.init(nudges: settings["notify-nudges"] != "off", chat: settings["notify-chat"] != "off", moves: settings["notify-moves"] != "off")
    }
}
