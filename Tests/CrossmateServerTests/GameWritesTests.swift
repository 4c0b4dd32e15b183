import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Logging
import Synchronization
import Testing

@testable import CrossmateServer

/// The write path with a store alone: no HTTP, no sockets, no fan-out. What it tells the rest of
/// the server comes out as one typed stream of zone events, in order.
@Suite struct GameWritesTests {
    final class Recorder: ZoneEventSink {
        let events = Mutex<[ZoneEvent]>([])
        func emit(_ event: ZoneEvent) { events.withLock { $0.append(event) } }
        var names: [String] {
            events.withLock { events in
                events.map { event in
                    switch event {
                    case .ordered: "ordered"
                    case .notCommitted: "notCommitted"
                    case let .everyone(fanned): "everyone " + Self.name(fanned)
                    case let .hereNow(fanned): "hereNow " + Self.name(fanned)
                    case let .othersOnly(fanned): "othersOnly " + Self.name(fanned)
                    case .whoIsHere: "whoIsHere"
                    case .left: "left"
                    case .finished: "finished"
                    case let .callBack(candidate): "callBack \(candidate.event.rawValue)"
                    }
                }
            }
        }
        static func name(_ event: FanoutEvent) -> String {
            switch event {
            case .poke: "poke"
            case .feed: "feed"
            case .cursor: "cursor"
            case .deviceRevoked: "deviceRevoked"
            case .nudge: "nudge"
            case .nextGame: "nextGame"
            case .viewers: "viewers"
            case .rollCall: "rollCall"
            }
        }
    }

    @Test func theWritePathNeedsAStoreAlone() async throws {
        try await withAnnsGames(["g1"]) { store in
            let recorder = Recorder()
            let clock = TestClock(2_000_000)
            let writes = GameWrites(
                store: store, directory: GameDirectory(store: store, snapshotInterval: 100), events: recorder,
                rules: WriteRules(maximumSkewMillis: 60_000), clock: { clock.now }, logger: Logger(label: "test"))
            let ann = StoredDevice(deviceID: "phone", authorID: "ann", displayName: "Ann")
            var replica = GameReplica(puzzle: greenLight, gameID: "g1", replicaID: "phone", authorID: "ann")
            let moves = try replica.perform(.setLetter(at(1, 0), "G"), wallMillis: clock.now)
            let pushed = try await writes.ingest(moves.map(MoveRecord.init), into: "g1", from: ann)
            #expect(pushed.results.allSatisfy { $0.status == .saved })
            // Ordered (relayed before the commit), then this instance's sockets in zone order,
            // then the other instances.
            #expect(recorder.names == ["ordered", "callBack moves", "hereNow poke", "othersOnly poke"])

            let chat = try await writes.chat(
                PostMessageRequest(messageID: "m1", text: "hi", timestamp: HLCTimestamp(wallMillis: clock.now)), in: "g1", by: ann)
            #expect(chat.message.text == "hi" && recorder.names.suffix(2) == ["everyone poke", "callBack chat"])
            // The rules held beside the store's: a stamp before the game, a message of marks.
            _ = try await store.createGame(
                GameRecord(gameID: "late", ownerID: "ann", createdAt: 1_000_000, puzzle: greenLight), title: "T",
                owner: ParticipantRecord(gameID: "late", authorID: "ann", displayName: "Ann", role: .owner))
            await #expect(throws: APIError.self) {
                _ = try await writes.chat(
                    PostMessageRequest(messageID: "m2", text: "old", timestamp: HLCTimestamp(wallMillis: 0)), in: "late", by: ann)
            }
            await #expect(throws: APIError.self) {
                _ = try await writes.chat(
                    PostMessageRequest(messageID: "m3", text: "\u{034F}", timestamp: HLCTimestamp(wallMillis: clock.now)), in: "g1", by: ann)
            }
            let completion = try await writes.resign("g1", by: ann)
            #expect(completion.completion.kind == .resigned)
            #expect(recorder.names.suffix(2) == ["everyone poke", "finished"])
            // Someone who is not a player writes nothing.
            let stranger = StoredDevice(deviceID: "other", authorID: "zed", displayName: "Zed")
            await #expect(throws: APIError.self) { _ = try await writes.ingest(moves.map(MoveRecord.init), into: "g1", from: stranger) }
        }
    }

    /// A game keeps at most so many moves (`Limits.maximumMovesPerGame`): the moves past it are
    /// rejected one by one, with a reason a player can act on, and the game's history stops
    /// growing.
    @Test func aGameTakesNoMoreMovesThanItsLimit() async throws {
        try await withAnnsGames(["g1"], maximumMovesPerGame: 3) { store in
            let clock = TestClock(2_000_000)
            let writes = GameWrites(
                store: store, directory: GameDirectory(store: store, snapshotInterval: 100), events: Recorder(),
                rules: WriteRules(maximumSkewMillis: 60_000), clock: { clock.now }, logger: Logger(label: "test"))
            let ann = StoredDevice(deviceID: "phone", authorID: "ann", displayName: "Ann")
            var replica = GameReplica(puzzle: greenLight, gameID: "g1", replicaID: "phone", authorID: "ann")
            var moves: [Move] = []
            for (index, square) in greenLight.letterPositions.prefix(5).enumerated() {
                moves += try replica.perform(.setLetter(square, "A"), wallMillis: clock.now + Int64(index))
            }
            try #require(moves.count == 5)
            let pushed = try await writes.ingest(moves.map(MoveRecord.init), into: "g1", from: ann)
            #expect(pushed.results.map(\.status) == [.saved, .saved, .saved, .rejected, .rejected])
            let refusal = try #require(pushed.results[3].error)
            #expect(refusal.error == .limitExceeded && refusal.message.contains("start a new game"))
            #expect(try await store.changes(gameID: "g1", after: 0, limit: 100).filter { $0.kind == .move }.count == 3)
        }
    }

    /// An account stores moves at a bounded rate whatever its devices do (`Limits.accountMoves`):
    /// past its burst a push is refused whole, with when to send the rest, and nothing of it is
    /// stored; the bucket fills again with time.
    @Test func anAccountStoresMovesAtABoundedRate() async throws {
        try await withAnnsGames(["g1"]) { store in
            let clock = TestClock(2_000_000)
            let writes = GameWrites(
                store: store, directory: GameDirectory(store: store, snapshotInterval: 100), events: Recorder(),
                rules: WriteRules(maximumSkewMillis: 60_000), clock: { clock.now }, logger: Logger(label: "test"),
                accountMoves: RateLimiter(burst: 4, perSecond: 1))
            let ann = StoredDevice(deviceID: "phone", authorID: "ann", displayName: "Ann")
            var replica = GameReplica(puzzle: greenLight, gameID: "g1", replicaID: "phone", authorID: "ann")
            var moves: [Move] = []
            for (index, square) in greenLight.letterPositions.prefix(7).enumerated() {
                moves += try replica.perform(.setLetter(square, "A"), wallMillis: clock.now + Int64(index))
            }
            let records = moves.map(MoveRecord.init)
            #expect(try await writes.ingest(Array(records[0..<3]), into: "g1", from: ann).results.allSatisfy { $0.status == .saved })
            do {
                _ = try await writes.ingest(Array(records[3..<7]), into: "g1", from: ann)
                Issue.record("a push past the account's bucket was taken")
            } catch let error as APIError {
                #expect(error.body.error == .rateLimited && error.body.message.contains("kept on your device"), "\(error.body.message)")
            }
            #expect(try await store.changes(gameID: "g1", after: 0, limit: 100).filter { $0.kind == .move }.count == 3)
            clock.advance(byMillis: 3_000)
            #expect(try await writes.ingest(Array(records[3..<7]), into: "g1", from: ann).results.allSatisfy { $0.status == .saved })
        }
    }
}
