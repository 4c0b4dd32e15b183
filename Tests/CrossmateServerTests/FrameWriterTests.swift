import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import CrossmateServer

/// The hub's frames, written as finished bytes below the WebSocket encoder, are what NIO's own
/// decoder reads back, at every length encoding, and in order with frames the encoder writes.
@Suite struct FrameWriterTests {
    /// A channel as a WebSocket's is after its upgrade (encoder only: nothing here reads), with a
    /// frame writer installed the way the socket controller does it.
    func socket() async throws -> (EmbeddedChannel, FrameWriter) {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
        let writer = try #require(await FrameWriter.install(on: channel))
        return (channel, writer)
    }

    /// The frames the channel wrote, read by NIO's WebSocket decoder.
    func frames(_ channel: EmbeddedChannel) throws -> [WebSocketFrame] {
        var bytes = ByteBuffer()
        while var part = try channel.readOutbound(as: ByteBuffer.self) { bytes.writeBuffer(&part) }
        let reader = EmbeddedChannel(handler: ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 20)))
        try reader.writeInbound(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try reader.readInbound(as: WebSocketFrame.self) { frames.append(frame) }
        return frames
    }

    @Test(arguments: [0, 1, 125, 126, 65_535, 65_536, 200_000])
    func aTextFrameOfAnyLengthReadsBack(length: Int) async throws {
        let (channel, writer) = try await socket()
        let text = String(repeating: "é", count: length / 2) + String(repeating: "a", count: length % 2)
        #expect(writer.write(FrameWriter.encode(text)))
        let read = try frames(channel)
        #expect(read.count == 1)
        #expect(read.first?.fin == true && read.first?.opcode == .text && read.first?.maskKey == nil)
        #expect(read.first.map { String(buffer: $0.unmaskedData) } == text)
    }

    @Test func framesFromTheWriterAndTheEncoderKeepTheirOrder() async throws {
        let (channel, writer) = try await socket()
        #expect(writer.write(FrameWriter.encode("one")))
        try await channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .pong, data: ByteBuffer(string: "two")))
        #expect(writer.write(FrameWriter.encode("three")))
        let read = try frames(channel)
        #expect(read.map(\.opcode) == [.text, .pong, .text])
        #expect(read.map { String(buffer: $0.unmaskedData) } == ["one", "two", "three"])
    }

    @Test func aChannelWithoutAWebSocketEncoderGetsNoWriter() async throws {
        #expect(await FrameWriter.install(on: EmbeddedChannel()) == nil)
    }

    @Test func aRemovedWriterSaysSo() async throws {
        let (channel, writer) = try await socket()
        try await channel.pipeline.removeHandler(writer)
        #expect(!writer.write(FrameWriter.encode("gone")))
    }
}
