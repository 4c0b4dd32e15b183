import AsyncHTTPClient
import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// Calls players back to their games by Web Push, as `CallBack.calls` decides: a nudge, a chat
/// message or a friend's moves, for each subscribed device of each player the rule calls.
///
/// Bounded whatever one account does: candidates wait in a queue of `maximumWaiting` (the oldest
/// go first), moves are considered at most once per game every `movesConsideredEvery`, and
/// pushes go out one at a time with a deadline, so a slow push service delays only other
/// pushes, never a move. The write path hands candidates over without waiting (`consider`).
final class PushNotifier: Service, Sendable {
    typealias Candidate = CallBackCandidate

    static let maximumWaiting = 1_000
    static let movesConsideredEvery: Int64 = 30_000
    static let deadline = TimeAmount.seconds(10)

    private let store: Store
    private let clock: @Sendable () -> Int64
    private let logger: Logger
    /// Whether `http://127.0.0.1` endpoints are admitted (`CROSSMATE_PUSH_ALLOW_LOOPBACK=1`, tests only).
    let allowLoopback: Bool
    /// Who the VAPID claims name as the sender (RFC 8292 `sub`).
    let subject: String
    private let queue: AsyncStream<Candidate>
    private let sink: AsyncStream<Candidate>.Continuation
    private let movesConsidered = Mutex([String: Int64]())
    /// The VAPID key's raw bytes, once read.
    private let key = Mutex<[UInt8]?>(nil)
    /// Pushes sent and answered 2xx, for tests and metrics.
    let delivered = Atomic<Int>(0)

    init(store: Store, clock: @escaping @Sendable () -> Int64, logger: Logger, allowLoopback: Bool, subject: String = "mailto:crossmate@localhost") {
        self.store = store
        self.clock = clock
        self.logger = logger
        self.allowLoopback = allowLoopback
        self.subject = subject
        (queue, sink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(Self.maximumWaiting))
    }

    /// The server's VAPID key, made once and kept in the store.
    func vapidKey() async throws -> P256.Signing.PrivateKey {
        if let kept = key.withLock({ $0 }), let loaded = try? P256.Signing.PrivateKey(rawRepresentation: kept) { return loaded }
        let text = try await store.serverSecret("vapid-p256") { Base64URL.encode(Array(P256.Signing.PrivateKey().rawRepresentation)) }
        guard let raw = Base64URL.decode(text), let loaded = try? P256.Signing.PrivateKey(rawRepresentation: raw) else {
            throw CorruptRecord(what: "VAPID key", gameID: "-", reason: "the stored key is not a P-256 private key")
        }
        key.withLock { $0 = raw }
        return loaded
    }

    /// Hands over a candidate; never waits. Moves of a game considered less than
    /// `movesConsideredEvery` ago are passed over (the rule calls at most once in ten minutes).
    func consider(_ candidate: Candidate) {
        if candidate.event == .moves {
            let now = clock()
            let due = movesConsidered.withLock { considered -> Bool in
                if let last = considered[candidate.gameID], now - last < Self.movesConsideredEvery { return false }
                if considered.count >= 100_000 { considered.removeAll() }
                considered[candidate.gameID] = now
                return true
            }
            guard due else { return }
        }
        sink.yield(candidate)
    }

    func run() async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        await cancelWhenGracefulShutdown {
            for await candidate in self.queue {
                do { try await self.handle(candidate, client: client) } catch {
                    self.logger.warning("a push could not be sent", metadata: ["game": "\(candidate.gameID)", "error": "\(error)"])
                }
            }
        }
        try await client.shutdown()
    }

    /// Works out whom `candidate` calls back and pushes to their devices.
    private func handle(_ candidate: Candidate, client: HTTPClient) async throws {
        let players = try await store.participants(gameID: candidate.gameID).filter { !$0.hasLeft && !$0.revoked }
        let recipients = players.map(\.authorID).filter { $0 != candidate.sender && (candidate.recipient == nil || $0 == candidate.recipient) }
        let subscriptions = try await store.pushSubscriptions(of: recipients)
        guard !subscriptions.isEmpty, let heading = try await store.gameHeading(candidate.gameID) else { return }
        let now = clock()
        let senderName = try await store.displayNames([candidate.sender])[candidate.sender] ?? "A friend"
        let message = PushMessage(candidate, senderName: senderName, title: heading.title)
        for authorID in Set(subscriptions.map(\.authorID)).sorted() {
            let decisions = try await store.decisions(of: authorID)
            let facts = CallBack.Facts(
                event: candidate.event, sender: candidate.sender, recipient: authorID, blocked: SocialController.blocked(decisions),
                settings: CallBack.Settings(SocialController.settings(decisions)),
                devices: try await store.presence(gameID: candidate.gameID, authorID: authorID),
                horizon: try await store.horizon(gameID: candidate.gameID, authorID: authorID), sequence: candidate.sequence,
                lastCalledForMoves: candidate.event == .moves ? try await store.lastCalledBack(authorID: authorID, gameID: candidate.gameID) : nil)
            guard CallBack.calls(facts, now: now) else { continue }
            if candidate.event == .moves { try await store.calledBack(authorID: authorID, gameID: candidate.gameID, at: now) }
            for subscription in subscriptions where subscription.authorID == authorID {
                await push(message, to: subscription, client: client)
            }
        }
    }

    /// Sends one message to one subscription; a subscription the push service no longer knows
    /// (404, 410) is dropped.
    func push(_ message: PushMessage, to subscription: StoredPushSubscription, client: HTTPClient) async {
        do {
            guard let endpoint = URL(string: subscription.endpoint) else { return }
            let keys = try WebPush.SubscriberKeys(p256dh: subscription.p256dh, auth: subscription.auth)
            let body = try WebPush.encrypt(message.bytes, for: keys)
            var request = HTTPClientRequest(url: subscription.endpoint)
            request.method = .POST
            request.headers.add(name: "TTL", value: "86400")
            request.headers.add(name: "Urgency", value: message.type == .moves ? "low" : "normal")
            request.headers.add(name: "Content-Encoding", value: "aes128gcm")
            request.headers.add(name: "Content-Type", value: "application/octet-stream")
            request.headers.add(
                name: "Authorization",
                value: try WebPush.vapidAuthorization(endpoint: endpoint, key: try await vapidKey(), subject: subject, now: clock() / 1000))
            request.body = .bytes(ByteBuffer(bytes: body))
            let response = try await client.execute(request, timeout: Self.deadline)
            _ = try? await response.body.collect(upTo: 16 * 1024)
            switch response.status.code {
            case 200..<300: delivered.add(1, ordering: .relaxed)
            case 404, 410: try await store.deletePushSubscription(deviceID: subscription.deviceID, endpoint: subscription.endpoint)
            default:
                logger.notice("a push service refused a push", metadata: ["status": "\(response.status.code)", "device": "\(subscription.deviceID)"])
            }
        } catch {
            logger.notice("a push could not be delivered", metadata: ["device": "\(subscription.deviceID)", "error": "\(error)"])
        }
    }

    /// Why `endpoint` cannot take pushes, or nil: `https` to a name or a public address (no
    /// loopback, private, link-local or unspecified address: the server must not be made to
    /// post into its own network), at most 1 KB; with `allowLoopback`, `http://127.0.0.1` too.
    static func refusal(of endpoint: String, allowLoopback: Bool) -> String? {
        guard endpoint.utf8.count <= 1_024, let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(),
            let host = url.host?.lowercased(), !host.isEmpty, url.user == nil, url.password == nil
        else { return "endpoint is an https URL of at most 1 KB" }
        if allowLoopback, scheme == "http", host == "127.0.0.1" { return nil }
        guard scheme == "https" else { return "endpoint must be https" }
        if host == "localhost" || host.hasSuffix(".localhost") || host.hasSuffix(".local") || host.hasSuffix(".internal")
            || !host.contains(".") && !host.contains(":")
        {
            return "endpoint must be a public push service, not \(TextRule.quote(host))"
        }
        if let octets = Self.ipv4(host) {
            let (a, b) = (octets[0], octets[1])
            let local =
                a == 0 || a == 10 || a == 127 || (a == 169 && b == 254) || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168)
                || (a == 100 && (64...127).contains(b)) || a >= 224
            if local { return "endpoint must be a public address, not \(host)" }
        } else if host.hasPrefix("[") || host.contains(":") {
            let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if bare == "::1" || bare == "::" || bare.hasPrefix("fe80") || bare.hasPrefix("fc") || bare.hasPrefix("fd") || bare.hasPrefix("::ffff:") {
                return "endpoint must be a public address, not \(host)"
            }
        }
        return nil
    }

    private static func ipv4(_ host: String) -> [Int]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let octets = parts.compactMap { Int($0) }.filter { (0...255).contains($0) }
        return octets.count == 4 ? octets : nil
    }
}

/// What a push says: `{"type", "gameID", "title", "body", "url"}`, within what a push carries.
struct PushMessage: Codable, Sendable {
    var type: CallBack.Event
    var gameID: String
    var title: String
    var body: String
    var url: String

    init(_ candidate: CallBackCandidate, senderName: String, title: String) {
        type = candidate.event
        gameID = candidate.gameID
        self.title = String(TextRule.quote(title, maximumBytes: 200))
        let name = TextRule.quote(senderName, maximumBytes: 100)
        let words = candidate.text.map { TextRule.quote($0, maximumBytes: 600) } ?? ""
        body =
            switch candidate.event {
            case .nudge: words.isEmpty ? "\(name) nudged you" : "\(name): \(words)"
            case .chat: "\(name): \(words)"
            case .moves: "\(name) is solving"
            }
        url = "/games/\(gameID)"
    }

    var bytes: [UInt8] { Array(JSONText.sorted(self).utf8) }
}
