import CrossmateProtocol
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// How long and how large an HTTP request may be before the server gives up on it.
public struct HTTPLimits: Sendable {
    /// A request's head (request line and headers) must arrive within this time of the
    /// connection opening, or of the previous response.
    public var headTimeout = TimeAmount.seconds(10)
    /// A kept-alive connection may wait this long for its next request.
    /// (Longer than HTTP clients keep idle connections in their pools, 60 s for
    /// AsyncHTTPClient, so the client closes first rather than sending into a closing socket.)
    public var idleTimeout = TimeAmount.seconds(75)
    /// A request's body must arrive within `bodyTimeout` plus a second per `bodyBytesPerSecond`.
    public var bodyTimeout = TimeAmount.seconds(10)
    public var bodyBytesPerSecond = 64 * 1024
    /// The request line's target (path and query).
    public var maximumURIBytes = 8 * 1024
    public var maximumHeaderFieldBytes = 16 * 1024
    public var maximumHeaderBytes = 32 * 1024
    public var maximumHeaderCount = 100

    public init() {}
}

/// Wraps the server's HTTP/1 (and WebSocket upgrade) child channel with an `HTTPGuard` just
/// after the request decoder, from the moment the connection opens: Hummingbird's own idle
/// handler is installed only once a request head has been read, and its pipeline answers no
/// malformed request.
struct GuardedHTTPChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let limits: HTTPLimits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(HTTPGuard(limits: limits, logger: logger), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Answers what the HTTP decoder cannot read (400, or 431 for headers over their limits, 414
/// for an over-long target) and closes; closes connections whose requests arrive too slowly (a
/// head trickled a line at a time, a body trickled a byte at a time, or nothing at all). Once a
/// connection has upgraded to a WebSocket (its 101 went out) it steps aside: the socket has
/// pings of its own.
final class HTTPGuard: ChannelDuplexHandler, RemovableChannelHandler {
    // Anything passes through untouched; request and response parts are looked at, not unwrapped
    // by force (after an upgrade, raw bytes and WebSocket frames flow past).
    typealias InboundIn = Any
    typealias InboundOut = Any
    typealias OutboundIn = Any
    typealias OutboundOut = Any

    private enum Phase {
        case http
        /// A WebSocket took the connection over.
        case upgraded
        /// The guard answered (or gave up) and the connection is closing: nothing more is read.
        case closing
    }

    private let limits: HTTPLimits
    private let logger: Logger
    private var deadline: Scheduled<Void>?
    private var phase = Phase.http

    init(limits: HTTPLimits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(context, in: limits.headTimeout, answer: true)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch phase {
        case .upgraded: return context.fireChannelRead(data)
        case .closing: return
        case .http: break
        }
        if let part = unwrapInboundIn(data) as? HTTPServerRequestPart {
            switch part {
            case let .head(head):
                if head.uri.utf8.count > limits.maximumURIBytes {
                    refuse(context, .uriTooLong, "the request's target is longer than \(limits.maximumURIBytes / 1024) KB")
                    return
                }
                if head.headers[canonicalForm: "upgrade"].contains(where: { $0.lowercased() == "websocket" }) {
                    // An upgrade has no body: the server answers it (101, or an ordinary refusal).
                    deadline?.cancel()
                } else {
                    let length = head.headers.first(name: "content-length").flatMap { Int($0) } ?? 0
                    let seconds = Int64(length / max(1, limits.bodyBytesPerSecond))
                    arm(context, in: limits.bodyTimeout + .seconds(seconds), answer: true)
                }
            case .body: break
            case .end:
                // The server is working on it: no deadline until the response is written.
                deadline?.cancel()
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if phase == .http, let part = unwrapOutboundIn(data) as? HTTPServerResponsePart {
            switch part {
            case let .head(head) where head.status == .switchingProtocols:
                // Upgraded to a WebSocket: its own pings and limits take over from here.
                deadline?.cancel()
                phase = .upgraded
            case .end: arm(context, in: limits.idleTimeout, answer: false)
            default: break
            }
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard phase == .http, let parserError = error as? HTTPParserError else {
            if phase != .closing { context.fireErrorCaught(error) }
            return
        }
        switch parserError {
        case .headerOverflow:
            refuse(
                context, .requestHeaderFieldsTooLarge,
                "the request's headers are over their limits (\(limits.maximumHeaderCount) headers, \(limits.maximumHeaderBytes / 1024) KB)")
        default:
            refuse(context, .badRequest, "the request is not well-formed HTTP/1.1 (\(parserError))")
        }
    }

    /// Closes the connection if nothing moves it on within `delay`: with a 408 while a request
    /// is on its way, silently when it is between requests.
    private func arm(_ context: ChannelHandlerContext, in delay: TimeAmount, answer: Bool) {
        deadline?.cancel()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
            guard phase == .http else { return }
            if answer {
                refuse(context, .requestTimeout, "the request took too long to arrive")
            } else {
                phase = .closing
                context.close(promise: nil)
            }
        }
    }

    /// Answers with `status` and a JSON error body, then closes the connection.
    private func refuse(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ message: String) {
        guard phase == .http else { return }
        phase = .closing
        deadline?.cancel()
        let code: ErrorCode = status == .requestHeaderFieldsTooLarge || status == .uriTooLong ? .limitExceeded : .invalid
        let body = (try? JSONEncoder().encode(ErrorBody(code, message))) ?? Data()
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(body.count))
        headers.add(name: "connection", value: "close")
        context.write(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
        context.close(promise: nil)
        logger.debug("refused a request", metadata: ["status": "\(status.code)"])
    }
}
