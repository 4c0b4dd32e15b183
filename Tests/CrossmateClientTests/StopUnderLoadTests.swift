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
@Suite(.startsProcesses) struct StopUnderLoadTests {
    @Test func aStopUnderLoadIsQuickAndLosesNothingAcknowledged() async throws {
        let directory = try TemporaryDirectory("crossmate-stop-load")
        defer { directory.remove() }
        let server = try ServerProcess(dataDirectory: directory.path + "/data")
        let greenLight = try BundledPuzzles.puzzle("green-light")

        var typists: [Typist] = []
        for index in 0..<6 { typists.append(try await Typist(server.baseURL, name: "P\(index)", puzzle: greenLight)) }
        let stop = StopFlag()
        let typing = Typist.typing(typists, until: stop)
        try await eventually("everyone is typing") { typists.allSatisfy { $0.acknowledged.withLock(\.count) >= 10 } }
        let stopping = ContinuousClock.now
        let status = server.terminate()
        let took = ContinuousClock.now - stopping
        #expect(status == 0)
        #expect(took < .seconds(5), "SIGTERM under load took \(took)")
        stop.raised.store(true, ordering: .relaxed)
        for task in typing { await task.value }

        let again = try ServerProcess(dataDirectory: directory.path + "/data")
        defer { _ = again.terminate() }
        for typist in typists {
            let stored = try await typist.stored(on: ServerAPI(baseURL: again.baseURL, token: typist.api.token, timeout: .seconds(10)))
            #expect(Set(typist.acknowledged.withLock { $0 }).isSubset(of: stored), "an acknowledged move is missing after the stop")
        }
    }
}
