import CrossmateProtocol
import Foundation

/// Web Push: each device's subscription (one at most; a new one replaces it, and it goes with
/// the device), when moves last called each player back to each game, and the server's own keys.
public struct StoredPushSubscription: Hashable, Sendable {
    public var deviceID: String
    public var authorID: String
    public var endpoint: String
    public var p256dh: String
    public var auth: String

    public init(deviceID: String, authorID: String, endpoint: String, p256dh: String, auth: String) {
        self.deviceID = deviceID
        self.authorID = authorID
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }
}

extension Store {
    /// Keeps `subscription` as its device's one subscription; refused (`StoreRefusal.signedOut`)
    /// once the device is revoked, however long the request took to arrive.
    public func putPushSubscription(_ subscription: StoredPushSubscription, now: Int64) async throws {
        let forUpdate = database.forUpdate
        try await database.transaction { db in
            try await Self.requireDevice(db, subscription.deviceID, forUpdate: forUpdate)
            try await db.execute(
                """
                INSERT INTO push_subscriptions (device_id, author_id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (device_id) DO UPDATE SET endpoint = excluded.endpoint, p256dh = excluded.p256dh, auth = excluded.auth,
                    created_at = excluded.created_at
                """, .text(subscription.deviceID), .text(subscription.authorID), .text(subscription.endpoint), .text(subscription.p256dh),
                .text(subscription.auth), .integer(now))
        }
    }

    /// Drops a device's subscription (`endpoint`: only while it is still that one); whether one went.
    @discardableResult
    public func deletePushSubscription(deviceID: String, endpoint: String? = nil) async throws -> Bool {
        try await database.transaction { db in
            let found = try await db.first(
                "SELECT endpoint FROM push_subscriptions WHERE device_id = ?\(self.database.forUpdate)", .text(deviceID))
            guard let found else { return false }
            if let endpoint, try found.string("endpoint") != endpoint { return false }
            try await db.execute("DELETE FROM push_subscriptions WHERE device_id = ?", .text(deviceID))
            return true
        }
    }

    /// The subscriptions of `authorIDs`' devices (of devices still signed in).
    public func pushSubscriptions(of authorIDs: [String]) async throws -> [StoredPushSubscription] {
        guard !authorIDs.isEmpty else { return [] }
        return try await database.read { db in
            var found: [StoredPushSubscription] = []
            for chunk in GroupAppend.chunks(authorIDs) {
                found += try await db.query(
                    """
                    SELECT s.device_id, s.author_id, s.endpoint, s.p256dh, s.auth FROM push_subscriptions s
                    JOIN devices d ON d.device_id = s.device_id
                    WHERE s.author_id IN (\(GroupAppend.placeholders(chunk.count))) ORDER BY s.device_id
                    """,
                    chunk.map { .text($0) }
                ).map {
                    StoredPushSubscription(
                        deviceID: try $0.string("device_id"), authorID: try $0.string("author_id"), endpoint: try $0.string("endpoint"),
                        p256dh: try $0.string("p256dh"), auth: try $0.string("auth"))
                }
            }
            return found
        }
    }

    /// When moves in `gameID` last called `authorID` back (nil: never).
    public func lastCalledBack(authorID: String, gameID: String) async throws -> Int64? {
        try await database.read { db in
            try await db.first("SELECT called_at FROM call_backs WHERE author_id = ? AND game_id = ?", .text(authorID), .text(gameID))?.int(
                "called_at")
        }
    }

    public func calledBack(authorID: String, gameID: String, at now: Int64) async throws {
        try await database.transaction { db in
            try await db.execute(
                """
                INSERT INTO call_backs (author_id, game_id, called_at) VALUES (?, ?, ?)
                ON CONFLICT (author_id, game_id) DO UPDATE SET called_at = excluded.called_at
                """, .text(authorID), .text(gameID), .integer(now))
        }
    }

    /// The server's secret named `name`, made by `make` and kept the first time it is asked for
    /// (every instance on one database gets the same one).
    /// A value the server keeps about itself (`restored-at`), or nil.
    public func serverValue(_ name: String) async throws -> String? {
        try await database.read { db in
            try await db.first("SELECT value FROM server_secrets WHERE name = ?", .text(name)).map { try $0.string("value") }
        }
    }

    public func serverSecret(_ name: String, make: @Sendable () -> String) async throws -> String {
        if let kept = try await database.read({ db in
            try await db.first("SELECT value FROM server_secrets WHERE name = ?", .text(name)).map { try $0.string("value") }
        }) {
            return kept
        }
        let made = make()
        return try await database.transaction { db in
            try await db.execute("INSERT INTO server_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", .text(name), .text(made))
            return try await db.first("SELECT value FROM server_secrets WHERE name = ?", .text(name)).map { try $0.string("value") } ?? ""
        }
    }
}
