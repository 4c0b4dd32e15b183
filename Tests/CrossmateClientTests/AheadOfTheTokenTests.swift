import CrossmateProtocol
import CrossmateSync
import Testing

@testable import CrossmateClient

/// What the engine holds beyond a game's token: a commit runs the token over relayed changes and
/// this device's own saved moves, and stops at a gap; what the token reaches is let go.
@Suite struct AheadOfTheTokenTests {
    static func change(_ sequence: Int64) -> ZoneChange {
        ZoneChange(sequence: sequence, record: .pause(Pause(gameID: "g", authorID: "ann", replicaID: "phone", at: sequence)))
    }

    @Test func aCommitRunsOverRelayedAndOwnMovesAndStopsAtAGap() {
        var ahead = AheadOfTheToken()
        // Relayed 11 and 13 after a token of 10; 9 is under the token, 11 again is held already.
        #expect(ahead.relay([Self.change(9), Self.change(11), Self.change(13)], in: "g", after: 10).map(\.sequence) == [11, 13])
        #expect(ahead.relay([Self.change(11)], in: "g", after: 10).isEmpty)
        // 12 is missing: no run through 13.
        #expect(ahead.run(in: "g", from: 10, through: 13) == nil)
        #expect(ahead.run(in: "g", from: 10, through: 11)?.map(\.sequence) == [11])
        // This device's own move took 12: the run goes through, holding only what was relayed.
        ahead.saved([8, 12], in: "g", after: 10)
        #expect(ahead.run(in: "g", from: 10, through: 13)?.map(\.sequence) == [11, 13])
        #expect(ahead.run(in: "other", from: 10, through: 11) == nil)
        // The token reached 12: 13 is still held; a reconnect lets it go.
        ahead.settled("g", through: 12)
        #expect(ahead.relayed(in: "g").map(\.sequence) == [13])
        #expect(ahead.run(in: "g", from: 12, through: 13)?.map(\.sequence) == [13])
        #expect(ahead.dropRelayed()["g"]?.map(\.sequence) == [13])
        #expect(ahead.relayed(in: "g").isEmpty && ahead.run(in: "g", from: 12, through: 13) == nil)
    }
}
