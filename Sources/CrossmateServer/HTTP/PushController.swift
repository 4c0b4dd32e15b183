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

    @Sendable func subscribe(_ request: Request, context: CrossmateRequestContext) async throws -> PushSubscriptionResponse {
        let device = try context.requireDevice()
        let body = try await JSONBody.decode(PushSubscriptionRequest.self, from: request, limit: Limits.pushSubscriptionBytes)
        if let refusal = PushNotifier.refusal(of: body.endpoint, allowLoopback: notifier.allowLoopback) { throw APIError(.invalid, refusal) }
        _ = try WebPush.SubscriberKeys(p256dh: body.keys.p256dh, auth: body.keys.auth)
        try await store.putPushSubscription(
            StoredPushSubscription(
                deviceID: device.deviceID, authorID: device.authorID, endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth),
            now: clock())
        return PushSubscriptionResponse(subscribed: true, serverTime: clock())
    }

    @Sendable func unsubscribe(_ request: Request, context: CrossmateRequestContext) async throws -> PushSubscriptionResponse {
        let device = try context.requireDevice()
        try await store.deletePushSubscription(deviceID: device.deviceID)
        return PushSubscriptionResponse(subscribed: false, serverTime: clock())
    }
}
