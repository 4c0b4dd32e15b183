import Synchronization

/// Who shows each game on the other instances sharing this PostgreSQL database, as they said
/// (`FanoutEvent.viewers`): "who is here" counts every instance's players, not only this one's.
/// Each instance says its own viewers of a game when they change and again every
/// `PostgresFanout.viewersEvery`; what it said holds for `ttl` from when it was heard (this
/// instance's clock, so clock skew between machines does not matter), so a dead instance's
/// players drop out by themselves.
final class RemoteViewers: Sendable {
    struct Viewer: Codable, Hashable, Sendable {
        var deviceID: String
        var authorID: String
    }

    private struct Said {
        var viewers: Set<Viewer>
        var until: ContinuousClock.Instant
    }

    /// By game, by instance.
    private let said = Mutex([String: [String: Said]]())

    /// The devices showing `game` on the other instances now, each with its account (empty at
    /// once for a game no other instance shows).
    func authorsByDevice(of game: String, now: ContinuousClock.Instant = .now) -> [String: String] {
        said.withLock { said in
            guard let instances = said[game] else { return [:] }
            var devices: [String: String] = [:]
            for told in instances.values where told.until > now {
                for viewer in told.viewers { devices[viewer.deviceID] = viewer.authorID }
            }
            return devices
        }
    }

    /// `instance` says `viewers` show `game`, for `ttl` from `now`. Whether who shows the game
    /// (across every other instance) changed.
    func heard(_ viewers: Set<Viewer>, of game: String, from instance: String, ttl: Duration, now: ContinuousClock.Instant = .now) -> Bool {
        said.withLock { said in
            let before = Self.union((said[game] ?? [:]).values.filter { $0.until > now })
            if viewers.isEmpty {
                said[game]?[instance] = nil
                if said[game]?.isEmpty == true { said[game] = nil }
            } else {
                said[game, default: [:]][instance] = Said(viewers: viewers, until: now + ttl)
            }
            return Self.union((said[game] ?? [:]).values.filter { $0.until > now }) != before
        }
    }

    /// Forgets what has expired; the games whose viewers that changed.
    func expire(now: ContinuousClock.Instant = .now) -> [String] {
        said.withLock { said in
            var changed: [String] = []
            for (game, instances) in said {
                let live = instances.filter { $0.value.until > now }
                guard live.count != instances.count else { continue }
                if Self.union(live.values) != Self.union(instances.values) { changed.append(game) }
                said[game] = live.isEmpty ? nil : live
            }
            return changed.sorted()
        }
    }

    private static func union(_ said: some Sequence<Said>) -> Set<Viewer> {
        said.reduce(into: Set<Viewer>()) { $0.formUnion($1.viewers) }
    }
}
