import AsyncHTTPClient
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import CrossmateTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// The real server process, killed with SIGKILL in the middle of a stream of writes: every move
/// it acknowledged must be there after a restart.
@Suite(.startsProcesses, .serialized) struct DurabilityTests {
    struct Client {
        let http: HTTPClient
        let base: String

        func call<T: Decodable>(
            _ method: HTTPMethod, _ path: String, token: String? = nil, json: (some Encodable)? = Optional<String>.none
        ) async throws -> T {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            request.headers.add(name: "Content-Type", value: "application/json")
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            if let json { request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(json))) }
            let response = try await http.execute(request, timeout: .seconds(3))
            let body = try await response.body.collect(upTo: 16 << 20)
            guard (200..<300).contains(response.status.code) else {
                throw HTTPFailure(status: .init(code: Int(response.status.code)), body: String(buffer: body))
            }
            return try JSONDecoder().decode(T.self, from: Data(buffer: body))
        }
    }

    @Test func everyAcknowledgedMoveSurvivesKill9() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crossmate-durable-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { Task { try? await http.shutdown() } }

        let first = try ServerProcess(dataDirectory: directory)
        var client = Client(http: http, base: first.baseURL)
        let ann: DeviceSession = try await client.call(.POST, "/v1/accounts", json: CreateAccountRequest(displayName: "Ann"))
        let bob: DeviceSession = try await client.call(.POST, "/v1/accounts", json: CreateAccountRequest(displayName: "Bob"))
        let game: GameSummary = try await client.call(.POST, "/v1/games", token: ann.token, json: CreateGameRequest(bundled: "daybreak"))
        let invite: InvitationResponse = try await client.call(
            .POST, "/v1/games/\(game.gameID)/invitations", token: ann.token,
            json: CreateInvitationRequest())
        let _: GameSummary = try await client.call(.POST, "/v1/invitations/\(invite.token)/accept", token: bob.token)

        // Two devices push one move per request, concurrently; after 60 acknowledgements in all
        // the server is killed while requests are still in flight.
        let tally = Tally()
        let writer = client
        try await withThrowingTaskGroup(of: Void.self) { group in
            for session in [ann, bob] {
                group.addTask {
                    var replica = GameReplica(puzzle: daybreak, gameID: game.gameID, replicaID: session.deviceID, authorID: session.account.authorID)
                    let squares = daybreak.letterPositions
                    for step in 0..<2_000 {
                        let moves = try replica.perform(
                            .setLetter(squares[step % squares.count], step % 2 == 0 ? "A" : "B"),
                            wallMillis: Int64(Date().timeIntervalSince1970 * 1000))
                        do {
                            let response: PushMovesResponse = try await writer.call(
                                .POST, "/v1/games/\(game.gameID)/moves", token: session.token,
                                json: PushMovesRequest(moves: moves.map(MoveRecord.init)))
                            let saved = zip(moves, response.results).filter { $0.1.status == .saved }.map { $0.0.id }
                            let count = tally.acknowledged.withLock {
                                $0 += saved
                                return $0.count
                            }
                            if count >= 60,
                                tally.killed.withLock({
                                    let first = !$0
                                    $0 = true
                                    return first
                                })
                            {
                                first.kill()
                            }
                        } catch {
                            // Once the server is killed, nothing after this was acknowledged; any
                            // failure before that is a real one.
                            guard tally.killed.withLock({ $0 }) else { throw error }
                            return
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(tally.killed.withLock { $0 })

        let second = try ServerProcess(dataDirectory: directory)
        defer { _ = second.terminate() }
        client = Client(http: http, base: second.baseURL)
        var stored: Set<MoveID> = []
        var since = ""
        while true {
            let page: ChangesResponse = try await client.call(.GET, "/v1/games/\(game.gameID)/changes\(since)", token: ann.token)
            for change in page.changes {
                if case let .move(record) = change.record { stored.insert(MoveID(replicaID: record.replicaID, seq: record.seq)) }
            }
            since = "?since=\(page.token.encoded)"
            if !page.moreComing { break }
        }
        let acked = tally.acknowledged.withLock { $0 }
        #expect(acked.count >= 60)
        let lost = acked.filter { !stored.contains($0) }
        #expect(lost.isEmpty, "acknowledged but lost: \(lost)")
    }

    final class Tally: Sendable {
        let acknowledged = Mutex<[MoveID]>([])
        let killed = Mutex(false)
    }

    @Test func aBusyPortIsOneClearLine() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crossmate-busy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try ServerProcess(dataDirectory: directory)
        defer { _ = first.terminate() }
        let (status, message) = try ServerProcess.refusal(["--port", String(first.port), "--data", directory + "/other"])
        #expect(status == 1)
        #expect(message.contains("crossmate: cannot listen on 127.0.0.1:\(first.port): the address is already in use"))
    }

    @Test func theEventLoopCountIsCheckedAndUsed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crossmate-loops-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (status, message) = try ServerProcess.refusal(["--port", "0", "--data", directory, "--event-loops", "0"])
        #expect(status != 0)
        #expect(message.contains("the number of event loops must be 1 to 256, not 0"))

        // Three loops: the server serves (and answers on them).
        let server = try ServerProcess(dataDirectory: directory, extraArguments: ["--event-loops", "3"])
        defer { _ = server.terminate() }
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.process.processIdentifier)/task").compactMap {
            try? String(contentsOfFile: "/proc/\(server.process.processIdentifier)/task/\($0)/comm", encoding: .utf8)
        }
        #expect(threads.filter { $0.hasPrefix("NIO-SGLTN") }.count == 3)
    }

    @Test func sigtermShutsDownGracefully() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crossmate-term-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ServerProcess(dataDirectory: directory)
        #expect(server.terminate() == 0)
    }
}
