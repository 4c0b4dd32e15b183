import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Hummingbird
import Synchronization

/// An account's stats and streaks, read from its finished games whenever asked (`Stats`): no
/// counters are kept. What a finished game contributes never changes, so it is remembered once
/// read (`FinishedGames`).
struct StatsController {
    let state: ServerState

    var routes: RouteCollection<CrossmateRequestContext> {
        let router = RouteCollection(context: CrossmateRequestContext.self)
        router.get("v1/stats", use: stats)
        return router
    }

    @Sendable func stats(_ request: Request, context: CrossmateRequestContext) async throws -> StatsResponse {
        let device = try context.requireDevice()
        let name = request.uri.queryParameters["timeZone"].map(String.init) ?? "UTC"
        guard name.utf8.count <= 64, let zone = TimeZone(identifier: name) else {
            throw APIError(.invalid, "timeZone is a time zone's name such as Europe/London or America/New_York; \(TextRule.quote(name)) is not one")
        }
        var games: [FinishedGame] = []
        var names: [String: String] = [:]
        var after: (createdAt: Int64, gameID: String)?
        // The latest finished games, at most `StatsResponse.maximumGames`, found among at most
        // four times as many games.
        var scanned = 0
        scan: while games.count < StatsResponse.maximumGames, scanned < 4 * StatsResponse.maximumGames {
            let page = try await state.store.games(of: device.authorID, after: after, limit: 100)
            for (game, _, _) in page {
                scanned += 1
                guard game.completion != nil else { continue }
                let (finished, players) = try await finishedGame(game.gameID)
                games.append(finished)
                for player in players { names[player.authorID] = player.displayName }
                if games.count == StatsResponse.maximumGames { break scan }
            }
            guard page.count == 100, let last = page.last?.0 else { break }
            after = (last.createdAt, last.gameID)
        }
        let now = state.now()
        let day = { (millis: Int64) in
            Stats.day(millis, utcOffsetSeconds: zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(millis) / 1000)))
        }
        let stats = Stats.compute(games, me: device.authorID, day: day, today: day(now))
        names[device.authorID] = nil
        return StatsResponse(
            stats: stats, recentDates: stats.recent.map { Stats.date(ofDay: $0.day) },
            names: names.filter { id, _ in stats.together.contains { $0.authorID == id } }, timeZone: zone.identifier, gamesRead: games.count,
            serverTime: now)
    }

    /// A finished game as the stats read it, and its roster (for names).
    func finishedGame(_ gameID: String) async throws -> (FinishedGame, [StoredParticipant]) {
        let players = try await state.store.participants(gameID: gameID)
        if let kept = state.finishedGames.withLock({ $0[gameID] }) { return (kept, players) }
        guard let game = try await state.store.game(gameID), let completion = game.completion else {
            throw APIError(.notFound, "game \(TextRule.quote(gameID)) is gone")
        }
        let activity = try await GameProjection.sequencedActivity(store: state.store, gameID: gameID, after: 0)
        let finished = FinishedGame(
            gameID: gameID, puzzle: try game.puzzle(), moves: activity.moves.map(\.move), pauses: activity.pauses,
            completion: completion.completion, players: players.filter { !$0.hasLeft }.map(\.authorID))
        state.finishedGames.withLock { kept in
            if kept.count >= 20_000 { kept.removeAll() }
            kept[gameID] = finished
        }
        return (finished, players)
    }
}
