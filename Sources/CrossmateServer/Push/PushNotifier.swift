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
/// Bounded whatever one account does, and whatever a push service does. Candidates wait in
/// turns per sender (`FairQueue`); a game's moves are weighed at most once per
/// `movesWindowMillis`, the newest that came meanwhile looked at again when it ends; each player's pushes wait in turns per player, and go out several at
/// once with none able to hold the rest (`PushSchedule`: at most a few per player and per push
/// service, a deadline on each whole exchange, an endpoint that fails rests a while). Each push
/// connects to the address its host was checked to have (`PushAddress`). What is dropped is
/// counted and logged. The write path hands candidates over without waiting (`consider`).
final class PushNotifier: Service, Sendable {
    typealias Candidate = CallBackCandidate

    static let deadline = Duration.seconds(Int64(Limits.pushDeadlineSeconds))

    private let store: Store
    private let clock: @Sendable () -> Int64
    private let logger: Logger
    private let metrics: ServerMetrics?
    /// Whether `http://` endpoints on loopback are admitted (`CROSSMATE_PUSH_ALLOW_LOOPBACK=1`, tests only).
    let allowLoopback: Bool
    /// Who the VAPID claims name as the sender (RFC 8292 `sub`).
    let subject: String
    private let candidates = Mutex(FairQueue<Candidate>(perKey: 100, total: Limits.pushesWaiting))
    private let candidateDropped = Atomic<Int>(0)
    private let candidateWake: AsyncStream<Void>
    private let candidateSignal: AsyncStream<Void>.Continuation
    let schedule = PushSchedule()
    private let deliveryWake: AsyncStream<Void>
    private let deliverySignal: AsyncStream<Void>.Continuation
    /// Per game: when its moves were last weighed, the newest that came since (to look at when
    /// the window ends), and whether that look is set.
    private let movesConsidered = Mutex([String: MovesWindow]())
    private struct MovesWindow {
        var weighedAt: Int64
        var waiting: Candidate?
        var lookSet = false
    }
    let movesWindowMillis: Int64
    /// The VAPID key's raw bytes, once read.
    private let key = Mutex<[UInt8]?>(nil)
    /// Pushes sent and answered 2xx, for tests and metrics.
    let delivered = Atomic<Int>(0)

    init(
        store: Store, clock: @escaping @Sendable () -> Int64, logger: Logger, allowLoopback: Bool, subject: String = "mailto:crossmate@localhost",
        metrics: ServerMetrics? = nil, movesWindowMillis: Int64 = 30_000
    ) {
        self.movesWindowMillis = movesWindowMillis
        self.store = store
        self.clock = clock
        self.logger = logger
        self.allowLoopback = allowLoopback
        self.subject = subject
        self.metrics = metrics
        (candidateWake, candidateSignal) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        (deliveryWake, deliverySignal) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
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

    /// Hands over a candidate; never waits. Moves of a game weighed less than
    /// `movesWindowMillis` ago wait: the newest of them is weighed when the window ends, so moves
    /// weighed while a player was still in the game never hide the ones made after they left.
    /// (The rule itself calls each player at most once in ten minutes.)
    func consider(_ candidate: Candidate) {
        if candidate.event == .moves {
            let now = clock()
            let window = movesWindowMillis
            let (due, lookIn) = movesConsidered.withLock { considered -> (Bool, Int64?) in
                if let last = considered[candidate.gameID], now - last.weighedAt < window {
                    considered[candidate.gameID]!.waiting = candidate
                    guard !last.lookSet else { return (false, nil) }
                    considered[candidate.gameID]!.lookSet = true
                    return (false, last.weighedAt + window - now)
                }
                if considered.count >= 100_000 { considered = considered.filter { $0.value.lookSet } }
                considered[candidate.gameID] = MovesWindow(weighedAt: now)
                return (true, nil)
            }
            if let lookIn {
                Task {
                    try? await Task.sleep(for: .milliseconds(lookIn))
                    self.lookAgain(at: candidate.gameID)
                }
            }
            guard due else { return }
        }
        queue(candidate)
    }

    /// A game's moves window ended: the newest moves that came in it are weighed now.
    private func lookAgain(at gameID: String) {
        let now = clock()
        let waiting = movesConsidered.withLock { considered -> Candidate? in
            guard var window = considered[gameID] else { return nil }
            let waiting = window.waiting
            window.waiting = nil
            window.lookSet = false
            if waiting != nil { window.weighedAt = now }
            considered[gameID] = window
            return waiting
        }
        if let waiting { queue(waiting) }
    }

    private func queue(_ candidate: Candidate) {
        let dropped = candidates.withLock { $0.push(candidate, key: candidate.sender).count }
        if dropped > 0 {
            candidateDropped.add(dropped, ordering: .relaxed)
            metrics?.webPushesDropped.increment(by: Int64(dropped))
        }
        candidateSignal.yield()
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.weighCandidates() }
                group.addTask { await self.sendDeliveries() }
                group.addTask { await self.reportDrops() }
            }
        }
    }

    /// Works out whom each candidate calls back, one at a time, in turns per sender.
    private func weighCandidates() async {
        for await _ in candidateWake {
            while let (_, candidate) = candidates.withLock({ $0.pop() }) {
                do { try await handle(candidate) } catch {
                    logger.warning("a push could not be prepared", metadata: ["game": "\(candidate.gameID)", "error": "\(error)"])
                }
            }
        }
    }

    /// Sends what the schedule hands out, each push in a task of its own.
    private func sendDeliveries() async {
        await withDiscardingTaskGroup { group in
            for await _ in deliveryWake {
                while let delivery = schedule.next(now: clock()) {
                    group.addTask {
                        let outcome = await self.push(delivery)
                        self.schedule.finished(delivery, outcome, now: self.clock())
                        self.deliverySignal.yield()
                    }
                }
            }
        }
    }

    /// Says once a minute how many pushes were dropped, and why.
    private func reportDrops() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: .seconds(60)) } catch { return }
            let (dropped, waiting) = schedule.takeDropped()
            let candidates = candidateDropped.exchange(0, ordering: .relaxed)
            guard dropped.total + candidates > 0 else { continue }
            logger.warning(
                "pushes dropped in the last minute",
                metadata: [
                    "queue_full": "\(dropped.queueFull)", "endpoint_resting": "\(dropped.resting)", "endpoint_limit": "\(dropped.endpointLimit)",
                    "candidates": "\(candidates)", "waiting": "\(waiting)",
                ])
        }
    }

    /// Works out whom `candidate` calls back and queues a push to each of their endpoints (one
    /// per endpoint, however many of their devices name it).
    private func handle(_ candidate: Candidate) async throws {
        let players = try await store.participants(gameID: candidate.gameID).filter { !$0.hasLeft && !$0.revoked }
        let recipients = players.map(\.authorID).filter { $0 != candidate.sender && (candidate.recipient == nil || $0 == candidate.recipient) }
        let subscriptions = try await store.pushSubscriptions(of: recipients)
        guard !subscriptions.isEmpty, let heading = try await store.gameHeading(candidate.gameID) else { return }
        let now = clock()
        let senderName = try await store.displayNames([candidate.sender])[candidate.sender] ?? "A friend"
        let message = PushMessage(candidate, senderName: senderName, title: heading.title)
        var queued = false
        for authorID in Set(subscriptions.map(\.authorID)).sorted() {
            let decisions = try await store.decisions(of: authorID)
            let facts = CallBack.Facts(
                event: candidate.event, sender: candidate.sender, recipient: authorID, blocked: AccountDecisions.blocked(decisions),
                settings: CallBack.Settings(AccountDecisions.settings(decisions)),
                devices: try await store.presence(gameID: candidate.gameID, authorID: authorID),
                horizon: try await store.horizon(gameID: candidate.gameID, authorID: authorID), sequence: candidate.sequence,
                lastCalledForMoves: candidate.event == .moves ? try await store.lastCalledBack(authorID: authorID, gameID: candidate.gameID) : nil)
            guard CallBack.calls(facts, now: now) else { continue }
            if candidate.event == .moves { try await store.calledBack(authorID: authorID, gameID: candidate.gameID, at: now) }
            var endpoints: Set<String> = []
            for subscription in subscriptions where subscription.authorID == authorID && endpoints.insert(subscription.endpoint).inserted {
                let dropped = schedule.enqueue(
                    PushDelivery(recipient: authorID, subscription: subscription, message: message, queuedAt: .now), now: now)
                if dropped > 0 { metrics?.webPushesDropped.increment(by: Int64(dropped)) }
                queued = true
            }
        }
        if queued { deliverySignal.yield() }
    }

    /// Sends one push and says how it went: to the address its host was checked to have, the
    /// whole exchange (lookup, connection, TLS, request, the answer's head) within `deadline`.
    /// A subscription the push service no longer knows (404, 410), or whose host has become a
    /// private address, is dropped.
    func push(_ delivery: PushDelivery) async -> PushOutcome {
        let subscription = delivery.subscription
        let outcome: PushOutcome
        do {
            outcome = try await withinDeadline(Self.deadline) { try await self.exchange(delivery) } ?? .unreachable
        } catch let refused as PushAddress.Refused {
            logger.notice(
                "a push endpoint's host is not a public address: its subscription is dropped",
                metadata: ["device": "\(subscription.deviceID)", "reason": "\(refused.reason)"])
            _ = try? await store.deletePushSubscription(deviceID: subscription.deviceID, endpoint: subscription.endpoint)
            return .unreachable
        } catch {
            logger.notice("a push could not be delivered", metadata: ["device": "\(subscription.deviceID)", "error": "\(error)"])
            return .unreachable
        }
        switch outcome {
        case .delivered:
            delivered.add(1, ordering: .relaxed)
            metrics?.webPushesSent.increment()
        case .gone: _ = try? await store.deletePushSubscription(deviceID: subscription.deviceID, endpoint: subscription.endpoint)
        case let .refused(status):
            logger.notice("a push service refused a push", metadata: ["status": "\(status)", "device": "\(subscription.deviceID)"])
        case .unreachable:
            logger.notice("a push endpoint did not answer in time", metadata: ["device": "\(subscription.deviceID)"])
        }
        return outcome
    }

    private func exchange(_ delivery: PushDelivery) async throws -> PushOutcome {
        let subscription = delivery.subscription
        let address: PushAddress.Resolved
        switch await PushAddress.check(endpoint: subscription.endpoint, allowLoopback: allowLoopback) {
        case let .allowed(resolved): address = resolved
        case let .refused(reason): throw PushAddress.Refused(reason: reason)
        case .unresolved: return .unreachable
        }
        guard let endpoint = URL(string: subscription.endpoint) else { throw PushAddress.Refused(reason: "endpoint is not a URL") }
        let keys = try WebPush.SubscriberKeys(p256dh: subscription.p256dh, auth: subscription.auth)
        let body = try WebPush.encrypt(delivery.message.bytes, for: keys)
        var request = HTTPClientRequest(url: subscription.endpoint)
        request.method = .POST
        request.headers.add(name: "TTL", value: "86400")
        request.headers.add(name: "Urgency", value: delivery.message.type == .moves ? "low" : "normal")
        request.headers.add(name: "Content-Encoding", value: "aes128gcm")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.headers.add(
            name: "Authorization",
            value: try WebPush.vapidAuthorization(endpoint: endpoint, key: try await vapidKey(), subject: subject, now: clock() / 1000))
        request.body = .bytes(ByteBuffer(bytes: body))
        // A client of its own, told to connect to the checked address whatever the name
        // resolves to now (TLS still checks the certificate against the name).
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: nil, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(3), read: Self.timeAmount))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.dnsOverride = [address.host: address.text, "[\(address.host)]": address.text]
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let status: UInt
        do {
            // The answer's head is all a push needs: its body is never waited for.
            status = try await client.execute(request, timeout: Self.timeAmount).status.code
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
        metrics?.webPushDuration.recordNanoseconds(delivery.queuedAt.duration(to: .now).inNanoseconds)
        switch status {
        case 200..<300: return .delivered
        case 404, 410: return .gone
        default: return .refused(status)
        }
    }

    static let timeAmount = TimeAmount.seconds(Int64(Limits.pushDeadlineSeconds))

    /// Why `endpoint` cannot take pushes, or nil: `https` to a name or a public address (no
    /// loopback, private, link-local or unspecified address: the server must not be made to
    /// post into its own network), at most 1 KB; with `allowLoopback`, `http://127.0.0.1` too.
    static func refusal(of endpoint: String, allowLoopback: Bool) -> String? {
        guard endpoint.utf8.count <= 1_024, let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(),
            let host = url.host?.lowercased(), !host.isEmpty, url.user == nil, url.password == nil
        else { return "endpoint is an https URL of at most 1 KB" }
        // Tests' stand-in push services: plain http to 127.0.0.1, or to a name (the push checks
        // that it resolves to loopback).
        if allowLoopback, scheme == "http", host == "127.0.0.1" || (Self.ipv4(host) == nil && !host.contains(":")) { return nil }
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

/// The notifier hears of what may call players back on this instance (the instance a write
/// reaches works out whom it calls, once).
extension PushNotifier: FactListener {
    func hear(_ fact: Fact, from origin: Origin) {
        if case let .mayCallBack(candidate) = fact, origin == .here { consider(candidate) }
    }
}
