import NIOCore
import NIOWebSocket

/// What every simulated device writes on its WebSocket, as a client must (masked frames): its
/// text messages, and the answers to the server's control frames.
extension ChannelHandlerContext {
    /// Sends `text` as one masked text frame.
    func sendText(_ text: String) {
        writeAndFlush(
            NIOAny(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: channel.allocator.buffer(string: text))), promise: nil)
    }

    /// Answers a ping with its pong and a close by closing; whether `frame` was either.
    func answerControl(_ frame: WebSocketFrame) -> Bool {
        switch frame.opcode {
        case .ping:
            writeAndFlush(NIOAny(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)), promise: nil)
            return true
        case .connectionClose:
            close(promise: nil)
            return true
        default:
            return false
        }
    }
}
