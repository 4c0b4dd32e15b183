/// A hybrid logical clock reading: wall-clock milliseconds plus a counter that orders events
/// within one millisecond. Comparable, and packed into one `UInt64` that sorts the same way.
///
/// In JSON it is `{"counter": C, "wallMillis": W}`: two numbers a JavaScript client holds
/// exactly (the packed form is above 2^53). Decoding refuses a wall time outside 0 ..< 2^48 ms
/// or a counter outside 0 ... 65535 instead of clamping it, and a plain number (say, Unix
/// milliseconds sent where a timestamp belongs) is not a timestamp at all.
public struct HLCTimestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970; 48 bits are kept.
    public let wallMillis: Int64
    public let counter: UInt16

    public static let wallBits = 48
    public static let maximumWall = Int64(1) << wallBits - 1
    public static let zero = HLCTimestamp(wallMillis: 0, counter: 0)

    public init(wallMillis: Int64, counter: UInt16 = 0) {
        self.wallMillis = min(max(0, wallMillis), Self.maximumWall)
        self.counter = counter
    }

    /// The packed form: wall milliseconds in the high 48 bits, the counter in the low 16.
    public init(packed: UInt64) {
        wallMillis = Int64(packed >> 16)
        counter = UInt16(truncatingIfNeeded: packed)
    }

    public var packed: UInt64 { UInt64(wallMillis) << 16 | UInt64(counter) }

    public static func < (lhs: HLCTimestamp, rhs: HLCTimestamp) -> Bool { lhs.packed < rhs.packed }

    /// The next reading after this one: the counter advances, carrying into the milliseconds.
    public var successor: HLCTimestamp {
        counter == .max ? HLCTimestamp(wallMillis: wallMillis + 1) : HLCTimestamp(wallMillis: wallMillis, counter: counter + 1)
    }

    /// Whether this reading is at most `maximumAheadMillis` ahead of `referenceMillis` (the
    /// server's time): the server refuses moves stamped further in the future.
    public func isWithinSkew(of referenceMillis: Int64, maximumAheadMillis: Int64) -> Bool {
        wallMillis <= referenceMillis + maximumAheadMillis
    }

    /// Whether a record so stamped could have been made in a game created at
    /// `gameCreatedMillis`: not before it (less `skewMillis`, the error a client's clock may have
    /// before it learns the server's time). A stamp below that is in the wrong unit or from a
    /// broken clock, and stored it would sort before everything else in the game. Moves, chat
    /// messages, reactions and flags are held to it alike.
    public func isWithinGame(createdAt gameCreatedMillis: Int64, skewMillis: Int64) -> Bool {
        wallMillis >= gameCreatedMillis - skewMillis
    }

    public var description: String { "\(wallMillis).\(counter)" }

    enum CodingKeys: String, CodingKey { case counter, wallMillis }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let wall = try container.decode(Int64.self, forKey: .wallMillis)
        guard (0...Self.maximumWall).contains(wall) else {
            throw DecodingError.dataCorruptedError(
                forKey: .wallMillis, in: container,
                debugDescription: "wallMillis is Unix time in milliseconds, 0 to \(Self.maximumWall)")
        }
        self.init(wallMillis: wall, counter: try container.decode(UInt16.self, forKey: .counter))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(counter, forKey: .counter)
        try container.encode(wallMillis, forKey: .wallMillis)
    }
}

/// A replica's hybrid logical clock. It never falls behind any timestamp it has seen, so a move
/// made after seeing another is stamped later, even when this device's wall clock is slow.
/// The physical time is passed in (the engine reads no clock).
public struct HybridLogicalClock: Hashable, Sendable, Codable {
    /// The latest timestamp issued or seen.
    public private(set) var latest: HLCTimestamp

    public init(latest: HLCTimestamp = .zero) {
        self.latest = latest
    }

    /// Send rule: a new timestamp for a local event, after everything issued or seen.
    public mutating func tick(wallMillis: Int64) -> HLCTimestamp {
        let physical = HLCTimestamp(wallMillis: wallMillis)
        latest = physical > latest ? physical : latest.successor
        return latest
    }

    /// Receive rule: folds in a timestamp from another replica or the server, so the next tick
    /// is later than it.
    public mutating func observe(_ remote: HLCTimestamp) {
        if remote > latest { latest = remote }
    }
}
