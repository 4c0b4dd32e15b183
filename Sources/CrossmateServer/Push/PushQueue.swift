import CrossmateProtocol
import CrossmateStore
import Foundation
import Synchronization

/// Items waiting by key (a player, a sender), taken in turns: each key's oldest in turn, so a
/// key with many waiting never holds up one with few. Bounded per key and in all: a push past
/// either bound drops the oldest of its own key, or of the key with most waiting.
struct FairQueue<Item> {
    private var queues: [String: [Item]] = [:]
    /// Keys with items, in the order of their next turn.
    private var turns: [String] = []
    private(set) var count = 0
    let perKey: Int
    let total: Int

    init(perKey: Int, total: Int) {
        self.perKey = perKey
        self.total = total
    }

    /// Adds `item` under `key`; what had to be dropped to make room.
    mutating func push(_ item: Item, key: String) -> [Item] {
        var dropped: [Item] = []
        if queues[key, default: []].count >= perKey {
            dropped.append(queues[key]!.removeFirst())
            count -= 1
        } else if count >= total, let longest = queues.max(by: { $0.value.count < $1.value.count })?.key {
            dropped.append(queues[longest]!.removeFirst())
            count -= 1
            if queues[longest]!.isEmpty {
                queues[longest] = nil
                turns.removeAll { $0 == longest }
            }
        }
        if queues[key] == nil { turns.append(key) }
        queues[key, default: []].append(item)
        count += 1
        return dropped
    }

    /// The oldest item of the first key in turn whose oldest item is `ready`; that key's next
    /// turn comes after every other key's.
    mutating func pop(where ready: (String, Item) -> Bool = { _, _ in true }) -> (key: String, item: Item)? {
        guard let index = turns.firstIndex(where: { ready($0, queues[$0]![0]) }) else { return nil }
        let key = turns.remove(at: index)
        let item = queues[key]!.removeFirst()
        count -= 1
        if queues[key]!.isEmpty { queues[key] = nil } else { turns.append(key) }
        return (key, item)
    }

    /// Removes and returns every item `matches` picks.
    mutating func removeAll(where matches: (Item) -> Bool) -> [Item] {
        var removed: [Item] = []
        for key in turns {
            var stay: [Item] = []
            for item in queues[key]! { if matches(item) { removed.append(item) } else { stay.append(item) } }
            queues[key] = stay.isEmpty ? nil : stay
        }
        turns.removeAll { queues[$0] == nil }
        count -= removed.count
        return removed
    }
}

/// One push to send: a message for one endpoint of one player.
struct PushDelivery: Sendable {
    var recipient: String
    var subscription: StoredPushSubscription
    var message: PushMessage
    var queuedAt: ContinuousClock.Instant

    /// The push service: scheme, host and port.
    var origin: String {
        guard let url = URL(string: subscription.endpoint) else { return subscription.endpoint }
        return "\(url.scheme ?? "")://\(url.host ?? ""):\(url.port ?? 0)"
    }
}

/// How a push went.
enum PushOutcome: Sendable, Equatable {
    /// Answered 2xx.
    case delivered
    /// The push service no longer knows the subscription (404, 410).
    case gone
    /// Answered with another status (the service refused it or is failing).
    case refused(UInt)
    /// Not answered in time, not reachable, or its host is no longer a public address.
    case unreachable
}

/// Which pushes go out next: fair per player, bounded at once in all, per player and per push
/// service, and never to an endpoint (or an unreachable service) that is resting after a
/// failure. The one place that decides; `PushNotifier` sends what it hands out.
final class PushSchedule: Sendable {
    private struct State {
        var waiting = FairQueue<PushDelivery>(perKey: Limits.pushesWaitingPerPlayer, total: Limits.pushesWaiting)
        var inFlight = 0
        var byPlayer: [String: Int] = [:]
        var byOrigin: [String: Int] = [:]
        /// Endpoints with a push on its way: one at a time each, so a device's pushes keep their
        /// order and an endpoint that answers 404 or 410 is asked once.
        var busyEndpoints: Set<String> = []
        /// Endpoints and origins passed over until a time (milliseconds), with failures in a row.
        var resting: [String: (until: Int64, failures: Int)] = [:]
        var dropped = Dropped()
    }

    /// Pushes dropped since the log last said so, by why.
    struct Dropped: Sendable, Equatable {
        var queueFull = 0
        var resting = 0
        var endpointLimit = 0
        var total: Int { queueFull + resting + endpointLimit }
    }

    private let state = Mutex(State())
    private let endpointLimiter = RateLimiter(Limits.pushEndpointRate)

    /// Pushes queued and not yet handed out.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Queues `delivery`; what it pushed out of the queue (counted as dropped), or refused
    /// because its endpoint took its share of pushes already.
    func enqueue(_ delivery: PushDelivery, now: Int64) -> Int {
        if endpointLimiter.take(delivery.subscription.endpoint, now: now) != nil {
            state.withLock { $0.dropped.endpointLimit += 1 }
            return 1
        }
        return state.withLock { state in
            let dropped = state.waiting.push(delivery, key: delivery.recipient).count
            state.dropped.queueFull += dropped
            return dropped
        }
    }

    /// The next push to send, if one may go now: it counts as on its way until `finished`.
    /// Pushes to a resting endpoint or service are dropped as they come up.
    func next(now: Int64) -> PushDelivery? {
        state.withLock { state in
            guard state.inFlight < Limits.pushesInFlight else { return nil }
            let resting = state.waiting.removeAll { delivery in
                [delivery.subscription.endpoint, delivery.origin].contains { (state.resting[$0]?.until ?? 0) > now }
            }
            state.dropped.resting += resting.count
            let byPlayer = state.byPlayer
            let byOrigin = state.byOrigin
            let busy = state.busyEndpoints
            guard
                let (_, delivery) = state.waiting.pop(where: { player, delivery in
                    byPlayer[player, default: 0] < Limits.pushesInFlightPerPlayer
                        && byOrigin[delivery.origin, default: 0] < Limits.pushesInFlightPerService
                        && !busy.contains(delivery.subscription.endpoint)
                })
            else { return nil }
            state.busyEndpoints.insert(delivery.subscription.endpoint)
            state.inFlight += 1
            state.byPlayer[delivery.recipient, default: 0] += 1
            state.byOrigin[delivery.origin, default: 0] += 1
            return delivery
        }
    }

    /// A push came back: its endpoint (and, when it could not be reached, its service) rests
    /// after a failure, and is trusted again after a success.
    func finished(_ delivery: PushDelivery, _ outcome: PushOutcome, now: Int64) {
        state.withLock { state in
            state.inFlight -= 1
            state.byPlayer[delivery.recipient, default: 1] -= 1
            if state.byPlayer[delivery.recipient] == 0 { state.byPlayer[delivery.recipient] = nil }
            state.byOrigin[delivery.origin, default: 1] -= 1
            if state.byOrigin[delivery.origin] == 0 { state.byOrigin[delivery.origin] = nil }
            state.busyEndpoints.remove(delivery.subscription.endpoint)
            func rest(_ key: String) {
                let failures = (state.resting[key]?.failures ?? 0) + 1
                let seconds = min(Limits.pushRestSeconds.upperBound, Limits.pushRestSeconds.lowerBound << Int64(min(failures - 1, 10)))
                state.resting[key] = (now + seconds * 1_000, failures)
            }
            switch outcome {
            case .gone:
                // The subscription is dropped: what waits for it goes too, and so does what is
                // queued for it later by a candidate weighed before the subscription went.
                _ = state.waiting.removeAll { $0.subscription.endpoint == delivery.subscription.endpoint }
                state.resting[delivery.subscription.endpoint] = (now + Limits.pushRestSeconds.upperBound * 1_000, 0)
                state.resting[delivery.origin] = nil
            case .delivered:
                state.resting[delivery.subscription.endpoint] = nil
                state.resting[delivery.origin] = nil
            case .refused:
                rest(delivery.subscription.endpoint)
            case .unreachable:
                rest(delivery.subscription.endpoint)
                rest(delivery.origin)
            }
            if state.resting.count > 10_000 { state.resting = state.resting.filter { $0.value.until > now } }
        }
    }

    /// What was dropped since the last call (for the log), and the count waiting.
    func takeDropped() -> (Dropped, waiting: Int) {
        state.withLock { state in
            defer { state.dropped = Dropped() }
            return (state.dropped, state.waiting.count)
        }
    }

    var waiting: Int { state.withLock { $0.waiting.count } }
    var inFlight: Int { state.withLock { $0.inFlight } }
}
