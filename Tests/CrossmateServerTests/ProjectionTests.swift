@testable import CrossmateServer
import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Synchronization
import Testing

/// The server's projection of a game folds writes in zone order, whatever order their requests
/// finish in.
@Suite struct ProjectionTests {
    @Test func aWriteThatArrivesFirstWaitsForTheOneCommittedBeforeIt() async throws {
        try await withAnnsGames(["game-1"]) { store in
            // A wait far longer than the test needs, so the order below is certain.
            let projection = try await GameProjection(game: GameRecord(gameID: "game-1", ownerID: "ann", createdAt: 1, puzzle: greenLight),
                                                      store: store, snapshotInterval: 200, orderingWait: .seconds(30))

            var phone = GameReplica(puzzle: greenLight, gameID: "game-1", replicaID: "phone", authorID: "ann")
            let squares = greenLight.letterPositions
            let first = try await store.appendMoves(gameID: "game-1", authorID: "ann",
                                                    moves: try phone.perform(.setLetter(squares[0], "G"), physicalMillis: 10).map(MoveRecord.init))
            let second = try await store.appendMoves(gameID: "game-1", authorID: "ann",
                                                     moves: try phone.perform(.setLetter(squares[1], "R"), physicalMillis: 11).map(MoveRecord.init))

            // The later write reaches the projection first.
            let announced = Mutex<[String]>([])
            async let later = projection.fold(saved: second.saved) { announced.withLock { $0.append("second") } }
            let earlier = try await projection.fold(saved: first.saved) { announced.withLock { $0.append("first") } }
            _ = try await later
            #expect(earlier.announced)
            #expect(announced.withLock { $0 } == ["first", "second"])
            #expect(await projection.replica.grid == phone.grid)
            #expect(await projection.zoneSeq == second.zoneSeq)

            // A seal takes the next sequence; told of it, the projection does not wait for it.
            let sealed = try await store.putRecord(gameID: "game-1", type: "seal", key: "phone",
                                                   body: Store.json(Seal(gameID: "game-1", replicaID: "phone", lastSeq: 2)))
            await projection.skip(past: sealed)
            let third = try await store.appendMoves(gameID: "game-1", authorID: "ann",
                                                    moves: try phone.perform(.setLetter(squares[2], "E"), physicalMillis: 12).map(MoveRecord.init))
            // (Had it waited, the 30 s would run out and it would catch up instead, unannounced.)
            #expect(try await projection.fold(saved: third.saved).announced)
            #expect(await projection.replica.grid == phone.grid)
        }
    }
}
