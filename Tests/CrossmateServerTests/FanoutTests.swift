import CrossmateProtocol
import Foundation
import Testing

@testable import CrossmateServer

/// How events between instances are packed into NOTIFY payloads (the live two-instance test in
/// LiveTests sends them through a real PostgreSQL).
@Suite struct FanoutTests {
    static func json(_ events: [FanoutEvent]) -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return events.map { String(decoding: try! encoder.encode($0), as: UTF8.self) }
    }

    static func poke(_ sequence: Int64, changes: Int, bodyBytes: Int = 120) -> FanoutEvent {
        .poke(
            game: "game-1", sequence: sequence, exceptDevice: "dev-a",
            inline: InlineChanges(
                after: sequence - Int64(changes),
                changes: (0..<changes).map {
                    EncodedChange(
                        sequence: sequence - Int64(changes) + 1 + Int64($0), kind: .move,
                        json: #"{"letter":"A","pad":"\#(String(repeating: "x", count: bodyBytes))"}"#)
                }))
    }

    @Test func manyEventsArriveInOrderInPayloadsPostgreSQLAccepts() throws {
        var events: [FanoutEvent] = (1...400).map { Self.poke(Int64($0) * 2, changes: 2) }
        events.insert(.feed(authorID: "acct-1", sequence: 9), at: 17)
        events.insert(
            .nudge(
                authorID: "acct-2",
                nudge: NudgeView(
                    gameID: "game-1", nudgeID: "nudge-1", fromAuthor: "acct-1", fromName: "Ann \"A\"", message: "17 Across?", createdAt: 5)),
            at: 40)
        events.insert(
            .nextGame(
                authorID: "acct-2", next: NextGameView(fromGameID: "game-1", gameID: "game-2", title: "Daybreak", byAuthor: "acct-1", byName: "Ann")),
            at: 41)
        events.insert(
            .cursor(game: "game-1", deviceID: "dev-b", authorID: "acct-2", cursor: CursorPosition(row: 1, col: 2, direction: .down)), at: 300)
        let payloads = PostgresFanout.payloads(for: events, instance: "instance-a")
        #expect(payloads.count > 10)
        #expect(payloads.allSatisfy { $0.utf8.count <= PostgresFanout.maximumPayload })
        let received = payloads.flatMap { PostgresFanout.events(in: $0, except: "instance-b") ?? [] }
        #expect(Self.json(received) == Self.json(events))
    }

    @Test func anInstanceSkipsItsOwnPayloadsAndOnesItCannotRead() {
        let payloads = PostgresFanout.payloads(for: [Self.poke(5, changes: 1)], instance: "instance-a")
        #expect(payloads.count == 1)
        #expect(PostgresFanout.events(in: payloads[0], except: "instance-a") == nil)
        #expect(PostgresFanout.events(in: "instance-c not json", except: "instance-a") == nil)
        #expect(PostgresFanout.events(in: "", except: "instance-a") == nil)
    }

    @Test func aPokeTooBigForOnePayloadGoesWithoutItsChanges() throws {
        let big = Self.poke(40, changes: InlineChanges.maximumCount, bodyBytes: 400)
        let payloads = PostgresFanout.payloads(for: [Self.poke(2, changes: 1), big, Self.poke(41, changes: 1)], instance: "instance-a")
        let received = payloads.flatMap { PostgresFanout.events(in: $0, except: "instance-b") ?? [] }
        #expect(received.count == 3)
        guard case let .poke(game, sequence, exceptDevice, inline) = received[1] else {
            Issue.record("expected a poke, got \(received[1])")
            return
        }
        #expect(game == "game-1" && sequence == 40 && exceptDevice == "dev-a" && inline == nil)
        #expect(Self.json([received[0], received[2]]) == Self.json([Self.poke(2, changes: 1), Self.poke(41, changes: 1)]))
    }

    @Test func theOutboxRingsWhenItFillsFromEmptyAndStaysBounded() {
        var events: [FanoutEvent] = []
        #expect(PostgresFanout.enqueue(Self.poke(1, changes: 1), into: &events))
        #expect(!PostgresFanout.enqueue(Self.poke(2, changes: 1), into: &events))
        for sequence in 3...Int64(PostgresFanout.maximumWaiting + 10) {
            #expect(!PostgresFanout.enqueue(.feed(authorID: "acct-1", sequence: sequence), into: &events))
        }
        #expect(events.count <= PostgresFanout.maximumWaiting)
        // The newest are kept.
        guard case let .feed(_, last) = events.last else {
            Issue.record("expected the last event to be a feed event")
            return
        }
        #expect(last == Int64(PostgresFanout.maximumWaiting + 10))
    }
}
