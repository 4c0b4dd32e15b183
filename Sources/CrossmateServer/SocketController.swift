import CrossmateProtocol
import CrossmateStore
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// One WebSocket per device at `/v1/socket`: subscriptions, pokes after commit, live cursors and
/// pings. Nothing on it is stored, so a lost connection loses nothing: clients fetch on reconnect.
struct SocketController {
    let state: ServerState

    /// A push carries a batch, so a socket message may be as large as an HTTP batch. A bigger
    /// one closes the socket (1009, message too big).
    static let maximumMessageBytes = ProtocolLimits.maximumBatchBytes + 64 * 1024

    func addRoutes(to router: Router<CrossmateRequestContext>) {
        router.ws("v1/socket") { _, context in
            _ = try context.requireDevice()
            return .upgrade([:])
        } onUpgrade: { inbound, _, context in
            guard let device = context.requestContext.device else { return }
            try await serve(device: device, channel: context.requestContext.channel, inbound: inbound)
        }
    }

    func serve(device: StoredDevice, channel: any Channel, inbound: WebSocketInboundStream) async throws {
        let unsent = state.configuration.socketBufferBytes
        try? await channel.setOption(ChannelOptions.writeBufferWaterMark, value: .init(low: unsent / 2, high: unsent)).get()
        let id = state.hub.register(deviceID: device.deviceID, authorID: device.authorID, channel: channel)
        state.metrics.connectedSockets.record(state.hub.count)
        defer {
            state.hub.unregister(id)
            state.metrics.connectedSockets.record(state.hub.count)
        }
        let decoder = JSONDecoder()
        for try await message in inbound.messages(maxSize: Self.maximumMessageBytes) {
            guard case let .text(text) = message else { continue }
            let parsed: ClientSocketMessage
            do {
                parsed = try ClientSocketMessage.decode(text, decoder: decoder)
            } catch {
                state.hub.reply(id, refusal(of: Data(text.utf8), error))
                continue
            }
            await handle(parsed, connection: id, device: device)
        }
    }

    private func handle(_ message: ClientSocketMessage, connection: Int, device: StoredDevice) async {
        switch message {
        case let .subscribe(games):
            var allowed: [String] = []
            for game in games.prefix(500) {
                if (try? await state.store.participant(gameID: game, authorID: device.authorID)) != nil {
                    allowed.append(game)
                } else {
                    state.hub.reply(connection, .error(ErrorBody(.forbidden, "you are not a player in game \(game)")))
                }
            }
            state.hub.subscribe(connection, to: allowed)
        case let .unsubscribe(games):
            state.hub.unsubscribe(connection, from: games)
        case let .cursor(gameID, cursor):
            guard state.hub.isSubscribed(connection, to: gameID) else {
                state.hub.reply(connection, .error(ErrorBody(.forbidden, "subscribe to game \(gameID) before sending cursors")))
                return
            }
            await state.fanout.publish(.cursor(game: gameID, deviceID: device.deviceID, authorID: device.authorID, cursor: cursor))
        case let .push(gameID, pushID, moves):
            state.hub.reply(connection, await push(moves, into: gameID, id: pushID, from: device))
        case .ping:
            state.hub.reply(connection, .pong(serverTime: state.now()))
        }
    }

    /// A push over the socket: the same limits, rules and answers as `POST /v1/games/{id}/moves`.
    private func push(_ moves: [MoveRecord], into gameID: String, id: Int, from device: StoredDevice) async -> ServerSocketMessage {
        state.metrics.requests.increment()
        if let wait = state.limiter.take(device.deviceID, now: state.now()) {
            return .pushFailed(id: id, gameID: gameID, error: ErrorBody(.rateLimited, "too many requests from this device; retry after \(wait) s"),
                               retryAfterSeconds: wait)
        }
        do {
            return .pushed(id: id, gameID: gameID, response: try await GameController(state: state).ingest(moves, into: gameID, from: device))
        } catch let error as APIError {
            return .pushFailed(id: id, gameID: gameID, error: error.body, retryAfterSeconds: error.retryAfterSeconds)
        } catch {
            state.logger.error("socket push failed", metadata: ["game": "\(gameID)", "error": "\(error)"])
            return .pushFailed(id: id, gameID: gameID, error: ErrorBody(.serverError, "the server could not complete this push; it has been logged"),
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
        let detail = (error as? DecodingError).map(ServerState.describe) ?? "not JSON"
        if let envelope = try? JSONDecoder().decode(Envelope.self, from: data), envelope.type == "push", let id = envelope.id {
            return .pushFailed(id: id, gameID: envelope.gameID ?? "", error: ErrorBody(.invalid, "malformed push: \(detail)"), retryAfterSeconds: nil)
        }
        return .error(ErrorBody(.invalid, "unreadable socket message (\(detail)); expected JSON with a \"type\" of subscribe, unsubscribe, cursor, push or ping"))
    }
}
