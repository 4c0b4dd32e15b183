import CrossmateSync

/// How long to wait before trying again: capped exponential backoff with jitter (half the
/// step fixed, half random, so a crowd of devices that failed together spreads out), never
/// shorter than a server's `Retry-After`. Seeded, so tests can replay the waits.
public struct Backoff: Sendable {
    public var initial: Duration
    public var maximum: Duration
    public private(set) var attempt = 0
    private var random: SeededRandomNumberGenerator

    public init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(30), seed: UInt64) {
        self.initial = initial
        self.maximum = maximum
        random = SeededRandomNumberGenerator(seed: seed)
    }

    /// The wait before the next attempt (at least `floor`), counting this failure.
    public mutating func next(atLeast floor: Duration = .zero) -> Duration {
        let doubling = min(attempt, 20)
        attempt += 1
        let step = min(maximum, initial * (1 << doubling))
        let jittered = step / 2 + step / 2 * Double.random(in: 0...1, using: &random)
        return max(floor, jittered)
    }

    /// A success: the next failure starts from the initial wait again.
    public mutating func reset() { attempt = 0 }
}
