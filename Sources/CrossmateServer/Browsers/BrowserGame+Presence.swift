import CrossmateProtocol
import CrossmateStore
import CrossmateSync

/// A hosted browser's presence in its game: a lease while it is viewed, and how far it has
/// shown the zone (the account's read horizon), stored as a native device's is.
extension BrowserGame {
    /// A read horizon is stored at most this often while the game is viewed (and when it is left).
    static let presenceStoreMillis: Int64 = 1_000

    /// The browser opens the game: a lease, and everything through `sequence` shown. Returns the
    /// account's horizon before this (where its catch-up starts).
    func enter(now: Int64, services: BrowserServices) async throws -> Int64 {
        presence = Presence.showed(Presence.enter(presence, now: now), through: min(sequence, committed))
        let baseline = try await services.writes.store(presence, tellFeed: true)
        presenceStoredAt = now
        return baseline
    }

    /// This device has shown the zone through `shown` (and a viewed game keeps its lease). Stored
    /// at once when the lease needs it or `presenceStoreMillis` has passed since the last store,
    /// else by one pass when it has: a store per letter per viewer was most of a browser game's
    /// writes to the database. Leaving stores it too; a crash loses at most that second of the
    /// horizon (the next catch-up then names a letter or two already seen).
    func showed(through shown: Int64, services: BrowserServices) async throws {
        // A hidden page shows nothing and holds no lease (`goAway`).
        guard !away else { return }
        let now = services.now()
        let leaseDue = Presence.needsRefresh(presence, now: now)
        guard shown > presence.readThrough || leaseDue else { return }
        presence = Presence.showed(Presence.enter(presence, now: now), through: shown)
        if leaseDue || presenceStoredAt.map({ now - $0 >= Self.presenceStoreMillis }) ?? true {
            try await services.writes.store(presence, tellFeed: false)
            presenceStoredAt = now
        } else if presenceFlush == nil {
            presenceFlush = Task {
                try? await Task.sleep(for: .milliseconds(Self.presenceStoreMillis))
                guard !Task.isCancelled else { return }  // left meanwhile: leaving stored it
                await flushPresence(services: services)
            }
        }
    }

    /// Stores the horizon a deferred pass was left to store (in turn with commands and leaving).
    private func flushPresence(services: BrowserServices) async {
        await exclusively {
            presenceFlush = nil
            do {
                try await services.writes.store(presence, tellFeed: false)
                presenceStoredAt = services.now()
            } catch {
                services.logger.error("a browser's presence could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
            }
        }
    }

    /// The page has been hidden past its grace: the device's lease ends as if it left, and
    /// what it shows stops moving on, until it is shown again (`comeBack`).
    func goAway(services: BrowserServices) async {
        await exclusively { away = true }
        await leave(services: services)
    }

    /// The page is shown again: a lease, and everything through the replica's sequence shown.
    func comeBack(services: BrowserServices) async {
        await exclusively {
            away = false
            let now = services.now()
            presence = Presence.showed(Presence.enter(presence, now: now), through: min(sequence, committed))
            do {
                try await services.writes.store(presence, tellFeed: true)
                presenceStoredAt = now
            } catch {
                services.logger.error("a browser's presence could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
            }
        }
    }

    /// The device has left the game: its lease ends now (what it was shown stays).
    func leave(services: BrowserServices) async {
        await exclusively {
            presence = Presence.leave(presence, now: services.now())
            presenceFlush?.cancel()
            presenceFlush = nil
            do { try await services.writes.store(presence, tellFeed: true) } catch {
                services.logger.error("a browser's presence could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
            }
        }
    }

}
