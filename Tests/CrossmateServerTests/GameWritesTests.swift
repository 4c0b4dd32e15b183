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
/// the server comes out as facts, in order, to whoever listens.
@Suite struct GameWritesTests {
    /// Hears every fact, as a listener that shows moves before their commit would.
    final class Recorder: FactListener {
        let facts = Mutex<[Fact]>([])
        func hear(_ fact: Fact, from origin: Origin) { facts.withLock { $0.append(fact) } }
        func hearsBeforeCommit(_ game: String, exceptDevice deviceID: String) -> Bool { true }
        var names: [String] {
            facts.withLock { facts in
                facts.map { fact in
                    switch fact {
                    case .movesOrdered: "movesOrdered"
                    case .notCommitted: "notCommitted"
                    case .zoneChanged: "zoneChanged"
                    case .feedChanged: "feedChanged"
                    case .cursorMoved: "cursorMoved"
                    case .presenceChanged: "presenceChanged"
                    case .left: "left"
                    case .finished: "finished"
                    case .deviceRevoked: "deviceRevoked"
                    case .nudged: "nudged"
                    case .nextGame: "nextGame"
                    case .accountChanged: "accountChanged"
                    case let .mayCallBack(candidate): "mayCallBack \(candidate.event.rawValue)"
                    }
                }
            }
        }
    }

    @Test func theWritePathNeedsAStoreAlone() async throws {
        try await withAnnsGames(["g1"]) { store in
            let recorder = Recorder()
            let clock = TestClock(2_000_000)
            let writes = GameWrites(
                store: store, directory: GameDirectory(store: store, snapshotInterval: 100), facts: Facts([recorder]),
                rules: WriteRules(maximumSkewMillis: 60_000), clock: { clock.now }, logger: Logger(label: "test"))
            let ann = StoredDevice(deviceID: "phone", authorID: "ann", displayName: "Ann")
            var replica = GameReplica(puzzle: greenLight, gameID: "g1", replicaID: "phone", authorID: "ann")
            let moves = try replica.perform(.setLetter(at(1, 0), "G"), wallMillis: clock.now)
            let pushed = try await writes.ingest(moves.map(MoveRecord.init), into: "g1", from: ann)
            #expect(pushed.results.allSatisfy { $0.status == .saved })
            // Ordered (shown before the commit), then committed, once, from inside the fold.
            #expect(recorder.names == ["movesOrdered", "mayCallBack moves", "zoneChanged"])

            let chat = try await writes.chat(
                PostMessageRequest(messageID: "m1", text: "hi", timestamp: HLCTimestamp(wallMillis: clock.now)), in: "g1", by: ann)
            #expect(chat.message.text == "hi" && recorder.names.suffix(2) == ["zoneChanged", "mayCallBack chat"])
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
            #expect(recorder.names.suffix(2) == ["zoneChanged", "finished"])
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
                store: store, directory: GameDirectory(store: store, snapshotInterval: 100), facts: Facts([Recorder()]),
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
                store: store, directory: GameDirectory(store: store, snapshotInterval: 100), facts: Facts([Recorder()]),
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
