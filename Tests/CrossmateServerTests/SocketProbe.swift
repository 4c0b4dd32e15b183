import CrossmateProtocol
import Foundation
import HummingbirdWSClient
import Logging

/// A device's WebSocket in a test: messages received arrive on `received`; `send` writes.
final class SocketProbe: Sendable {
    let received: AsyncStream<ServerSocketMessage>
    private let receivedContinuation: AsyncStream<ServerSocketMessage>.Continuation
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<Void, any Error>

    init(port: Int, token: String) {
        (received, receivedContinuation) = AsyncStream.makeStream(of: ServerSocketMessage.self)
        let (toSend, outgoing) = AsyncStream.makeStream(of: String.self)
        self.outgoing = outgoing
        let sink = receivedContinuation
        task = Task {
            defer { sink.finish() }
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/v1/socket?token=\(token)", logger: Logger(label: "probe")) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in toSend {
                            try await outbound.write(.text(text))
                        }
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case let .text(text) = message,
                              let parsed = try? JSONDecoder().decode(ServerSocketMessage.self, from: Data(text.utf8)) else { continue }
                        sink.yield(parsed)
                    }
                    group.cancelAll()
                }
            }
        }
    }

    func send(_ message: ClientSocketMessage) {
        guard let data = try? JSONEncoder().encode(message) else { preconditionFailure("a socket message failed to encode") }
        outgoing.yield(String(decoding: data, as: UTF8.self))
    }

    /// Sends text as it is (for messages a well-behaved client would not send).
    func send(raw text: String) { outgoing.yield(text) }

    /// Subscribes and waits until the server has processed it (its pong follows the subscribe).
    func subscribe(_ games: [String], iterator: inout AsyncStream<ServerSocketMessage>.Iterator) async throws {
        send(.subscribe(games: games))
        send(.ping)
        _ = try await next(&iterator) { if case .pong = $0 { true } else { false } }
    }

    /// The next received message matching `predicate`; fails if the socket closes first or
    /// nothing comes within 10 s (a safety net, not synchronisation).
    func next(_ iterator: inout AsyncStream<ServerSocketMessage>.Iterator,
              where predicate: (ServerSocketMessage) -> Bool) async throws -> ServerSocketMessage {
        let deadline = Task { [receivedContinuation] in
            try await Task.sleep(for: .seconds(10))
            receivedContinuation.finish()
        }
        defer { deadline.cancel() }
        while let message = await iterator.next() {
            if predicate(message) { return message }
        }
        throw ProbeClosed()
    }

    func close() async {
        outgoing.finish()
        _ = try? await task.value
    }

    struct ProbeClosed: Error, CustomStringConvertible {
        var description: String { "the socket closed (or went silent for 10 s) before the expected message" }
    }
}
