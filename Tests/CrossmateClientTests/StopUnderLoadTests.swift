import CrossmateClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import CrossmateTestSupport
import Foundation
import Synchronization
import Testing

/// SIGTERM while six players type as fast as their answers come back: the server stops within
/// 5 s, cleanly, and every move it acknowledged is there after a restart.
@Suite struct StopUnderLoadTests {
    @Test func aStopUnderLoadIsQuickAndLosesNothingAcknowledged() async throws {
        let directory = try TemporaryDirectory("crossmate-stop-load")
        defer { directory.remove() }
        let server = try ServerProcess(dataDirectory: directory.path + "/data")
        let greenLight = try BundledPuzzles.puzzle("green-light")

        final class Typist: @unchecked Sendable {
            let api: ServerAPI
            let gameID: String
            var replica: GameReplica
            let acknowledged = Mutex<Set<Int>>([])

            init(_ base: String, name: String, puzzle: Puzzle) async throws {
                let session = try await ServerAPI(baseURL: base).createAccount(displayName: name)
                api = ServerAPI(baseURL: base, token: session.token, timeout: .seconds(10))
                gameID = try await api.createGame(CreateGameRequest(bundled: "green-light")).gameID
                replica = GameReplica(puzzle: puzzle, gameID: gameID, replicaID: session.deviceID, authorID: session.account.authorID)
            }

            /// Types until the server stops answering.
            func type() async {
                let squares = replica.puzzle.letterPositions
                var count = 0
                while true {
                    guard
                        let moves = try? replica.perform(
                            .setLetter(squares[count % squares.count], count % 2 == 0 ? "A" : "B"),
                            wallMillis: Int64(Date().timeIntervalSince1970 * 1000)),
                        let answer = try? await api.push(gameID: gameID, moves: moves.map(MoveRecord.init))
                    else { return }
                    let saved = answer.results.filter { $0.status == .saved }.map(\.seq)
                    acknowledged.withLock { $0.formUnion(saved) }
                    count += 1
                }
            }
        }

        var typists: [Typist] = []
        for index in 0..<6 { typists.append(try await Typist(server.baseURL, name: "P\(index)", puzzle: greenLight)) }
        let typing = typists.map { typist in Task { await typist.type() } }
        try await eventually("everyone is typing") { typists.allSatisfy { $0.acknowledged.withLock(\.count) >= 10 } }
        let stopping = ContinuousClock.now
        let status = server.terminate()
        let took = ContinuousClock.now - stopping
        #expect(status == 0)
        #expect(took < .seconds(5), "SIGTERM under load took \(took)")
        for task in typing { await task.value }

        let again = try ServerProcess(dataDirectory: directory.path + "/data")
        defer { _ = again.terminate() }
        for typist in typists {
            let api = ServerAPI(baseURL: again.baseURL, token: typist.api.token, timeout: .seconds(10))
            var stored: Set<Int> = []
            var token: ChangeToken?
            while true {
                let page = try await api.changes(gameID: typist.gameID, since: token, limit: 1_000)
                for change in page.changes {
                    if case let .move(move) = change.record, move.replicaID == typist.replica.replicaID { stored.insert(move.seq) }
                }
                token = page.token
                if !page.moreComing { break }
            }
            #expect(typist.acknowledged.withLock { $0 }.isSubset(of: stored), "an acknowledged move is missing after the stop")
        }
    }
}
