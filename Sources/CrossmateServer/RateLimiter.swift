import Synchronization

/// A token bucket per device: `burst` requests at once, refilled at `perSecond`. Time comes in
/// from the server's clock, so tests can drive it. A lock rather than an actor: every request
/// and socket push takes a token, and the hop to an actor cost more than the arithmetic.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedAt: Int64
    }

    private let burst: Double
    private let perSecond: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    private let maximumBuckets: Int

    init(burst: Double, perSecond: Double, maximumBuckets: Int = 100_000) {
        self.burst = burst
        self.perSecond = perSecond
        self.maximumBuckets = maximumBuckets
    }

    var bucketCount: Int { buckets.withLock { $0.count } }

    /// Takes one token for `key`; returns `nil` when allowed, else the seconds to wait.
    func take(_ key: String, now: Int64) -> Int? {
        buckets.withLock { buckets in
            if buckets.count >= maximumBuckets { forgetIdle(&buckets, now: now) }
            var bucket = buckets[key] ?? Bucket(tokens: burst, updatedAt: now)
            let elapsed = Double(max(0, now - bucket.updatedAt)) / 1000
            bucket.tokens = min(burst, bucket.tokens + elapsed * perSecond)
            bucket.updatedAt = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            let wait = (1 - bucket.tokens) / max(perSecond, 0.001)
            return max(1, Int(wait.rounded(.up)))
        }
    }

    /// Drops buckets that have refilled completely: forgetting them changes nothing.
    private func forgetIdle(_ buckets: inout [String: Bucket], now: Int64) {
        buckets = buckets.filter { _, bucket in
            bucket.tokens + Double(max(0, now - bucket.updatedAt)) / 1000 * perSecond < burst
        }
    }
}
