/// A record the zone keeps one of per key, the one that decides by its own rule (the later
/// timestamp: a reaction, a clue flag) standing whatever order copies arrive in.
public protocol DecidedByLatest: Sendable {
    var key: String { get }
    /// Whether this one decides over `other`, held under the same key.
    func wins(over other: Self) -> Bool
}

extension HLCTimestamp {
    /// A stamp for a new word on a key whose held record is stamped `held`: now, or just after
    /// `held` when that is later (another device's clock ahead of this one's), so the newer word
    /// decides, as it should.
    public static func after(_ held: HLCTimestamp?, now: Int64) -> HLCTimestamp {
        var clock = HybridLogicalClock(latest: held ?? .zero)
        return clock.tick(wallMillis: now)
    }
}

extension Dictionary where Key == String, Value: DecidedByLatest {
    /// Keeps `value` under its key unless the one held there decides over it; whether it was kept.
    @discardableResult
    public mutating func keepDeciding(_ value: Value) -> Bool {
        if let held = self[value.key], !value.wins(over: held) { return false }
        self[value.key] = value
        return true
    }

    /// The deciding one of each key among `values`.
    public init(deciding values: some Sequence<Value>) {
        self.init()
        for value in values { keepDeciding(value) }
    }
}
