import NIOCore
import NIOWebSocket

/// Writes text frames the hub sends (pokes, answers, relays) onto a WebSocket as finished bytes,
/// below the WebSocket encoder: a frame the server sends is the same bytes for every socket (no
/// mask), so it is encoded once for all its sockets instead of once per socket, and each write
/// goes through two fewer handlers. At 2,000 devices the pipeline's share of a write (the
/// encoder, its header buffer, the walk through the handlers) was 9 % of the server's CPU.
///
/// It sits just before `WebSocketFrameEncoder` (nearer the socket), so whatever lies below the
/// encoder still sees every byte. Frames the socket's own task writes (pongs, a close) still go
/// through the encoder; both kinds are written on the socket's event loop, in the order written.
final class FrameWriter: ChannelOutboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Touched only on the channel's event loop.
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Writes and flushes an encoded frame (`encode`); false when the handler is no longer in
    /// the pipeline. On the channel's event loop.
    func write(_ frame: ByteBuffer) -> Bool {
        guard let context else { return false }
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        return true
    }

    /// A final, unmasked text frame of `text`, as a server sends it (RFC 6455 §5.2).
    static func encode(_ text: String) -> ByteBuffer {
        let length = text.utf8.count
        var buffer = ByteBufferAllocator().buffer(capacity: length + 10)
        buffer.writeInteger(UInt8(0x81))  // FIN, text
        switch length {
        case ..<126: buffer.writeInteger(UInt8(length))
        case ...Int(UInt16.max):
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(length))
        default:
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(length))
        }
        buffer.writeString(text)
        return buffer
    }

    /// Puts a frame writer just before the channel's WebSocket encoder; nil when the channel has
    /// none (its frames then go through `Channel.writeAndFlush`).
    static func install(on channel: any Channel) async -> FrameWriter? {
        let writer = FrameWriter()
        let add: @Sendable () throws -> Void = {
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(writer, position: .before(try pipeline.context(handlerType: WebSocketFrameEncoder.self).handler))
        }
        do {
            if channel.eventLoop.inEventLoop { try add() } else { try await channel.eventLoop.submit(add).get() }
            return writer
        } catch {
            return nil
        }
    }
}
