import CrossmateProtocol
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import CrossmateServer

/// A device that takes relays hears of a commit in a frame of its own only once the game has
/// been quiet a moment (`SocketHub.noticeDelay`): while the typing goes on, the next relay
/// carries the commit. On one embedded event loop, so the time is the test's.
@Suite struct CommitNoticeTests {
    let loop = EmbeddedEventLoop()
    let hub = SocketHub(metrics: ServerMetrics(), logger: Logger(label: "test"))

    /// Ann's move `sequence`, relayed to Bob before its commit and then committed.
    func annTypes(_ sequence: Int64) {
        let moves = InlineChanges(after: sequence - 1, changes: [EncodedChange(sequence: sequence, kind: .move, json: #"{"letter":"A"}"#)])
        hub.relay(game: "g", moves, exceptDevice: "ann-phone")
        hub.hear(.zoneChanged(game: "g", sequence: sequence, sender: "ann-phone", inline: moves), from: .here)
    }

    /// What Bob's socket was sent, as text, in order.
    func sent(to channel: EmbeddedChannel) throws -> [String] {
        loop.run()
        var texts: [String] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) { texts.append(String(buffer: frame.unmaskedData)) }
        return texts
    }

    /// A channel that is connected, as a socket's is (the hub writes only to active ones).
    func socket() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    @Test func aNoticeWaitsUntilTheGameIsQuiet() throws {
        let (ann, bob) = (try socket(), try socket())
        let annSocket = hub.register(deviceID: "ann-phone", authorID: "ann", channel: ann)
        let bobSocket = hub.register(deviceID: "bob-phone", authorID: "bob", channel: bob)
        hub.subscribe(annSocket, to: ["g"])
        hub.subscribe(bobSocket, to: ["g"])
        hub.takeRelays(bobSocket)

        annTypes(1)
        loop.advanceTime(by: .milliseconds(300))
        annTypes(2)
        // 600 ms after the first commit, 300 after the last: still typing, so no notice yet.
        loop.advanceTime(by: .milliseconds(300))
        let typing = try sent(to: bob)
        #expect(typing.count == 2)
        #expect(typing.allSatisfy { $0.contains(#""type":"relay""#) && $0.contains(#""changes":[{"#) })

        // Quiet for the whole delay after the last commit: one notice, through sequence 2.
        loop.advanceTime(by: .milliseconds(150))
        let quiet = try sent(to: bob)
        #expect(quiet.count == 1)
        #expect(quiet.first?.contains(#""changes":[]"#) == true)
        #expect(quiet.first?.contains(#""committed":"\#(ChangeToken(zone: "g", sequence: 2).encoded)""#) == true)
        loop.advanceTime(by: .seconds(2))
        #expect(try sent(to: bob).isEmpty)
        #expect(try sent(to: ann).isEmpty)
    }
}
