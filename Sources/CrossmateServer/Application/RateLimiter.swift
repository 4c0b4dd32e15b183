import CrossmateProtocol
import Synchronization

/// A token bucket per key (a device, or a client address): `burst` requests at once, refilled
/// at `perSecond`. Time comes in from the server's clock, so tests can drive it. A lock rather
/// than an actor: every request and socket message takes a token, and the hop to an actor cost
/// more than the arithmetic.
///
/// Memory is bounded without ever scanning: buckets live in two generations. New and touched
/// buckets go in the current one; when it holds `maximumBuckets / 2`, it becomes the previous
/// one and the old previous is dropped. A bucket untouched for a whole generation is forgotten,
/// which can only give a key back its full burst — and a key must stay quiet while
/// `maximumBuckets / 2` other keys arrive for that.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedAt: Int64
    }

    private struct Generations {
        var current: [String: Bucket] = [:]
        var previous: [String: Bucket] = [:]
    }

    private let burst: Double
    private let perSecond: Double
    private let generations = Mutex(Generations())
    private let generationSize: Int

    init(burst: Double, perSecond: Double, maximumBuckets: Int = 100_000) {
        self.burst = burst
        self.perSecond = perSecond
        generationSize = max(1, maximumBuckets / 2)
    }

    /// A bucket per key at `rate` (a row of `Limits`).
    convenience init(_ rate: Rate, maximumBuckets: Int = 100_000) {
        self.init(burst: rate.burst, perSecond: rate.perSecond, maximumBuckets: maximumBuckets)
    }

    var bucketCount: Int { generations.withLock { $0.current.count + $0.previous.count } }

    /// Takes `cost` tokens for `key`; returns `nil` when allowed, else the seconds to wait.
    func take(_ key: String, cost: Int = 1, now: Int64) -> Int? {
        generations.withLock { generations in
            var bucket = generations.current[key] ?? generations.previous.removeValue(forKey: key) ?? Bucket(tokens: burst, updatedAt: now)
            let elapsed = Double(max(0, now - bucket.updatedAt)) / 1000
            bucket.tokens = min(burst, bucket.tokens + elapsed * perSecond)
            bucket.updatedAt = now
            let wanted = Double(max(1, cost))
            let wait: Int?
            if bucket.tokens >= wanted {
                bucket.tokens -= wanted
                wait = nil
            } else {
                wait = max(1, Int(((wanted - bucket.tokens) / max(perSecond, 0.001)).rounded(.up)))
            }
            if generations.current[key] == nil, generations.current.count >= generationSize {
                generations.previous = generations.current
                generations.current = [:]
            }
            generations.current[key] = bucket
            return wait
        }
    }

    /// Takes `cost` tokens for `key`, or refuses: `rateLimited` with the wait, in the words
    /// `said` makes of it ("you nudged a moment ago; you can nudge again in 40 s"). The one way a
    /// limited request is refused.
    func admit(_ key: String, cost: Int = 1, now: Int64, _ said: (_ wait: Int) -> String) throws(APIError) {
        guard let wait = take(key, cost: cost, now: now) else { return }
        throw APIError(.rateLimited, said(wait), retryAfterSeconds: wait)
    }
}
