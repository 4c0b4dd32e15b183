import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Logging
import Synchronization
import Testing

@testable import CrossmateServer

/// The server's projection of a game folds writes in zone order, whatever order their requests
/// finish in.
@Suite struct ProjectionTests {
    @Test func aWriteThatArrivesFirstWaitsForTheOneCommittedBeforeIt() async throws {
        try await withAnnsGames(["game-1"]) { store in
            // A wait far longer than the test needs, so the order below is certain.
            let projection = try await GameProjection(
                game: GameRecord(gameID: "game-1", ownerID: "ann", createdAt: 1, puzzle: greenLight),
                store: store, snapshotInterval: 200, orderingWait: .seconds(30))

            var phone = GameReplica(puzzle: greenLight, gameID: "game-1", replicaID: "phone", authorID: "ann")
            let squares = greenLight.letterPositions
            let first = try await store.appendMoves(
                gameID: "game-1", authorID: "ann",
                moves: try phone.perform(.setLetter(squares[0], "G"), wallMillis: 10).map(MoveRecord.init))
            let second = try await store.appendMoves(
                gameID: "game-1", authorID: "ann",
                moves: try phone.perform(.setLetter(squares[1], "R"), wallMillis: 11).map(MoveRecord.init))

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
            let sealed = try await store.putRecord(gameID: "game-1", .seal(Seal(gameID: "game-1", replicaID: "phone", lastSeq: 2)))
            await projection.skip(past: sealed)
            let third = try await store.appendMoves(
                gameID: "game-1", authorID: "ann",
                moves: try phone.perform(.setLetter(squares[2], "E"), wallMillis: 12).map(MoveRecord.init))
            // (Had it waited, the 30 s would run out and it would catch up instead, unannounced.)
            #expect(try await projection.fold(saved: third.saved).announced)
            #expect(await projection.replica.grid == phone.grid)
        }
    }

    /// The solving move and a later one commit before the projection folds the solve: the final
    /// snapshot is stored at the solve's sequence, so a device joining from it still fetches the
    /// later move (and the Game record saying how the game ended).
    @Test func theFinalSnapshotLeavesNoMoveUnfetched() async throws {
        try await withAnnsGames(["game-1"]) { store in
            let projection = try await GameProjection(
                game: GameRecord(gameID: "game-1", ownerID: "ann", createdAt: 1, puzzle: greenLight),
                store: store, snapshotInterval: 200)
            var phone = GameReplica(puzzle: greenLight, gameID: "game-1", replicaID: "phone", authorID: "ann")
            var tablet = GameReplica(puzzle: greenLight, gameID: "game-1", replicaID: "tablet", authorID: "ann")
            let squares = greenLight.letterPositions
            var moves: [Move] = []
            for (index, square) in squares.dropLast().enumerated() {
                moves += try phone.perform(.setLetter(square, greenLight.cell(at: square).solution!), wallMillis: 10 + Int64(index))
            }
            let opening = try await store.appendMoves(gameID: "game-1", authorID: "ann", moves: moves.map(MoveRecord.init))
            _ = try await projection.fold(saved: opening.saved)
            let solving = try await store.appendMoves(
                gameID: "game-1", authorID: "ann",
                moves: try phone.perform(
                    .setLetter(squares.last!, greenLight.cell(at: squares.last!).solution!), wallMillis: 100
                ).map(MoveRecord.init))
            let meanwhile = try await store.appendMoves(
                gameID: "game-1", authorID: "ann",
                moves: try tablet.perform(
                    .setLetter(squares[0], "Q"), wallMillis: 90
                ).map(MoveRecord.init))

            // The projection notices the solve; the write path stores it.
            let noticed = try #require(try await projection.fold(saved: solving.saved).noticed)
            let completed = try await writes(store).complete(noticed, in: projection)
            #expect(completed.completion.kind == .solved && completed.sequence == meanwhile.zoneSeq + 1)
            let final = try #require(try await store.latestSnapshot(gameID: "game-1"))
            #expect(final.zoneSeq == solving.zoneSeq)
            let after = try await store.changes(gameID: "game-1", after: final.zoneSeq, limit: 100)
            #expect(after.map(\.kind) == [.move, .game])
            let tail = try after.filter { $0.kind == .move }.map { try JSONDecoder().decode(MoveRecord.self, from: Data($0.json.utf8)).move() }
            let joining = GameReplica(
                puzzle: greenLight, gameID: "game-1", replicaID: "laptop", authorID: "ann",
                snapshot: final.snapshot, moves: tail, completion: completed.completion.completion)
            let projected = await projection.replica.grid
            #expect(joining.grid == projected)
            #expect(greenLight.isSolved(letterAt: joining.grid.letter(at:)))
        }
    }

    /// A resignation stored first (by another instance) beats a solve this projection then
    /// notices: it adopts the stored completion and its final grid, not its own.
    @Test func aStoredResignationBeatsASolveNoticedLater() async throws {
        try await withAnnsGames(["game-1"]) { store in
            let game = GameRecord(gameID: "game-1", ownerID: "ann", createdAt: 1, puzzle: greenLight)
            let projection = try await GameProjection(game: game, store: store, snapshotInterval: 200)
            var phone = GameReplica(puzzle: greenLight, gameID: "game-1", replicaID: "phone", authorID: "ann")
            var moves: [Move] = []
            for (index, square) in greenLight.letterPositions.enumerated() {
                moves += try phone.perform(.setLetter(square, greenLight.cell(at: square).solution!), wallMillis: 10 + Int64(index))
            }
            #expect(phone.completion?.kind == .solved)  // seen as solved on the phone, optimistically
            let saved = try await store.appendMoves(gameID: "game-1", authorID: "ann", moves: moves.map(MoveRecord.init))
            let resigned = Completion(kind: .resigned, at: HLCTimestamp(wallMillis: 5), by: "ann")
            let empty = Snapshot(width: greenLight.width, height: greenLight.height)
            _ = try await store.complete(
                gameID: "game-1", completion: CompletionRecord(resigned), game: game,
                snapshot: StoredSnapshot(zoneSeq: 2, snapshot: empty))

            let noticed = try #require(try await projection.fold(saved: saved.saved).noticed)
            let outcome = try await writes(store).complete(noticed, in: projection)
            #expect(outcome.completion.completion == resigned)
            #expect(await projection.completion == resigned)
            #expect(await projection.replica.grid == empty.grid)
            phone.adopt(resigned, finalGrid: empty.grid)
            #expect(phone.completion == resigned && phone.grid == empty.grid)
        }
    }

    /// The write path over `store`, telling nobody.
    func writes(_ store: Store) -> GameWrites {
        GameWrites(
            store: store, directory: GameDirectory(store: store, snapshotInterval: 200), facts: Facts(),
            rules: WriteRules(maximumSkewMillis: 60_000), clock: { 1_000 }, logger: Logger(label: "test"))
    }
}
