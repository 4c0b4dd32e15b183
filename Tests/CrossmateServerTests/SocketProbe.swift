import CrossmateProtocol
import Foundation
import Glibc
import HTTPTypes
import HummingbirdWSClient
import Logging

/// A device's WebSocket in a test: messages received arrive on `received`; `send` writes.
final class SocketProbe: Sendable {
    let received: AsyncStream<ServerSocketMessage>
    private let receivedContinuation: AsyncStream<ServerSocketMessage>.Continuation
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<Void, any Error>

    /// Opens a socket with the device's token in the Authorization header, or with a socket
    /// ticket in the URL (as a browser does).
    init(port: Int, token: String? = nil, ticket: String? = nil) {
        (received, receivedContinuation) = AsyncStream.makeStream(of: ServerSocketMessage.self)
        let (toSend, outgoing) = AsyncStream.makeStream(of: String.self)
        self.outgoing = outgoing
        let sink = receivedContinuation
        task = Task {
            defer { sink.finish() }
            let url = "ws://127.0.0.1:\(port)/v1/socket" + (ticket.map { "?ticket=\($0)" } ?? "")
            let headers: HTTPFields = token.map { [.authorization: "Bearer \($0)"] } ?? [:]
            try await WebSocketClient.connect(
                url: url, configuration: .init(maxFrameSize: 4 << 20, additionalHeaders: headers),
                logger: Logger(label: "probe")
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in toSend {
                            try await outbound.write(.text(text))
                        }
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case let .text(text) = message,
                            let parsed = try? JSONDecoder().decode(ServerSocketMessage.self, from: Data(text.utf8))
                        else { continue }
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
    func next(
        _ iterator: inout AsyncStream<ServerSocketMessage>.Iterator,
        where predicate: (ServerSocketMessage) -> Bool
    ) async throws -> ServerSocketMessage {
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

/// A device that opens its WebSocket, subscribes, and then stops reading: what a phone on a
/// dead network or a frozen tab looks like to the server. Plain POSIX sockets, so nothing reads
/// on its behalf; its receive buffer is made small so that it fills quickly.
final class StalledSocket {
    private let descriptor: Int32

    init(port: Int, token: String, subscribeTo games: [String]) throws {
        // A small receive buffer fills quickly; the read timeout is a safety net for `drainUntilClosed`.
        descriptor = try Self.connectLoopback(port: port, receiveBufferBytes: 4_096, readTimeoutSeconds: 10)
        let upgrade =
            "GET /v1/socket HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        let subscribe = String(decoding: try JSONEncoder().encode(ClientSocketMessage.subscribe(games: games)), as: UTF8.self)
        try send(Array(upgrade.utf8) + Self.maskedTextFrame(subscribe))
    }

    deinit { close(descriptor) }

    /// A TCP connection to `port` on 127.0.0.1 with a read timeout (and, when given, a receive
    /// buffer of that size): the descriptor.
    static func connectLoopback(port: Int, receiveBufferBytes: Int32? = nil, readTimeoutSeconds: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("socket() failed") }
        if var size = receiveBufferBytes {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure("connect() failed")
        }
        return descriptor
    }

    /// A client's text frame (clients mask what they send), for messages under 126 bytes.
    static func maskedTextFrame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        precondition(payload.count < 126)
        let mask: [UInt8] = [0x1F, 0x2E, 0x3D, 0x4C]
        return [0x81, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    private func send(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
        guard sent == bytes.count else { throw Failure("send() failed") }
    }

    /// Reads what the server sent until it closes the connection; false if the connection is
    /// still open after 10 s without data.
    func drainUntilClosed() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
