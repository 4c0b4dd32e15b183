/// Who is in a game, and what each account has seen (ARCHITECTURE.md, "Presence and read
/// horizons"). Each device owns one record per game, so one device leaving never touches a
/// sibling's lease, and read-through is a change token the device actually showed, never a clock
/// reading. Pure: time comes in as `now` (Unix milliseconds).
public struct DevicePresence: Hashable, Sendable, Codable {
    public var gameID: GameID
    public var deviceID: String
    public var authorID: AuthorID
    /// The device counts as present until this time; a clean leave sets it to the time it left.
    public var leaseUntil: Int64
    /// The zone sequence of the newest change this device has shown (0: nothing yet).
    public var readThrough: Int64

    public init(gameID: GameID, deviceID: String, authorID: AuthorID, leaseUntil: Int64 = 0, readThrough: Int64 = 0) {
        self.gameID = gameID
        self.deviceID = deviceID
        self.authorID = authorID
        self.leaseUntil = leaseUntil
        self.readThrough = readThrough
    }

    public func isPresent(at now: Int64) -> Bool { leaseUntil > now }
}

public enum Presence {
    /// Entering a game leases it for ten minutes.
    public static let leaseMillis: Int64 = 600_000
    /// A device whose game is out of the player's sight (a hidden or frozen page, a terminal
    /// that lost the focus) counts as away once it has been out of sight this long: its lease
    /// ends and it is called back as any player who left; shown again, it is back at once.
    public static let awayGraceMillis: Int64 = 15_000
    /// A lease is refreshed once less than five minutes remain.
    public static let refreshBelowMillis: Int64 = 300_000

    /// The device enters (or is still in) the game: a fresh lease.
    public static func enter(_ presence: DevicePresence, now: Int64) -> DevicePresence {
        var next = presence
        next.leaseUntil = max(presence.leaseUntil, now + leaseMillis)
        return next
    }

    /// Whether a present device should renew its lease now.
    public static func needsRefresh(_ presence: DevicePresence, now: Int64) -> Bool {
        presence.leaseUntil - now < refreshBelowMillis
    }

    /// The device leaves: its lease ends now (never extended by a late leave). What it has read
    /// is unchanged: leaving is not reading.
    public static func leave(_ presence: DevicePresence, now: Int64) -> DevicePresence {
        var next = presence
        next.leaseUntil = min(presence.leaseUntil, now)
        return next
    }

    /// The device showed every change through `sequence`; read-through never moves backward.
    public static func showed(_ presence: DevicePresence, through sequence: Int64) -> DevicePresence {
        var next = presence
        next.readThrough = max(presence.readThrough, sequence)
        return next
    }

    /// The account's read horizon: the greatest read-through of its devices, never below what
    /// it already was.
    public static func horizon(of devices: [DevicePresence], previous: Int64 = 0) -> Int64 {
        devices.reduce(previous) { max($0, $1.readThrough) }
    }

    /// Whether any of the account's devices holds a live lease.
    public static func isHere(_ devices: [DevicePresence], now: Int64) -> Bool {
        devices.contains { $0.isPresent(at: now) }
    }

    /// A game is unread for an account when another account has a move after the account's
    /// horizon and none of its devices is in the game. `latestOtherMove` is the zone sequence
    /// of the newest move by another account (nil: none).
    public static func isUnread(latestOtherMove: Int64?, horizon: Int64, devices: [DevicePresence], now: Int64) -> Bool {
        guard let latestOtherMove, latestOtherMove > horizon else { return false }
        return !isHere(devices, now: now)
    }
}
