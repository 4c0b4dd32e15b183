import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Logging
import NIOEmbedded
import Testing

@testable import CrossmateServer

/// The server's in-memory caches stay bounded.
@Suite struct CacheTests {
    /// A cursor is stored at most every five seconds, and the last one of a burst is stored when
    /// they are up (a player who clicks and then types arrives stored where they stopped).
    @Test func theCursorThrottleStoresTheFirstAndTheLast() {
        let throttle = CursorThrottle()
        func at(_ row: Int) -> CursorPosition { CursorPosition(row: row, col: 0, direction: .across) }
        #expect(throttle.offer(at(1), deviceID: "d", gameID: "g", now: 1_000) == .now)
        #expect(throttle.offer(at(2), deviceID: "d", gameID: "g", now: 1_500) == .later(4_500))
        #expect(throttle.offer(at(3), deviceID: "d", gameID: "g", now: 2_000) == .held)
        // Another device or game has its own.
        #expect(throttle.offer(at(9), deviceID: "e", gameID: "g", now: 2_000) == .now)
        #expect(throttle.offer(at(9), deviceID: "d", gameID: "h", now: 2_000) == .now)
        #expect(throttle.takePending(deviceID: "d", gameID: "g", now: 6_000) == at(3))
        #expect(throttle.takePending(deviceID: "d", gameID: "g", now: 6_001) == nil)
        // Counted from that store: held until 11,000, then stored at once.
        #expect(throttle.offer(at(4), deviceID: "d", gameID: "g", now: 7_000) == .later(4_000))
        #expect(throttle.takePending(deviceID: "d", gameID: "g", now: 11_000) == at(4))
        #expect(throttle.offer(at(5), deviceID: "d", gameID: "g", now: 16_000) == .now)
    }

    @Test func handSpelledSocketAnswersDecodeToWhatTheyStandFor() throws {
        let token = ChangeToken(zone: "game-\"1", sequence: 42)
        let answers: [ServerSocketMessage] = [
            .pushed(
                id: 7, gameID: "game-\"1",
                response: PushMovesResponse(
                    results: [
                        RecordResult(replicaID: "dev-1", seq: 3, status: .saved, sequence: 41),
                        RecordResult(replicaID: "dev-1", seq: 4, status: .duplicate),
                    ],
                    token: token, completion: nil, serverTime: 1_794_890_000_000)),
            .pushed(
                id: 8, gameID: "game-1",
                response: PushMovesResponse(
                    results: [RecordResult(replicaID: "dev-1", seq: 5, status: .rejected, error: ErrorBody(.invalid, "gap"))],
                    token: token, completion: nil, serverTime: 5)),
        ]
        for answer in answers {
            let text = SocketHub.encode(answer)
            #expect(try JSONDecoder().decode(ServerSocketMessage.self, from: Data(text.utf8)) == answer, "\(text)")
        }
        let inline = InlineChanges(
            after: 40,
            changes: [
                EncodedChange(
                    sequence: 41, kind: .move,
                    json:
                        #"{"authorID":"a","batchID":"b","cellAuthorID":"a","col":0,"gameID":"g","kind":"input","letter":"Q","mark":0,"replicaID":"r","row":0,"seq":1,"timestamp":{"counter":0,"wallMillis":1}}"#
                )
            ])
        let poke = try JSONDecoder().decode(ServerSocketMessage.self, from: Data(SocketHub.pokeText(game: "g", sequence: 41, inline: inline).utf8))
        guard case let .poke(zone, pokeToken, after, changes) = poke else {
            Issue.record("not a poke")
            return
        }
        #expect(zone == "g" && pokeToken.sequence == 41 && after?.sequence == 40 && changes?.map(\.sequence) == [41])
    }

    @Test func rateLimiterKeepsTwoGenerationsOfBuckets() async {
        let limiter = RateLimiter(burst: 2, perSecond: 1, maximumBuckets: 4)
        #expect(limiter.take("a", now: 0) == nil)
        #expect(limiter.take("a", now: 0) == nil)
        #expect(limiter.take("a", now: 0) == 1)
        #expect(limiter.take("b", now: 0) == nil)
        // A third key starts a new generation; "a" is still remembered (and still empty).
        #expect(limiter.take("c", now: 0) == nil)
        #expect(limiter.bucketCount == 3)
        #expect(limiter.take("a", now: 0) == 1)
        // Two more keys: "b", untouched for a whole generation, is forgotten; the count stays bounded.
        #expect(limiter.take("d", now: 0) == nil)
        #expect(limiter.take("e", now: 0) == nil)
        #expect(limiter.bucketCount <= 4)
        // A request costing several tokens waits for all of them.
        #expect(limiter.take("f", cost: 2, now: 0) == nil)
        #expect(limiter.take("f", cost: 2, now: 500) == 2)
    }

    @Test func gameDirectoryForgetsTheLeastRecentlyUsedHalf() async throws {
        try await withAnnsGames((0..<5).map { "game-\($0)" }) { store in
            var games: [StoredGame] = []
            for index in 0..<5 { games.append(try #require(try await store.game("game-\(index)"))) }
            let cache = GameDirectory(store: store, snapshotInterval: 200, capacity: 4)
            for game in games.prefix(4) { _ = try await cache.projection(for: game) }
            _ = cache.cached("game-0")  // game-0 is now the most recently used
            _ = try await cache.projection(for: games[4])
            #expect(cache.count == 3)
            #expect(cache.cached("game-0") != nil)
            #expect(cache.cached("game-1") == nil)
            #expect(cache.cached("game-2") == nil)
            #expect(cache.cached("game-4") != nil)
        }
    }

    @Test func gameDirectoryIsBoundedInBytesToo() async throws {
        try await withAnnsGames((0..<6).map { "game-\($0)" }) { store in
            var games: [StoredGame] = []
            for index in 0..<6 { games.append(try #require(try await store.game("game-\(index)"))) }
            let one = GameDirectory.estimatedBytes(of: games[0], puzzle: greenLight)
            // Room for four games by count many times over, but for only three by bytes.
            let cache = GameDirectory(store: store, snapshotInterval: 200, capacity: 100, byteBudget: one * 3)
            for game in games.prefix(3) { _ = try await cache.projection(for: game) }
            #expect(cache.count == 3 && cache.totalBytes == one * 3)
            _ = try await cache.projection(for: games[3])
            #expect(cache.count == 2 && cache.totalBytes == one * 2)
            #expect(cache.cached("game-3") != nil && cache.cached("game-0") == nil)
            cache.forget("game-3")
            #expect(cache.count == 1 && cache.totalBytes == one)
        }
    }

    /// Sockets that leave take their games with them: no per-game entry outlives its watchers.
    @Test func theSocketHubForgetsGamesNobodyWatches() throws {
        let hub = SocketHub(metrics: ServerMetrics(), logger: Logger(label: "test"))
        let channel = EmbeddedChannel()
        let first = hub.register(deviceID: "phone", authorID: "ann", channel: channel)
        let second = hub.register(deviceID: "tablet", authorID: "ann", channel: channel)
        hub.subscribe(first, to: ["g1", "g2"])
        hub.subscribe(second, to: ["g2"])
        hub.hear(.zoneChanged(game: "g1", sequence: 5), from: .here)
        hub.hear(.zoneChanged(game: "g2", sequence: 7), from: .here)
        hub.hear(.zoneChanged(game: "unwatched", sequence: 9), from: .here)
        #expect(hub.tracked == (watched: 2, poked: 2))
        #expect(hub.lastPoked("g2") == 7 && hub.lastPoked("unwatched") == 0)
        hub.unsubscribe(first, from: ["g1"])
        #expect(hub.tracked == (watched: 1, poked: 1))
        hub.unregister(first)
        #expect(hub.tracked == (watched: 1, poked: 1))
        hub.dropSubscriptions(authorID: "ann", game: "g2")
        #expect(hub.tracked == (watched: 0, poked: 0) && hub.watchedGames.isEmpty)
        hub.unregister(second)
        #expect(hub.count == 0)
    }

    /// Uploads are parsed on blocking-work threads, a bounded number at once: one more than
    /// the bound is refused as busy (with a time to retry), and room comes back as parses end.
    @Test func uploadParsesAreBoundedAndRunOffTheTaskPool() async throws {
        let parser = UploadParser(maximumAdmitted: 1)
        let (started, startedNow) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let slow = Task {
            try await parser.run(for: "ann") { () -> String in
                startedNow.yield()
                release.wait()  // a parse that takes a while, on its own thread
                return Thread.current.name ?? ""
            }
        }
        for await _ in started { break }
        #expect(parser.inProgress == 1)
        do {
            _ = try await parser.parse(Array("x".utf8), fileName: "x.ipuz", for: "bob")
            Issue.record("a second parse was admitted past the bound")
        } catch let error as APIError {
            #expect(error.body.error == .rateLimited && error.retryAfterSeconds == 2)
        }
        release.signal()
        #expect(try await slow.value.contains("TP-#"))  // a thread of NIO's blocking-work pool
        #expect(parser.inProgress == 0)
        let xd = "Title: Tiny\n\n\nAB\nCD\n\n\nA1. Top ~ AB\nA3. Bottom ~ CD\n\nD1. Left ~ AC\nD2. Right ~ BD\n"
        let puzzle = try await parser.parse(Array(xd.utf8), fileName: "tiny.xd", for: "ann")
        #expect(puzzle.width == 2 && puzzle.title == "Tiny")
    }

    /// One account holds at most its share of the parse slots: eight slow uploads from Rex
    /// left every other account's tiny upload refused as busy; now Rex's second waits his turn
    /// and Ann's goes through. (One slot each here: the blocking-work pool has a thread per core,
    /// so the test holds no more of them than a two-core machine has.)
    @Test func oneAccountHoldsOnlyItsShareOfParseSlots() async throws {
        let parser = UploadParser(maximumAdmitted: 4)
        #expect(parser.maximumPerAccount == 1)
        #expect(UploadParser(maximumAdmitted: 8).maximumPerAccount == 2)
        let (started, startedNow) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let slow = Task {
            try await parser.run(for: "rex") { () -> Int in
                startedNow.yield()
                release.wait()
                return 1
            }
        }
        for await _ in started { break }
        do {
            _ = try await parser.run(for: "rex") { 1 }
            Issue.record("Rex held more than his share of the parse slots")
        } catch let error as APIError {
            #expect(error.body.error == .rateLimited && error.body.message.contains("uploads being read already"))
        }
        #expect(try await parser.run(for: "ann") { 2 } == 2)
        release.signal()
        #expect(try await slow.value == 1)
        #expect(parser.inProgress == 0)
    }
}

/// The memory of finished games' stats is bounded by bytes, not by count.
@Suite struct FinishedGameCacheTests {
    @Test func itIsBoundedByBytes() {
        let cache = FinishedGameCache(maximumBytes: 64 << 10)
        let players = (0..<50).map { "acct-\($0)-" + String(repeating: "x", count: 16) }
        for index in 0..<200 {
            cache.keep([FinishedGame(gameID: "game-\(index)", width: 15, height: 15, finishedAt: 1, solved: true, seconds: 60, players: players)])
            #expect(cache.bytesKept <= 64 << 10)
        }
        #expect(cache.games(["game-199"]).count == 1)
        #expect(cache.games((0..<200).map { "game-\($0)" }).count < 200)
    }
}
