import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// One WebSocket per device at `/v1/socket`: subscriptions, pokes after commit, live cursors and
/// pings. Nothing on it is stored, so a lost connection loses nothing: clients fetch on reconnect.
struct SocketController {
    let hub: SocketHub
    let browsers: BrowserHost
    let writes: GameWrites
    let authenticator: Authenticator
    /// Socket messages other than pushes (cursors, pings, subscribes), per device.
    let socketLimiter: RateLimiter
    let store: Store
    let directory: GameDirectory
    let configuration: ServerConfiguration
    let metrics: ServerMetrics
    let logger: Logger
    /// Pushes refused while the database is away, logged once a minute.
    let outage = OutageLog()

    /// A push carries a batch, so a socket message may be as large as an HTTP batch. A bigger
    /// one closes the socket (1009, message too big).
    static let maximumMessageBytes = ProtocolLimits.maximumBatchBytes + 64 * 1024

    /// This controller's routes, for the application's router.
    var routes: RouteCollection<CrossmateRequestContext> {
        let router = RouteCollection(context: CrossmateRequestContext.self)
        router.ws(RouterPath(APIRoute.socket.pattern)) { _, _ in
            .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            guard let device = context.requestContext.device else {
                let refusal = context.requestContext.socketRefusal ?? APIError(.unauthorized, "this socket has no credentials")
                await Self.awaitFirstMessage(inbound)
                try await outbound.write(.text(SocketHub.encode(.error(refusal.body))))
                try await outbound.close(.unknown(Self.closeCode(for: refusal.body.error)), reason: refusal.body.error.rawValue)
                return
            }
            // Handled on the socket's own event loop (`EventLoopExecutor`) when the database's
            // writes have a thread of their own (SQLite). With PostgreSQL a push waits on several
            // queries, each answered on the database's own loop, and the socket work stays on the
            // task pool: on the sockets' loop 1,000 devices' p99 was 25–26 ms against 16–21.
            let channel = context.requestContext.channel
            let executor = store.database.commitExecutor == nil ? nil : EventLoopExecutor(channel.eventLoop)
            try await withTaskExecutorPreference(executor) {
                try await serve(device: device, channel: channel, inbound: inbound)
            }
        }
        return router
    }

    /// A refusal is sent once the client has spoken (every client subscribes or pings first), or
    /// after a short wait if it does not. Frames the server sends in the same packet as its
    /// upgrade response can be lost by a client still installing its WebSocket handlers (NIO's
    /// client does this now and then), and the refusal is the one message a client must see.
    static func awaitFirstMessage(_ inbound: WebSocketInboundStream) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var messages = inbound.messages(maxSize: 64 * 1024).makeAsyncIterator()
                _ = try? await messages.next()
            }
            group.addTask { try? await Task.sleep(for: refusalWait) }
            await group.next()
            group.cancelAll()
        }
    }

    /// How long a refused socket waits for its client's first message.
    static let refusalWait = Duration.seconds(2)

    /// The close code of a refused socket: 4000 plus the HTTP status the same refusal has.
    static func closeCode(for code: ErrorCode) -> UInt16 {
        4000 + UInt16(APIError(code, "").status.code)
    }

    /// A browser's own messages (open, close, replay, command).
    var browser: BrowserSocket { BrowserSocket(browsers: browsers, configuration: configuration) }

    func serve(device: StoredDevice, channel: any Channel, inbound: WebSocketInboundStream) async throws {
        let unsent = configuration.socketBufferBytes
        try? await channel.setOption(ChannelOptions.writeBufferWaterMark, value: .init(low: unsent / 2, high: unsent)).get()
        let id = hub.register(deviceID: device.deviceID, authorID: device.authorID, channel: channel, writer: await FrameWriter.install(on: channel))
        metrics.connectedSockets.set(Double(hub.count))
        let decoder = JSONDecoder()
        var ending: (any Error)?
        // Until when a socket past its limit is not told so again (`handle`).
        var quietUntil: Int64 = 0
        do {
            for try await message in inbound.messages(maxSize: Self.maximumMessageBytes) {
                guard case let .text(text) = message else { continue }
                let parsed: ClientSocketMessage
                do {
                    parsed = try ClientSocketMessage.decode(text, decoder: decoder)
                } catch {
                    // Unreadable messages cost a token too, and past the limit get no answer.
                    guard socketLimiter.take(device.deviceID, now: configuration.clock()) == nil else { continue }
                    hub.tell(.socket(id), refusal(of: Data(text.utf8), error))
                    continue
                }
                await handle(parsed, connection: id, device: device, quietUntil: &quietUntil)
            }
        } catch {
            ending = error
        }
        // The socket is gone (closed, or its network dropped and the pings went unanswered):
        // the games it had open lose this device at once.
        let shown = hub.shownGames(id)
        hub.unregister(id)
        metrics.connectedSockets.set(Double(hub.count))
        await browser.closed(connection: id)
        for game in shown { await writes.announceHere(game) }
        if let ending { throw ending }
    }

    /// Games one subscribe may name; more is refused rather than read.
    static let maximumGamesPerSubscribe = 200

    private func handle(_ message: ClientSocketMessage, connection: Int, device: StoredDevice, quietUntil: inout Int64) async {
        // Every message costs a token. Pushes and a browser's commands (which stand for pushes)
        // take a request token, as over HTTP, whether or not they change anything; the rest take
        // one from the device's socket bucket (a subscribe one per 50 games it names, a page of
        // a replay `Limits.replayPageCost`).
        let cost: Int =
            switch message {
            case let .subscribe(games): 1 + games.count / 50
            case .replay: Limits.replayPageCost
            default: 1
            }
        if case .push = message {
        } else if case let .command(request) = message {
            do { try authenticator.takeRequestToken(device) } catch {
                let reason = (error as? APIError)?.body.message ?? "too many requests from this device"
                hub.tell(
                    .socket(connection),
                    .refused(CommandRefusal(id: request.id, gameID: request.gameID, CommandRefusal.Reason(code: .rateLimited, reason: reason))))
                return
            }
        } else if let wait = socketLimiter.take(device.deviceID, cost: cost, now: configuration.clock()) {
            // Told once until the wait is over: a socket that keeps sending past its limit is not
            // answered each time (every answer would cost what the limit saves).
            let now = configuration.clock()
            if now >= quietUntil {
                quietUntil = now + Int64(wait) * 1000
                hub.tell(.socket(connection), .error(ErrorBody(.rateLimited, "too many socket messages from this device; retry after \(wait) s")))
            }
            return
        }
        switch message {
        case let .subscribe(games): await subscribe(games, connection: connection, device: device)
        case let .unsubscribe(games):
            hub.unsubscribe(connection, from: games)
        case let .cursor(gameID, position): await cursor(position, in: gameID, connection: connection, device: device)
        case let .push(gameID, pushID, moves):
            let answer = await push(moves, into: gameID, id: pushID, from: device)
            hub.tell(.socket(connection), answer)
            if case let .pushed(_, _, response) = answer { hub.answered(connection, game: gameID, through: response.token.sequence) }
        case .ping:
            hub.tell(.socket(connection), .pong(serverTime: configuration.clock()))
        case .relays: hub.takeRelays(connection)
        case let .open(gameID): await browser.open(gameID, connection: connection, device: device)
        case let .close(gameID): await browser.close(gameID, connection: connection)
        case let .viewing(gameID, viewing):
            if browsers.game(gameID, deviceID: device.deviceID, connection: connection) != nil {
                await browser.setShown(gameID, viewing, connection: connection, device: device)
            } else {
                await setViewing(gameID, viewing, connection: connection)
            }
        case let .replay(gameID, from): await browser.replay(gameID, from: from, connection: connection, device: device)
        case let .command(request): await browser.command(request, connection: connection, device: device)
        }
    }

    /// Subscribes the socket to the games named that the account may read; each other is
    /// refused by name.
    private func subscribe(_ games: [String], connection: Int, device: StoredDevice) async {
        guard games.count <= Self.maximumGamesPerSubscribe else {
            hub.tell(
                .socket(connection),
                .error(
                    ErrorBody(.limitExceeded, "subscribe to at most \(Self.maximumGamesPerSubscribe) games at once; this names \(games.count)")))
            return
        }
        let readable: Set<String>
        do {
            readable = try await store.readableGames(of: device.authorID, among: games)
        } catch {
            logger.error("subscribe failed", metadata: ["error": "\(error)"])
            hub.tell(.socket(connection), .error(ErrorBody(.serverError, "the server could not subscribe you; it has been logged")))
            return
        }
        for game in games where !readable.contains(game) {
            hub.tell(.socket(connection), .error(ErrorBody(.forbidden, "you are not a player in game \(TextRule.quote(game))")))
        }
        hub.subscribe(connection, to: games.filter(readable.contains))
    }

    /// A native device's cursor, on a letter square of a game the socket is subscribed to.
    private func cursor(_ cursor: CursorPosition, in gameID: String, connection: Int, device: StoredDevice) async {
        guard hub.isSubscribed(connection, to: gameID) else {
            hub.tell(.socket(connection), .error(ErrorBody(.forbidden, "subscribe to game \(TextRule.quote(gameID)) before sending cursors")))
            return
        }
        let puzzle: Puzzle
        do {
            guard let found = try await directory.puzzle(of: gameID, store: store) else { return }  // subscribed, so not missing
            puzzle = found
        } catch {
            logger.error("cursor: the game could not be loaded", metadata: ["game": "\(gameID)", "error": "\(error)"])
            hub.tell(
                .socket(connection), .error(ErrorBody(.serverError, "the server could not load game \(TextRule.quote(gameID)); it has been logged")))
            return
        }
        guard puzzle.isLetter(GridPosition(row: cursor.row, col: cursor.col)) else {
            hub.tell(
                .socket(connection),
                .error(
                    ErrorBody(
                        .invalid,
                        "a cursor is on a letter square of the \(puzzle.width)×\(puzzle.height) grid")))
            return
        }
        await writes.cursor(cursor, in: gameID, by: device)
    }

    /// A native device shows a game on screen, or stops.
    private func setViewing(_ gameID: String, _ viewing: Bool, connection: Int) async {
        guard hub.isSubscribed(connection, to: gameID) else {
            hub.tell(.socket(connection), .error(ErrorBody(.forbidden, "subscribe to game \(TextRule.quote(gameID)) before viewing it")))
            return
        }
        hub.setViewing(connection, game: gameID, viewing)
        await writes.announceHere(gameID)
    }

    /// A push over the socket: the same limits, rules and answers as `POST /v1/games/{id}/moves`.
    private func push(_ moves: [MoveRecord], into gameID: String, id: Int, from device: StoredDevice) async -> ServerSocketMessage {
        metrics.requests.increment()
        // A failure names the game as the client sent it, but never more than an id's length.
        let named = TextRule.quote(gameID, maximumBytes: ProtocolLimits.maximumIdentifierBytes)
        do {
            try authenticator.takeRequestToken(device)
            return .pushed(id: id, gameID: gameID, response: try await writes.ingest(moves, into: gameID, from: device))
        } catch let error as APIError {
            return .pushFailed(id: id, gameID: named, error: error.body, retryAfterSeconds: error.retryAfterSeconds)
        } catch  where isDatabaseUnreachable(error) {
            // The database is away: the device sends it again (logged once a minute, not per push).
            outage.report(path: "socket push", error: error, logger: logger)
            return .pushFailed(
                id: id, gameID: named, error: ErrorBody(.rateLimited, "the server cannot reach its database just now; retry in a few seconds"),
                retryAfterSeconds: 2)
        } catch {
            logger.error("socket push failed", metadata: ["game": "\(gameID)", "error": "\(error)"])
            return .pushFailed(
                id: id, gameID: named, error: ErrorBody(.serverError, "the server could not complete this push; it has been logged"),
                retryAfterSeconds: nil)
        }
    }

    /// The answer to a message that does not decode: a push that names its id is refused as a
    /// push (so the client can match it up); anything else gets a general error.
    private func refusal(of data: Data, _ error: any Error) -> ServerSocketMessage {
        struct Envelope: Decodable {
            var type: String?
            var id: Int?
            var gameID: String?
        }
        let detail = (error as? DecodingError).map(JSONBody.describe) ?? "not JSON"
        if let envelope = try? JSONDecoder().decode(Envelope.self, from: data), envelope.type == "push", let id = envelope.id {
            return .pushFailed(
                id: id, gameID: TextRule.quote(envelope.gameID ?? "", maximumBytes: ProtocolLimits.maximumIdentifierBytes),
                error: ErrorBody(.invalid, "malformed push: \(detail)"), retryAfterSeconds: nil)
        }
        return .error(
            ErrorBody(
                .invalid, "unreadable socket message (\(detail)); expected JSON with a \"type\" of subscribe, unsubscribe, cursor, push or ping"))
    }
}
