import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Hummingbird
import Synchronization

/// An account's stats and streaks, from its finished games whenever asked (`Stats`). What a
/// finished game contributes never changes, so it is worked out once, as the game finishes (or
/// when first asked), and kept in the store: a stats request reads small rows, never histories.
struct StatsController {
    let store: Store
    let history: HistoryReads
    let clock: @Sendable () -> Int64

    var routes: RouteCollection<CrossmateRequestContext> {
        let router = RouteCollection(context: CrossmateRequestContext.self)
        router.on(.stats, use: stats)
        return router
    }

    @Sendable func stats(_ request: Request, context: CrossmateRequestContext) async throws -> StatsResponse {
        let device = try context.requireDevice()
        let name = request.uri.queryParameters["timeZone"].map(String.init) ?? "UTC"
        guard let zone = Self.timeZone(named: name) else {
            throw APIError(.invalid, "timeZone is a time zone's name such as Europe/London or America/New_York; \(TextRule.quote(name)) is not one")
        }
        var finishedIDs: [String] = []
        var after: (createdAt: Int64, gameID: String)?
        // The latest finished games, at most `StatsResponse.maximumGames`, found among at most
        // four times as many games.
        var scanned = 0
        scan: while finishedIDs.count < StatsResponse.maximumGames, scanned < 4 * StatsResponse.maximumGames {
            let page = try await store.games(of: device.authorID, after: after, limit: 100)
            for (game, _, _) in page {
                scanned += 1
                guard game.completion != nil else { continue }
                finishedIDs.append(game.gameID)
                if finishedIDs.count == StatsResponse.maximumGames { break scan }
            }
            guard page.count == 100, let last = page.last?.0 else { break }
            after = (last.createdAt, last.gameID)
        }
        let games = try await history.finishedGames(finishedIDs, for: device.authorID)
        let partners = Set(games.flatMap(\.players)).subtracting([device.authorID])
        let names = try await store.displayNames(Array(partners))
        let now = clock()
        let day = { (millis: Int64) in
            Stats.day(millis, utcOffsetSeconds: zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(millis) / 1000)))
        }
        let stats = Stats.compute(games, me: device.authorID, day: day, today: day(now))
        return StatsResponse(
            stats: stats, recentDates: stats.recent.map { Stats.date(ofDay: $0.day) },
            names: names.filter { id, _ in stats.together.contains { $0.authorID == id } }, timeZone: name, gamesRead: games.count,
            serverTime: now)
    }

    /// A time zone by its name, only as the system spells it: letters, digits, "/", "_", "+" and
    /// "-", and the zone's own identifier exactly (Foundation also accepts a known name with
    /// anything after a NUL, and kept every such name for good), or UTC (which Foundation names
    /// GMT). The answer names the zone as it was asked for.
    static func timeZone(named name: String) -> TimeZone? {
        guard (1...64).contains(name.utf8.count),
            name.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "/_+-".utf8.contains(byte)
            }),
            let zone = TimeZone(identifier: name), zone.identifier == name || ["UTC", "Etc/UTC"].contains(name)
        else { return nil }
        return zone
    }
}
