import CrossmateProtocol
import CrossmateStore
import Hummingbird

/// The per-device database feed: game zones added, made read-only or removed for the account.
struct FeedController {
    let store: Store
    let clock: @Sendable () -> Int64

    /// This controller's routes, for the application's router.
    var routes: RouteCollection<CrossmateRequestContext> {
        let router = RouteCollection(context: CrossmateRequestContext.self)
        router.on(.feed, use: feed)
        return router
    }

    @Sendable func feed(_ request: Request, context: CrossmateRequestContext) async throws -> FeedResponse {
        let device = try context.requireDevice()
        var after: Int64 = 0
        if let since = request.uri.queryParameters["since"] {
            guard let token = ChangeToken(encoded: String(since)), token.zone == "feed" else {
                throw APIError(.invalid, "since is not a feed token")
            }
            after = token.sequence
        }
        let limit = min(ProtocolLimits.maximumChangesPerPage, max(1, request.uri.queryParameters["limit"].flatMap { Int(String($0)) } ?? 500))
        let entries = try await store.feed(authorID: device.authorID, after: after, limit: limit + 1)
        let page = Array(entries.prefix(limit))
        return
            FeedResponse(
                entries: page, token: ChangeToken(zone: "feed", sequence: page.last?.sequence ?? after),
                moreComing: entries.count > limit, serverTime: clock())
    }
}
