import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Synchronization

/// The reads that grow with a game's history — replays and stats — and what keeps them bounded:
/// they run on the store's history lane, one account at a time (`HistoryGate`), and what they
/// work out is kept (`ReplayCache`, `FinishedGameCache`, and finished games' rows in the store).
struct HistoryReads: Sendable {
    let store: Store
    let metrics: ServerMetrics
    /// Finished games' replays, assembled once.
    let replays = ReplayCache()
    /// Work that grows with history, one at a time per account.
    let gate = HistoryGate()
    /// What each finished game contributes to its players' stats (it never changes once read).
    let finishedGames = FinishedGameCache()

    /// What each of `gameIDs` (finished games) contributes to stats: kept in memory, else in the
    /// store, else worked out from its history (on the history lane, one account at a time) and
    /// kept, so a game's history is read for stats once.
    func finishedGames(_ gameIDs: [String], for authorID: String) async throws -> [FinishedGame] {
        var found = finishedGames.games(gameIDs)
        let foundIDs = Set(found.map(\.gameID))
        var missing = gameIDs.filter { !foundIDs.contains($0) }
        if !missing.isEmpty {
            let stored = try await store.finishedGames(missing)
            finishedGames.keep(stored.values)
            found += stored.values
            missing.removeAll { stored[$0] != nil }
        }
        if !missing.isEmpty {
            let worked = try await gate.run(for: authorID) { () async throws -> [FinishedGame] in
                var worked: [FinishedGame] = []
                for gameID in missing { if let game = try await finishedGame(gameID) { worked.append(game) } }
                return worked
            }
            guard let worked else { throw HistoryGate.busy }
            found += worked
        }
        let order = Dictionary(uniqueKeysWithValues: gameIDs.enumerated().map { ($1, $0) })
        return found.sorted { order[$0.gameID, default: 0] < order[$1.gameID, default: 0] }
    }

    /// Works out what a finished game contributes to stats from its history, and keeps it; nil
    /// when the game is not finished (or gone).
    func finishedGame(_ gameID: String) async throws -> FinishedGame? {
        guard let game = try await store.game(gameID), let completion = game.completion else { return nil }
        let players = try await store.participants(gameID: gameID)
        let activity = try await GameProjection.sequencedActivity(store: store, gameID: gameID, after: 0, lane: .history)
        let finished = FinishedGame(
            gameID: gameID, puzzle: try game.puzzle(), moves: activity.moves.map(\.move), pauses: activity.pauses,
            completion: completion.completion, players: players.filter { !$0.hasLeft }.map(\.authorID))
        try await store.keepFinishedGame(finished)
        finishedGames.keep([finished])
        return finished
    }
}

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
