import ArgumentParser
import AsyncHTTPClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// `crossmate-bench bystander`: what one account doing what it is allowed to, as fast as it is
/// allowed, costs everyone else. Fay has a finished game of many moves and a few more finished
/// games; two of her devices ask for its replay over their sockets as fast as they can send, and
/// two loops ask for her stats over HTTP. Meanwhile Bob types in a game of his own, one key every
/// 50 ms, and a monitor asks `/healthz` every 100 ms: their round trips are the measure.
/// `CROSSMATE_BIN` runs an older build's server under the same load, to compare.
struct BystanderBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bystander",
        abstract: "Flood a real server with one account's replays and stats requests and measure another player's typing."
    )

    @Option(help: "Moves in Fay's long finished game (its replay).")
    var moves = 8_000

    @Option(help: "More finished games of Fay's (her stats read them), each of --moves / 4 moves.")
    var statsGames = 4

    @Option(help: "Seconds of flooding to measure.")
    var seconds = 15

    @Option(
        help:
            "What is flooded, comma-separated: replay, stats (Fay's), exports (Fay's and Gus's zips of all games), tarpit (Mal's push endpoints never answer while Fay chats), shared (Mal floods Bob's game with moves); or none (the baseline)."
    )
    var flood = "replay,stats"

    @Option(help: "Games of a 58×58 grid each exporting account has (exports).")
    var exportGames = 100

    @Option(help: "PostgreSQL URL; without it the server uses an SQLite file in a temporary directory.")
    var postgres: String?

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() async throws {
        let floods = Set(flood.split(separator: ",").map(String.init))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crossmate-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try BenchServer(
            dataDirectory: directory, postgres: postgres, environment: floods.contains("tarpit") ? ["CROSSMATE_PUSH_ALLOW_LOOPBACK": "1"] : [:])
        defer { server.stop() }
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let api = API(http: http, base: "http://127.0.0.1:\(server.port)")
        let puzzle = try BundledPuzzles.puzzle("daybreak")

        // Fay, her finished games, and a second device of hers.
        let fay: DeviceSession = try await api.call(.POST, "/v1/accounts", json: CreateAccountRequest(displayName: "Fay"))
        let long = try await Self.finishedGame(api, fay, puzzle: puzzle, moves: moves)
        for _ in 0..<statsGames { _ = try await Self.finishedGame(api, fay, puzzle: puzzle, moves: max(1, moves / 4)) }
        let code: LinkCodeResponse = try await api.call(.POST, "/v1/devices/link-codes", token: fay.token)
        let phone: DeviceSession = try await api.call(.POST, "/v1/devices", json: LinkDeviceRequest(code: code.code))

        // Bob's own game.
        let bob: DeviceSession = try await api.call(.POST, "/v1/accounts", json: CreateAccountRequest(displayName: "Bob"))
        let bobGame: GameSummary = try await api.call(.POST, "/v1/games", token: bob.token, json: CreateGameRequest(bundled: "daybreak"))
        var bobReplica = GameReplica(puzzle: puzzle, gameID: bobGame.gameID, replicaID: bob.deviceID, authorID: bob.account.authorID)
        let squares = puzzle.letterPositions

        let scenarios = BystanderScenarios(api: api, puzzle: puzzle)
        var exporters: [DeviceSession] = []
        if floods.contains("exports") {
            for name in ["Fay", "Gus"] { exporters.append(try await scenarios.exporter(name, games: exportGames, side: 58)) }
        }
        // Tarpit: Mal's devices name endpoints that never answer; Bob's phone a push service that
        // answers at once; Fay writes in a game the three of them play.
        var tarpit: LocalListener?
        var pushService: LocalListener?
        var chatGame: GameSummary?
        if floods.contains("tarpit") {
            let listener = try LocalListener(answering: false)
            let service = try LocalListener(answering: true)
            (tarpit, pushService) = (listener, service)
            let mal = try await scenarios.tarpitted(listener)
            let game: GameSummary = try await api.call(.POST, "/v1/games", token: fay.token, json: CreateGameRequest(bundled: "green-light"))
            let invitation: InvitationResponse = try await api.call(.POST, "/v1/games/\(game.gameID)/invitations", token: fay.token)
            for player in [mal[0], bob] {
                let _: GameSummary = try await api.call(.POST, "/v1/invitations/\(invitation.token)/accept", token: player.token)
            }
            let _: PushSubscriptionResponse = try await api.call(
                .POST, "/v1/push/subscriptions", token: bob.token,
                json: PushSubscriptionRequest(
                    endpoint: "\(service.origin)/push/bob", keys: .init(p256dh: BystanderScenarios.p256dh, auth: BystanderScenarios.auth)))
            chatGame = game
        }
        // Shared: Mal, with four devices, is invited into Bob's game.
        var flooders: [DeviceSession] = []
        if floods.contains("shared") {
            let mal: DeviceSession = try await api.call(.POST, "/v1/accounts", json: CreateAccountRequest(displayName: "Mal"))
            flooders = [mal]
            for _ in 0..<3 {
                let code: LinkCodeResponse = try await api.call(.POST, "/v1/devices/link-codes", token: mal.token)
                flooders.append(try await api.call(.POST, "/v1/devices", json: LinkDeviceRequest(code: code.code)))
            }
            let invitation: InvitationResponse = try await api.call(.POST, "/v1/games/\(bobGame.gameID)/invitations", token: bob.token)
            let _: GameSummary = try await api.call(.POST, "/v1/invitations/\(invitation.token)/accept", token: mal.token)
        }

        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let counts = FloodCounts()
        let end = ContinuousClock.now + .seconds(seconds)
        var sockets: [any Channel] = []
        let cpuBefore = server.cpuSeconds()
        let rssBefore = server.residentKilobytes()
        let started = ContinuousClock.now
        if floods.contains("replay") {
            for session in [fay, phone] {
                sockets.append(
                    try await DeviceConnection.open(
                        host: "127.0.0.1", port: server.port, group: loops, token: session.token, maxFrameSize: 16 << 20
                    ) { ReplayFlood(gameID: long.gameID, pages: max(1, moves / ReplayView.pageSteps + 1), counts: counts) })
            }
        }
        // The first stats request, alone: what a cold read of Fay's finished games costs.
        let firstStats = ContinuousClock.now
        let _: StatsResponse = try await api.call(.GET, "/v1/stats?timeZone=UTC", token: fay.token)
        let firstStatsMillis = (ContinuousClock.now - firstStats).inSeconds * 1000
        var statsLoops: [Task<Void, Never>] = []
        if floods.contains("stats") {
            for _ in 0..<2 {
                statsLoops.append(
                    Task {
                        while ContinuousClock.now < end {
                            do {
                                let _: StatsResponse = try await api.call(.GET, "/v1/stats?timeZone=UTC", token: fay.token)
                                counts.add(stats: 1)
                            } catch {
                                counts.add(refused: 1)
                            }
                        }
                    })
            }
        }
        var floodTasks: [Task<Void, Never>] = []
        for exporter in exporters {
            floodTasks.append(Task { await scenarios.exportLoop(exporter, until: end, counts: counts) })
        }
        let chatsSent = SentTimes()
        if let chatGame {
            floodTasks.append(Task { await scenarios.chatLoop(fay, gameID: chatGame.gameID, until: end, sent: chatsSent) })
        }
        if !flooders.isEmpty {
            floodTasks.append(Task { await scenarios.moveFlood(flooders, gameID: bobGame.gameID, until: end, counts: counts) })
        }
        let health = Task { () -> [Double] in
            var times: [Double] = []
            while ContinuousClock.now < end {
                let sent = ContinuousClock.now
                var request = HTTPClientRequest(url: api.base + "/healthz")
                request.method = .GET
                if let response = try? await http.execute(request, timeout: .seconds(60)) {
                    _ = try? await response.body.collect(upTo: 1 << 16)
                }
                times.append((ContinuousClock.now - sent).inSeconds * 1000)
                try? await Task.sleep(until: sent + .milliseconds(100))
            }
            return times
        }
        // Bob types: one key every 50 ms, each push answered before the next.
        var pushes: [Double] = []
        var failedPushes = 0
        var refusedMoves = 0
        var index = 0
        while ContinuousClock.now < end {
            let sent = ContinuousClock.now
            let move = try bobReplica.perform(
                .setLetter(squares[index % squares.count], index % 2 == 0 ? "A" : "B", pencil: false), wallMillis: Self.now())
            index += 1
            do {
                let answer: PushMovesResponse = try await api.call(
                    .POST, "/v1/games/\(bobGame.gameID)/moves", token: bob.token, json: PushMovesRequest(moves: move.map(MoveRecord.init)))
                refusedMoves += answer.results.count { $0.status == .rejected }
            } catch {
                failedPushes += 1  // timed out (30 s) or refused: counted, and its time kept
            }
            pushes.append((ContinuousClock.now - sent).inSeconds * 1000)
            try? await Task.sleep(until: sent + .milliseconds(50))
        }
        let measured = (ContinuousClock.now - started).inSeconds
        let serverCores = (server.cpuSeconds() - cpuBefore) / measured
        let rssGrowth = server.residentKilobytes() - rssBefore
        let healthTimes = await health.value
        for loop in statsLoops { await loop.value }
        for task in floodTasks { await task.value }
        // Bob's notifications: the n-th chat's request to the n-th push reaching his phone.
        try? await Task.sleep(for: .seconds(Int64(Limits.pushDeadlineSeconds) + 1))
        let sentTimes = chatsSent.times.withLock { $0 }
        let arrived = pushService?.arrivals("/push/bob") ?? []
        var notifications = zip(sentTimes, arrived).map { ($1 - $0).inSeconds * 1000 }
        notifications.sort()
        tarpit?.stop()
        pushService?.stop()
        for socket in sockets { try? await socket.close() }
        try await http.shutdown()
        try await loops.shutdownGracefully()

        let flooded = counts.snapshot
        pushes.sort()
        let healthSorted = healthTimes.sorted()
        var report = Report(
            title:
                "crossmate-bench bystander: Fay floods \(floods.sorted().joined(separator: " and ").isEmpty ? "nothing" : floods.sorted().joined(separator: " and ")) (a \(moves)-move replay, \(statsGames + 1) finished games), Bob types, \(seconds) s, \(postgres == nil ? "SQLite" : "PostgreSQL")"
        )
        report.add("bystanderPushP50Millis", "Bob's push round trip, p50", percentile(pushes, 0.50), "ms")
        report.add("bystanderPushP99Millis", "Bob's push round trip, p99", percentile(pushes, 0.99), "ms")
        report.add("bystanderPushMaxMillis", "Bob's push round trip, max", pushes.last ?? 0, "ms")
        report.add("bystanderPushes", "Bob's pushes", Double(pushes.count), "")
        report.add("bystanderPushesFailed", "Bob's pushes failed (timed out or refused)", Double(failedPushes), "")
        report.add("bystanderMovesRefused", "Bob's moves refused", Double(refusedMoves), "")
        if chatGame != nil {
            report.add(
                "bystanderNotificationP50Millis", "Bob's notification (chat sent to push received), p50", percentile(notifications, 0.50), "ms")
            report.add("bystanderNotificationP99Millis", "Bob's notification, p99", percentile(notifications, 0.99), "ms")
            report.add(
                "bystanderNotifications", "Bob's notifications received / chats sent", Double(arrived.count) / Double(max(1, sentTimes.count)), "")
        }
        if !exporters.isEmpty {
            report.add("exportsMade", "zips of all games made", Double(flooded.exports), "")
            report.add("exportMillisMax", "the slowest zip", flooded.exportMillis.max() ?? 0, "ms")
        }
        if !flooders.isEmpty {
            report.add("floodMovesPerSecond", "Mal's moves stored", Double(flooded.floodMoves) / measured, "/s")
        }
        report.add("healthzP99Millis", "/healthz round trip, p99", percentile(healthSorted, 0.99), "ms")
        report.add("healthzMaxMillis", "/healthz round trip, max", healthSorted.last ?? 0, "ms")
        report.add("firstStatsMillis", "Fay's first stats request", firstStatsMillis, "ms")
        report.add("replayFramesPerSecond", "replay frames Fay's sockets got", Double(flooded.replayFrames) / measured, "/s")
        report.add("replayMegabytesPerSecond", "replay bytes Fay's sockets got", Double(flooded.replayBytes) / measured / 1_048_576, "MB/s")
        report.add("refusedPerSecond", "Fay's stats requests refused (429)", Double(flooded.refused) / measured, "/s")
        report.add("socketRefusalsPerSecond", "refusals Fay's sockets were sent", Double(flooded.refusedOnSocket) / measured, "/s")
        report.add("statsPerSecond", "Fay's stats answered", Double(flooded.stats) / measured, "/s")
        report.add("serverCoresBusy", "server CPU use (cores of 2)", serverCores, "cores")
        report.add("serverMemoryGrowthMB", "server memory growth", Double(rssGrowth) / 1024, "MB")
        report.print(json: json, extra: ["moves": moves, "statsGames": statsGames, "seconds": seconds, "flood": flood])
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A game of `moves` moves of `session`'s (letters typed over and over), ended by resigning.
    static func finishedGame(_ api: API, _ session: DeviceSession, puzzle: Puzzle, moves: Int) async throws -> GameSummary {
        let game: GameSummary = try await api.call(.POST, "/v1/games", token: session.token, json: CreateGameRequest(bundled: "daybreak"))
        var replica = GameReplica(puzzle: puzzle, gameID: game.gameID, replicaID: session.deviceID, authorID: session.account.authorID)
        let squares = puzzle.letterPositions
        var made: [Move] = []
        for index in 0..<moves {
            made += try replica.perform(.setLetter(squares[index % squares.count], index % 2 == 0 ? "A" : "B", pencil: false), wallMillis: now())
        }
        for start in stride(from: 0, to: made.count, by: ProtocolLimits.maximumRecordsPerBatch) {
            let batch = made[start..<min(made.count, start + ProtocolLimits.maximumRecordsPerBatch)]
            let _: PushMovesResponse = try await api.call(
                .POST, "/v1/games/\(game.gameID)/moves", token: session.token, json: PushMovesRequest(moves: batch.map(MoveRecord.init)))
        }
        let _: CompletionResponse = try await api.call(.POST, "/v1/games/\(game.gameID)/resign", token: session.token)
        return game
    }
}

/// What Fay's floods got back.
final class FloodCounts: Sendable {
    struct Counts {
        var replayFrames = 0
        var replayBytes = 0
        var refused = 0
        var refusedOnSocket = 0
        var stats = 0
        var exports = 0
        var exportMillis: [Double] = []
        var floodMoves = 0
    }

    private let counts = Mutex(Counts())
    func add(replayBytes: Int) {
        counts.withLock {
            $0.replayFrames += 1
            $0.replayBytes += replayBytes
        }
    }
    func add(refused: Int) { counts.withLock { $0.refused += refused } }
    func add(refusedOnSocket: Int) { counts.withLock { $0.refusedOnSocket += refusedOnSocket } }
    func add(stats: Int) { counts.withLock { $0.stats += stats } }
    func add(export bytes: Int, millis: Double) {
        counts.withLock {
            $0.exports += 1
            $0.exportMillis.append(millis)
        }
    }
    func add(floodMoves: Int) { counts.withLock { $0.floodMoves += floodMoves } }
    var snapshot: Counts { counts.withLock { $0 } }
}

/// One of Fay's sockets: opens the game, then asks for a page of its replay every millisecond
/// (the server admits what its limits allow and refuses the rest), the pages in turn.
final class ReplayFlood: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let gameID: String
    let pages: Int
    let counts: FloodCounts
    private var page = 0
    private var timer: RepeatedTask?

    init(gameID: String, pages: Int, counts: FloodCounts) {
        self.gameID = gameID
        self.pages = pages
        self.counts = counts
    }

    func handlerAdded(context: ChannelHandlerContext) {
        send(#"{"type":"open","gameID":"\#(gameID)"}"#, context: context)
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        timer = loop.scheduleRepeatedTask(initialDelay: .milliseconds(50), delay: .milliseconds(1)) { _ in
            let (flood, context) = bound.value
            flood.send(#"{"type":"replay","gameID":"\#(flood.gameID)","from":\#(flood.page * ReplayView.pageSteps)}"#, context: context)
            flood.page = (flood.page + 1) % flood.pages
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) { timer?.cancel() }

    private func send(_ text: String, context: ChannelHandlerContext) {
        guard context.channel.isActive, context.channel.isWritable else { return }
        context.sendText(text)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard frame.opcode == .text else { return }
        let bytes = frame.unmaskedData.readableBytes
        let head = frame.unmaskedData.getString(at: frame.unmaskedData.readerIndex, length: min(bytes, 200)) ?? ""
        if head.contains(#""type":"replay""#) || head.contains(#""replay":{"#) {
            counts.add(replayBytes: bytes)
        } else if head.contains(#""type":"error""#) || head.contains(#""error":{"#) {
            counts.add(refusedOnSocket: 1)
        }
    }
}
