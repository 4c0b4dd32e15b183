import CrossmateProtocol
import Foundation
import Synchronization
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

    /// A fact this instance's devices show goes to the other instances as an event and is heard
    /// there as the same fact; what only this instance acts on does not go.
    @Test func factsGoBetweenInstancesAndComeBackTheSame() throws {
        let cursor = CursorPosition(row: 1, col: 2, direction: .down)
        let nudge = NudgeView(gameID: "g", nudgeID: "n", fromAuthor: "a", fromName: "Ann", message: "hi", createdAt: 5)
        let next = NextGameView(fromGameID: "g", gameID: "h", title: "T", byAuthor: "a", byName: "Ann")
        let going: [Fact] = [
            .zoneChanged(game: "g", sequence: 9, sender: "dev", inline: Self.inline(9)), .zoneChanged(game: "g", sequence: 3),
            .feedChanged(authorID: "a", sequence: 4), .cursorMoved(game: "g", deviceID: "d", authorID: "a", cursor: cursor),
            .deviceRevoked(deviceID: "d"), .nudged(authorID: "b", nudge: nudge), .nextGame(authorID: "b", next: next),
        ]
        for fact in going {
            let event = try #require(FanoutEvent(fact), "\(fact)")
            let heard = try #require(event.fact)
            #expect(Self.json([try #require(FanoutEvent(heard))]) == Self.json([event]))
        }
        let staying: [Fact] = [
            .movesOrdered(game: "g", saved: [], sender: "d"), .notCommitted(game: "g"), .presenceChanged(game: "g", cursors: [:]),
            .left(game: "g", authorID: "a"), .finished(game: "g"), .accountChanged(authorID: "a"),
            .mayCallBack(CallBackCandidate(event: .chat, gameID: "g", sender: "a", sequence: 1)),
        ]
        for fact in staying { #expect(FanoutEvent(fact) == nil, "\(fact)") }
        #expect(FanoutEvent.rollCall(instance: "i").fact == nil)
    }

    static func inline(_ sequence: Int64) -> InlineChanges {
        InlineChanges(after: sequence - 1, changes: [EncodedChange(sequence: sequence, kind: .move, json: #"{"letter":"A"}"#)])
    }

    /// One list hears every fact, in its order, from where it happened; a listener's own wish to
    /// hear moves before their commit is asked of each.
    @Test func everyListenerHearsEveryFactInTheListsOrder() {
        final class Heard: Sendable {
            let lines = Mutex<[String]>([])
        }
        final class Log: FactListener {
            let name: String
            let heard: Heard
            let early: Bool
            init(_ name: String, into heard: Heard, early: Bool = false) {
                (self.name, self.heard, self.early) = (name, heard, early)
            }
            func hear(_ fact: Fact, from origin: Origin) {
                guard case let .feedChanged(_, sequence) = fact else { return }
                heard.lines.withLock { $0.append("\(name) \(sequence) \(origin)") }
            }
            func hearsBeforeCommit(_ game: String, exceptDevice deviceID: String) -> Bool { early && game == "g" }
        }
        let heard = Heard()
        let facts = Facts([Log("sockets", into: heard)])
        #expect(!facts.hearsBeforeCommit("g", exceptDevice: "d"))
        facts.listen([Log("replicas", into: heard, early: true)])
        facts.publish(.feedChanged(authorID: "a", sequence: 1))
        facts.publish(.feedChanged(authorID: "a", sequence: 2), from: .elsewhere)
        #expect(heard.lines.withLock { $0 } == ["sockets 1 here", "replicas 1 here", "sockets 2 elsewhere", "replicas 2 elsewhere"])
        #expect(facts.hearsBeforeCommit("g", exceptDevice: "d") && !facts.hearsBeforeCommit("h", exceptDevice: "d"))
    }
}
