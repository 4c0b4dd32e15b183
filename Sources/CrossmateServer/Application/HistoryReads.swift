import CrossmateProtocol
import CrossmateSync
import Synchronization

/// Finished games' replays, assembled once for every device that asks. A ready replay changes
/// only if the game's moves or its removed players change (more seals change nothing once every
/// device has sealed), so those are its key. Bounded by the steps kept in all, the least
/// recently asked for going first.
final class ReplayCache: Sendable {
    struct Key: Hashable, Sendable {
        var moves: Int
        var removed: Set<String>
    }

    private struct Entry {
        var key: Key
        var replay: ReplayView
        var used: UInt64
    }

    private struct Entries {
        var byGame: [String: Entry] = [:]
        var steps = 0
        var clock: UInt64 = 0
    }

    private let entries = Mutex(Entries())
    let maximumSteps: Int

    init(maximumSteps: Int = Limits.replayStepsKept) { self.maximumSteps = maximumSteps }

    /// The ready replay of `gameID` assembled under `key`, if kept.
    func replay(_ gameID: String, key: Key) -> ReplayView? {
        entries.withLock { entries in
            guard let entry = entries.byGame[gameID], entry.key == key else { return nil }
            entries.clock += 1
            entries.byGame[gameID]!.used = entries.clock
            return entry.replay
        }
    }

    /// Keeps a ready replay (one longer than the whole bound is not kept).
    func keep(_ replay: ReplayView, for gameID: String, key: Key) {
        guard replay.ready, replay.steps.count <= maximumSteps else { return }
        entries.withLock { entries in
            if let old = entries.byGame.removeValue(forKey: gameID) { entries.steps -= old.replay.steps.count }
            while entries.steps + replay.steps.count > maximumSteps,
                let oldest = entries.byGame.min(by: { $0.value.used < $1.value.used })
            {
                entries.steps -= oldest.value.replay.steps.count
                entries.byGame[oldest.key] = nil
            }
            entries.clock += 1
            entries.byGame[gameID] = Entry(key: key, replay: replay, used: entries.clock)
            entries.steps += replay.steps.count
        }
    }

    var stepsKept: Int { entries.withLock { $0.steps } }
}

/// Work that grows with a game's history (assembling a replay, reading stats) admitted one at a
/// time per account: a second while the first runs is refused, to be asked again, so one account
/// holds at most one of the history lane's turns however many devices and sockets it has.
final class HistoryGate: Sendable {
    private let running = Mutex(Set<String>())

    /// Runs `body` unless `authorID` has history work running; nil when refused.
    func run<T>(for authorID: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T? {
        guard running.withLock({ $0.insert(authorID).inserted }) else { return nil }
        defer { _ = running.withLock { $0.remove(authorID) } }
        return try await body()
    }

    /// The refusal when an account's history work is already running.
    static let busy = APIError(.rateLimited, "the server is still reading your last replay or stats; retry after 1 s", retryAfterSeconds: 1)
}

/// What finished games contribute to stats, kept in memory within a bound on their bytes (a
/// game's share lists its players, up to fifty ids): when full, it starts again empty (each is
/// in the store, one small row away).
final class FinishedGameCache: Sendable {
    private struct Kept {
        var games: [String: FinishedGame] = [:]
        var bytes = 0
    }

    private let kept = Mutex(Kept())
    let maximumBytes: Int

    init(maximumBytes: Int = 8 << 20) { self.maximumBytes = maximumBytes }

    /// About what one takes in memory.
    static func bytes(_ game: FinishedGame) -> Int { 160 + game.gameID.utf8.count + game.players.reduce(0) { $0 + 16 + $1.utf8.count } }

    func games(_ gameIDs: [String]) -> [FinishedGame] { kept.withLock { kept in gameIDs.compactMap { kept.games[$0] } } }

    func keep(_ games: some Sequence<FinishedGame>) {
        kept.withLock { kept in
            for game in games where kept.games[game.gameID] == nil {
                let size = Self.bytes(game)
                if kept.bytes + size > maximumBytes { kept = Kept() }
                kept.games[game.gameID] = game
                kept.bytes += size
            }
        }
    }

    var bytesKept: Int { kept.withLock { $0.bytes } }
}
