import CrossmateProtocol
import CrossmateStore
import Hummingbird

/// Web Push subscriptions: the server's VAPID public key, and each device's one subscription
/// (`PushNotifier` sends to it).
struct PushController {
    let store: Store
    let notifier: PushNotifier
    let clock: @Sendable () -> Int64

    var routes: RouteCollection<CrossmateRequestContext> {
        let router = RouteCollection(context: CrossmateRequestContext.self)
        router.on(.pushKey, use: key)
        router.on(.pushSubscribe, use: subscribe)
        router.on(.pushUnsubscribe, use: unsubscribe)
        return router
    }

    @Sendable func key(_ request: Request, context: CrossmateRequestContext) async throws -> PushKeyResponse {
        let key = try await notifier.vapidKey()
        return PushKeyResponse(publicKey: Base64URL.encode(Array(key.publicKey.x963Representation)), serverTime: clock())
    }

    @Sendable func subscribe(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<PushSubscriptionRequest>
    ) async throws -> PushSubscriptionResponse {
        let device = try context.requireDevice()
        let body = try await incoming.decode()
        if let refusal = PushNotifier.refusal(of: body.endpoint, allowLoopback: notifier.allowLoopback) { throw APIError(.invalid, refusal) }
        // The host as it resolves now: a name for a private address is refused here, in words
        // (and checked again before every push, which connects to the address it checked).
        // A name that does not resolve is refused too (a push service's always does); one whose
        // lookup takes over 2 s is taken, and checked at the push.
        let (endpoint, allowLoopback) = (body.endpoint, notifier.allowLoopback)
        switch try await withinDeadline(.seconds(2), { await PushAddress.check(endpoint: endpoint, allowLoopback: allowLoopback) }) {
        case let .refused(reason)?: throw APIError(.invalid, reason)
        case let .unresolved(reason)?: throw APIError(.invalid, "endpoint must be a push service that can be reached: \(reason)")
        case .allowed?, nil: break
        }
        _ = try WebPush.SubscriberKeys(p256dh: body.keys.p256dh, auth: body.keys.auth)
        do {
            try await store.putPushSubscription(
                StoredPushSubscription(
                    deviceID: device.deviceID, authorID: device.authorID, endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth),
                now: clock())
        } catch let refusal as StoreRefusal { throw refusal.apiError }
        return PushSubscriptionResponse(subscribed: true, serverTime: clock())
    }

    @Sendable func unsubscribe(_ request: Request, context: CrossmateRequestContext) async throws -> PushSubscriptionResponse {
        let device = try context.requireDevice()
        try await store.deletePushSubscription(deviceID: device.deviceID)
        return PushSubscriptionResponse(subscribed: false, serverTime: clock())
    }
}
