import CrossmateProtocol
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import Synchronization

/// What the device's socket reports to the engine.
enum SocketEvent: Sendable {
    case connected
    case message(ServerSocketMessage)
    /// The socket closed or could not open; it is tried again after `retryIn`.
    case disconnected(reason: String, retryIn: Duration)
}

/// The device's one WebSocket: opened with the bearer token in the header, reopened with
/// backoff whenever it drops, kept alive with pings (and given up when nothing arrives for two
/// ping intervals, as on a dead network). Messages are written only while it is open; `send`
/// says whether it was.
final class SocketLink: Sendable {
    let events: AsyncStream<SocketEvent>
    private let sink: AsyncStream<SocketEvent>.Continuation
    private let outgoing = Mutex<AsyncStream<String>.Continuation?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let url: String
    private let token: String
    private let pingInterval: Duration
    private let logger: Logger

    init(url: String, token: String, pingInterval: Duration = .seconds(15), logger: Logger) {
        self.url = url
        self.token = token
        self.pingInterval = pingInterval
        self.logger = logger
        (events, sink) = AsyncStream.makeStream(of: SocketEvent.self, bufferingPolicy: .unbounded)
    }

    /// Starts connecting (and reconnecting) until `stop`.
    func start(seed: UInt64) {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in await self.run(seed: seed) }
        }
    }

    func stop() {
        task.withLock { $0?.cancel() }
        outgoing.withLock { $0?.finish() }
        sink.finish()
    }

    var isOpen: Bool { outgoing.withLock { $0 != nil } }

    /// Writes a message if the socket is open.
    @discardableResult
    func send(_ message: ClientSocketMessage) -> Bool {
        guard let data = try? JSONEncoder().encode(message) else { return false }
        let text = String(decoding: data, as: UTF8.self)
        return outgoing.withLock { continuation in
            guard let continuation else { return false }
            if case .terminated = continuation.yield(text) { return false }
            return true
        }
    }

    private func run(seed: UInt64) async {
        var backoff = Backoff(initial: .milliseconds(200), maximum: .seconds(20), seed: seed)
        while !Task.isCancelled {
            let (reason, opened, throttled) = await connectOnce()
            outgoing.withLock { $0 = nil }
            if opened { backoff.reset() }
            if Task.isCancelled { break }
            // A refusal for too many requests waits at least as long as the server's buckets take
            // to refill a little.
            let wait = backoff.next(atLeast: throttled ? .seconds(2) : .zero)
            sink.yield(.disconnected(reason: reason, retryIn: wait))
            try? await Task.sleep(for: wait)
        }
    }

    private struct Silent: Error {}
    private struct Throttled: Error {}

    /// One connection, until it drops: returns why, whether it opened at all, and whether the
    /// server refused it as throttled.
    private func connectOnce() async -> (String, Bool, Bool) {
        let (toSend, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        let lastHeard = Locked(ContinuousClock.now)
        let sink = self.sink
        let pingInterval = self.pingInterval
        let refusal = Locked<String?>(nil)
        let opened = Locked(false)
        do {
            try await WebSocketClient.connect(
                url: url, configuration: .init(additionalHeaders: [.authorization: "Bearer \(token)"]),
                tlsConfiguration: url.hasPrefix("wss://") ? ClientTLS.configuration : nil, logger: logger
            ) { inbound, outbound, _ in
                // The server answers (or refuses) once the client has spoken: a ping first, and the
                // socket counts as open when something other than a refusal comes back.
                continuation.yield(ClientSocketMessage.pingJSON)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in toSend { try await outbound.write(.text(text)) }
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: pingInterval)
                            if lastHeard.withLock({ ContinuousClock.now - $0 }) > pingInterval * 2 { throw Silent() }
                            continuation.yield(ClientSocketMessage.pingJSON)
                        }
                    }
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 16 << 20) {
                            lastHeard.withLock { $0 = .now }
                            guard case let .text(text) = message,
                                let parsed = try? JSONDecoder().decode(ServerSocketMessage.self, from: Data(text.utf8))
                            else { continue }
                            if case let .error(body) = parsed {
                                refusal.withLock { $0 = "\(body.error.rawValue): \(body.message)" }
                                if body.error == .rateLimited { throw Throttled() }
                            } else if opened.withLock({ opening in
                                defer { opening = true }
                                return !opening
                            }) {
                                self.outgoing.withLock { $0 = continuation }
                                sink.yield(.connected)
                            }
                            sink.yield(.message(parsed))
                        }
                    }
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
        } catch is Silent {
            continuation.finish()
            return ("nothing heard for \(pingInterval * 2)", opened.withLock { $0 }, false)
        } catch is Throttled {
            continuation.finish()
            return (refusal.withLock { $0 } ?? "throttled", false, true)
        } catch {
            continuation.finish()
            return (refusal.withLock { $0 } ?? ServerAPI.describe(error), opened.withLock { $0 }, false)
        }
        continuation.finish()
        return (refusal.withLock { $0 } ?? "the server closed the socket", opened.withLock { $0 }, false)
    }
}

/// A value several tasks share, behind a lock.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<T>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}
