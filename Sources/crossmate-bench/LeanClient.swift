import NIOCore
import NIOHTTP1
import NIOPosix

/// The load generator shares the machine's two cores with the server it measures, so each
/// device pushes over its own bare keep-alive HTTP/1.1 connection: one request at a time, the
/// response body collected whole, no pool, no per-request timer. (AsyncHTTPClient, used for
/// set-up and fetches, took a third of the load generator's CPU.)
final class LeanConnection: Sendable {
    private let channel: any Channel
    private let host: String

    private init(channel: any Channel, host: String) {
        self.channel = channel
        self.host = host
    }

    static func connect(host: String, port: Int) async throws -> LeanConnection {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ExchangeHandler())
                }
            }
            .connect(host: host, port: port).get()
        return LeanConnection(channel: channel, host: host)
    }

    /// Sends one request and returns the status and body of its response.
    func send(_ method: HTTPMethod, _ path: String, token: String, body: ByteBuffer?) async throws -> (status: Int, body: ByteBuffer) {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: host)
        head.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: String(body.readableBytes))
        }
        let promise = channel.eventLoop.makePromise(of: (status: Int, body: ByteBuffer).self)
        channel.writeAndFlush(Exchange(head: head, body: body, promise: promise), promise: nil)
        return try await promise.futureResult.get()
    }

    func close() async {
        try? await channel.close()
    }
}

/// A request and the promise its response fulfils.
struct Exchange {
    var head: HTTPRequestHead
    var body: ByteBuffer?
    var promise: EventLoopPromise<(status: Int, body: ByteBuffer)>
}

/// Writes exchanges and answers them in order as responses arrive (HTTP/1.1 answers in order).
final class ExchangeHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Exchange
    typealias OutboundOut = HTTPClientRequestPart

    private var waiting = CircularBuffer<EventLoopPromise<(status: Int, body: ByteBuffer)>>()
    private var status = 0
    private var body = ByteBuffer()

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        waiting.append(exchange.promise)
        context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        if let body = exchange.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            status = Int(head.status.code)
            body.clear()
        case var .body(part):
            body.writeBuffer(&part)
        case .end:
            waiting.popFirst()?.succeed((status, body))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        while let promise = waiting.popFirst() { promise.fail(error) }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        while let promise = waiting.popFirst() { promise.fail(ChannelError.ioOnClosedChannel) }
        context.fireChannelInactive()
    }
}

/// Pulls values out of the server's JSON by key without decoding the whole document: enough
/// for the few fields the load generator reads, at a fraction of JSONDecoder's cost. Keys are
/// matched as `"key":`, so it reads only documents whose strings cannot contain such text
/// (tokens, identifiers and letters).
struct JSONScan {
    let bytes: [UInt8]

    init(_ text: String) { bytes = Array(text.utf8) }
    init(_ buffer: ByteBuffer) { bytes = Array(buffer.readableBytesView) }

    func contains(_ fragment: String) -> Bool {
        ranges(of: Array(fragment.utf8)).first != nil
    }

    /// Every string value of `key`, in document order.
    func strings(_ key: String) -> [String] {
        ranges(of: Array("\"\(key)\":\"".utf8)).map { start in
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += 1 }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
    }

    /// Every integer value of `key`, in document order.
    func integers(_ key: String) -> [Int64] {
        ranges(of: Array("\"\(key)\":".utf8)).compactMap { start in
            var end = start
            while end < bytes.count, bytes[end] == UInt8(ascii: "-") || (bytes[end] >= UInt8(ascii: "0") && bytes[end] <= UInt8(ascii: "9")) { end += 1 }
            return Int64(String(decoding: bytes[start..<end], as: UTF8.self))
        }
    }

    /// The index just after each occurrence of `pattern`.
    private func ranges(of pattern: [UInt8]) -> [Int] {
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return [] }
        var found: [Int] = []
        var index = 0
        let last = bytes.count - pattern.count
        while index <= last {
            if bytes[index] == pattern[0] {
                var matched = true
                for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
                    matched = false
                    break
                }
                if matched {
                    found.append(index + pattern.count)
                    index += pattern.count
                    continue
                }
            }
            index += 1
        }
        return found
    }
}
