import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// One simulated device: a WebSocket to the server and a replica of the game, typing on a timer.
/// It behaves as a client should (one push in flight, what is typed meanwhile goes in the next
/// batch; inline pokes taken when they follow on, a fetch otherwise), and it runs entirely on
/// its connection's event loop, without a task per frame: the load generator shares the two
/// cores with the server it measures, so it has to be cheap.
final class DeviceHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    struct Setup: Sendable {
        var session: DeviceSession
        var gameID: String
        var puzzle: Puzzle
        var seed: UInt64
        var keysPerSecond: Double
        var api: API
        var stats: Stats
        var fleet: Fleet
        /// Take relays (moves before their commit) instead of the pokes after it.
        var relays = false
    }

    private let setup: Setup
    private var replica: GameReplica
    private var random: SeededRandomNumberGenerator
    private let squares: [GridPosition]
    private let encoder = JSONEncoder()
    private var context: ChannelHandlerContext?

    // Typing and pushing.
    private var end: NIODeadline = .now()
    private var queued: [MoveRecord] = []
    private var inFlight: (id: Int, sentAt: ContinuousClock.Instant)?
    private var nextPushID = 0

    // Reading the zone: the token read through, and the sequences of this device's own moves.
    private var token: Int64 = 0
    private var own: Set<Int64> = []
    private var fetching = false
    private var fetchAgain = false
    /// Pokes that did not follow on while a push was in flight: the gap may be this device's
    /// own moves, whose sequences come with the push's answer.
    private var held: [JSONScan] = []
    /// Sequences relayed (ordered, not yet on disk): the token runs over them once a relay says
    /// the zone is committed that far.
    private var relayed: Set<Int64> = []

    init(_ setup: Setup) {
        self.setup = setup
        replica = GameReplica(
            puzzle: setup.puzzle, gameID: setup.gameID, replicaID: setup.session.deviceID,
            authorID: setup.session.account.authorID)
        random = SeededRandomNumberGenerator(seed: setup.seed)
        squares = setup.puzzle.letterPositions
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // The upgrade is done: watch the game, read it once, and say when the server has the
        // subscription (its pong follows the subscribe).
        if setup.relays { send(text: String(decoding: (try? encoder.encode(ClientSocketMessage.relays)) ?? Data(), as: UTF8.self)) }
        send(text: String(decoding: (try? encoder.encode(ClientSocketMessage.subscribe(games: [setup.gameID]))) ?? Data(), as: UTF8.self))
        send(text: ClientSocketMessage.pingJSON)
        fetch()
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        setup.fleet.enlist { end in
            bound.eventLoop.execute { bound.value.begin(until: end) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    // MARK: Typing

    private func begin(until end: NIODeadline) {
        self.end = end
        let interval = 1 / setup.keysPerSecond
        scheduleKeystroke(after: Double.random(in: 0..<interval, using: &random))
    }

    private func scheduleKeystroke(after seconds: Double) {
        guard let context else { return }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { bound.value.keystroke() }
    }

    private func keystroke() {
        guard context != nil, NIODeadline.now() < end else { return }
        let letter = String("ABCDEFGHIJKLMNOPRSTUWY".randomElement(using: &random)!)
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        if let moves = try? replica.perform(.setLetter(squares.randomElement(using: &random)!, letter), wallMillis: wall) {
            for move in moves { setup.stats.sent(move.id) }
            queued += moves.map(MoveRecord.init)
            pushIfIdle()
        }
        scheduleKeystroke(after: (1 / setup.keysPerSecond) * Double.random(in: 0.5...1.5, using: &random))
    }

    private func pushIfIdle() {
        guard inFlight == nil, !queued.isEmpty else { return }
        nextPushID += 1
        let batch = Array(queued.prefix(ProtocolLimits.maximumRecordsPerBatch))
        queued.removeFirst(batch.count)
        inFlight = (nextPushID, .now)
        send(text: ClientSocketMessage.pushJSON(gameID: setup.gameID, id: nextPushID, moves: batch))
    }

    private func answered(_ scan: JSONScan) {
        guard let (id, sentAt) = inFlight, scan.integers("id").first == Int64(id) else { return }
        inFlight = nil
        if scan.contains(#""type":"pushed""#) {
            // Only saved results carry a zone sequence.
            let saved = scan.integers("sequence")
            own.formUnion(saved)
            setup.stats.acknowledged(saved.count, roundTrip: .now - sentAt)
        } else {
            setup.stats.failed()
        }
        let pokes = held
        held = []
        for poke in pokes { poked(poke) }
        pushIfIdle()
    }

    // MARK: Reading

    private func poked(_ scan: JSONScan) {
        guard let pokeToken = scan.strings("token").first.flatMap(ChangeToken.init(encoded:))?.sequence else { return }
        while own.remove(token + 1) != nil { token += 1 }
        if !fetching, let after = scan.strings("after").first.flatMap(ChangeToken.init(encoded:))?.sequence, token >= after {
            setup.stats.appliedInline()
            let had = token
            for (sequence, (replicaID, seq)) in zip(scan.integers("sequence"), zip(scan.strings("replicaID"), scan.integers("seq")))
            where sequence > had && replicaID != setup.session.deviceID {
                setup.stats.seen(MoveID(replicaID: replicaID, seq: Int(seq)))
            }
            token = max(token, pokeToken)
        } else if token < pokeToken {
            if inFlight != nil, !fetching {
                held.append(scan)
            } else {
                fetch()
            }
        }
    }

    /// Other devices' moves, ordered and not yet on disk: seen now; the token moves on over them
    /// (and this device's own) through what the relay says is committed, or a fetch fills a gap.
    private func relayedMoves(_ scan: JSONScan) {
        guard let committed = scan.strings("committed").first.flatMap(ChangeToken.init(encoded:))?.sequence else { return }
        for (sequence, (replicaID, seq)) in zip(scan.integers("sequence"), zip(scan.strings("replicaID"), scan.integers("seq")))
        where sequence > token && relayed.insert(sequence).inserted && replicaID != setup.session.deviceID {
            setup.stats.seen(MoveID(replicaID: replicaID, seq: Int(seq)))
        }
        setup.stats.appliedInline()
        while token < committed, own.remove(token + 1) != nil || relayed.remove(token + 1) != nil { token += 1 }
        relayed = relayed.filter { $0 > token }
        if token < committed, inFlight == nil { fetch() }
    }

    private func fetch() {
        guard let context else { return }
        if fetching {
            fetchAgain = true
            return
        }
        fetching = true
        setup.stats.fetched()
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let (api, session, gameID, since) = (setup.api, setup.session, setup.gameID, ChangeToken(zone: setup.gameID, sequence: token))
        Task {
            let page: LeanPage? = try? await api.call(.GET, "/v1/games/\(gameID)/changes?since=\(since.encoded)", token: session.token)
            bound.eventLoop.execute { bound.value.fetched(page) }
        }
    }

    private func fetched(_ page: LeanPage?) {
        fetching = false
        if let page {
            for change in page.changes where change.type == "move" && change.sequence > token {
                if let replicaID = change.record.replicaID, let seq = change.record.seq, replicaID != setup.session.deviceID {
                    setup.stats.seen(MoveID(replicaID: replicaID, seq: seq))
                }
            }
            token = max(token, page.token.sequence)
            if page.moreComing { fetchAgain = true }
        }
        if fetchAgain {
            fetchAgain = false
            fetch()
        }
    }

    // MARK: Frames

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            let scan = JSONScan(frame.unmaskedData)
            if scan.contains(#""type":"relay""#) {
                relayedMoves(scan)
            } else if scan.contains(#""type":"poke""#) {
                poked(scan)
            } else if scan.contains(#""type":"pushed""#) || scan.contains(#""type":"pushFailed""#) {
                answered(scan)
            } else if scan.contains(#""type":"pong""#) {
                setup.fleet.ready()
            }
        default:
            _ = context.answerControl(frame)
        }
    }

    private func send(text: String) {
        context?.sendText(text)
    }
}

/// The devices as a group: how many have subscribed, and the signal to start typing.
final class Fleet: Sendable {
    private struct State {
        var ready = 0
        var waiters: [(Int, CheckedContinuation<Void, Never>)] = []
        var starters: [@Sendable (NIODeadline) -> Void] = []
    }
    private let state = Mutex(State())

    func enlist(_ start: @escaping @Sendable (NIODeadline) -> Void) { state.withLock { $0.starters.append(start) } }

    func ready() {
        let resumed = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ready += 1
            let count = state.ready
            let due = state.waiters.filter { $0.0 <= count }.map(\.1)
            state.waiters.removeAll { $0.0 <= count }
            return due
        }
        for continuation in resumed { continuation.resume() }
    }

    func waitUntilReady(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.ready >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    func start(until end: NIODeadline) {
        for start in state.withLock({ $0.starters }) { start(end) }
    }
}

/// Opens a device's WebSocket (`GET /v1/socket` with the HTTP upgrade) and hands the upgraded
/// connection to its `DeviceHandler`.
enum DeviceConnection {
    static func open(host: String, port: Int, group: any EventLoopGroup, setup: DeviceHandler.Setup) async throws -> any Channel {
        try await open(host: host, port: port, group: group, token: setup.session.token) { DeviceHandler(setup) }
    }

    /// A WebSocket to the server as the device of `token`, its frames handled by what `handler`
    /// makes (on the channel's event loop).
    static func open<Handler: ChannelInboundHandler>(
        host: String, port: Int, group: any EventLoopGroup, token: String, maxFrameSize: Int = 1 << 20,
        handler: @escaping @Sendable () -> Handler
    ) async throws -> any Channel where Handler.InboundIn == WebSocketFrame {
        try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let request = UpgradeRequest(host: host, port: port, path: "/v1/socket", token: token)
                    let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: maxFrameSize) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            channel.pipeline.syncOperations.removeHandler(name: UpgradeRequest.name, promise: nil)
                            try channel.pipeline.syncOperations.addHandler(handler())
                        }
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(
                        withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                    try channel.pipeline.syncOperations.addHandler(request, name: UpgradeRequest.name)
                }
            }
            .connect(host: host, port: port).get()
    }
}

/// Sends the upgrade request once connected (the upgrade handler adds the WebSocket headers);
/// removed with the HTTP handlers when the upgrade succeeds.
final class UpgradeRequest: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart
    static let name = "upgrade-request"

    let host: String
    let port: Int
    let path: String
    let token: String

    init(host: String, port: Int, path: String, token: String) {
        self.host = host
        self.port = port
        self.path = path
        self.token = token
    }

    func channelActive(context: ChannelHandlerContext) {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
        head.headers.add(name: "Host", value: "\(host):\(port)")
        head.headers.add(name: "Content-Length", value: "0")
        head.headers.add(name: "Authorization", value: "Bearer \(token)")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Only a refused upgrade gets here.
        if case let .head(head) = unwrapInboundIn(data) {
            context.fireErrorCaught(BenchFailure("the WebSocket upgrade was refused: \(head.status)"))
            context.close(promise: nil)
        }
    }
}
