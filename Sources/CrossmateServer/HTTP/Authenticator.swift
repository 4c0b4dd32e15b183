import CrossmateProtocol
import CrossmateStore
import Hummingbird
import Synchronization

/// Who a request is: the device its bearer token names, and that device's request bucket.
struct Authenticator: Sendable {
    let store: Store
    /// Devices by token hash. Tokens are never reassigned; a revoked device's entries go.
    let devices: DeviceCache
    /// Requests, socket upgrades and socket pushes, per device.
    let limiter: RateLimiter
    let clock: @Sendable () -> Int64

    /// The device the request's bearer token names; nil without an Authorization header.
    func authenticate(_ request: Request) async throws -> StoredDevice? {
        guard let header = request.headers[.authorization] else { return nil }
        guard header.lowercased().hasPrefix("bearer ") else {
            throw APIError(.unauthorized, "the Authorization header must be \"Bearer TOKEN\"")
        }
        let token = String(header.dropFirst("bearer ".count)).trimmingSpaces
        guard token.utf8.count <= 200, let device = try await devices.device(tokenHash: Secrets.hash(token), store: store) else {
            throw APIError(.unauthorized, "the device token is not valid (or the device was signed out); sign in again or link this device anew")
        }
        return device
    }

    /// Takes one token from the device's request bucket (HTTP requests, socket upgrades and
    /// socket pushes share it), or throws `rateLimited` with the seconds to wait.
    func takeRequestToken(_ device: StoredDevice) throws {
        try limiter.admit(device.deviceID, now: clock()) { "too many requests from this device; retry after \($0) s" }
    }
}

/// A bounded memory of token hashes already looked up. A revoked device is forgotten on every
/// instance (the revocation fans out as an event).
final class DeviceCache: Sendable {
    private struct Entries {
        var byTokenHash: [String: StoredDevice] = [:]
        /// Devices revoked since the cache was last emptied: a lookup that began before the
        /// revocation must not put one back.
        var revoked: Set<String> = []
    }

    private let entries = Mutex(Entries())
    private let capacity = 100_000

    func device(tokenHash: String, store: Store) async throws -> StoredDevice? {
        if let cached = entries.withLock({ $0.byTokenHash[tokenHash] }) { return cached }
        guard let device = try await store.device(tokenHash: tokenHash) else { return nil }
        return entries.withLock {
            guard !$0.revoked.contains(device.deviceID) else { return nil }
            if $0.byTokenHash.count >= capacity { $0 = Entries() }
            $0.byTokenHash[tokenHash] = device
            return device
        }
    }

    /// An account was renamed: its cached devices carry the new name.
    func rename(authorID: String, to name: String) {
        entries.withLock {
            for (hash, device) in $0.byTokenHash where device.authorID == authorID { $0.byTokenHash[hash]?.displayName = name }
        }
    }

    func forget(deviceID: String) {
        entries.withLock {
            $0.byTokenHash = $0.byTokenHash.filter { $0.value.deviceID != deviceID }
            if $0.revoked.count >= capacity { $0.revoked.removeAll() }
            $0.revoked.insert(deviceID)
        }
    }
}
