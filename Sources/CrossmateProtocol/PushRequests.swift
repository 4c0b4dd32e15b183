/// `GET /v1/push/key`: the server's VAPID public key (65 bytes, base64url), the
/// `applicationServerKey` a browser subscribes with.
public struct PushKeyResponse: Codable, Hashable, Sendable {
    public var publicKey: String
    public var serverTime: Int64

    public init(publicKey: String, serverTime: Int64) {
        self.publicKey = publicKey
        self.serverTime = serverTime
    }
}

/// `POST /v1/push/subscriptions`: a browser's push subscription, as `PushSubscription.toJSON()`
/// gives it (other fields are ignored). It replaces the device's last one.
public struct PushSubscriptionRequest: Codable, Hashable, Sendable {
    public struct Keys: Codable, Hashable, Sendable {
        public var p256dh: String
        public var auth: String

        public init(p256dh: String, auth: String) {
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    public var endpoint: String
    public var keys: Keys

    public init(endpoint: String, keys: Keys) {
        self.endpoint = endpoint
        self.keys = keys
    }
}

/// The answer to subscribing (`subscribed: true`) or `DELETE /v1/push/subscriptions` (false).
public struct PushSubscriptionResponse: Codable, Hashable, Sendable {
    public var subscribed: Bool
    public var serverTime: Int64

    public init(subscribed: Bool, serverTime: Int64) {
        self.subscribed = subscribed
        self.serverTime = serverTime
    }
}
