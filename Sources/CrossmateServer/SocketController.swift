import CrossmateProtocol
import CrossmateStore
import Foundation
import Hummingbird
import HummingbirdWebSocket

/// One WebSocket per device at `/v1/socket`: subscriptions, pokes after commit, live cursors and
/// pings. Nothing on it is stored, so a lost connection loses nothing: clients fetch on reconnect.
struct SocketController {
    let state: ServerState

    func addRoutes(to router: Router<CrossmateRequestContext>) {
        router.ws("v1/socket") { _, context in
            _ = try context.requireDevice()
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            guard let device = context.requestContext.device else { return }
            try await serve(device: device, inbound: inbound, outbound: outbound)
        }
    }

    func serve(device: StoredDevice, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let (stream, outbox) = AsyncStream.makeStream(of: OutgoingMessage.self, bufferingPolicy: .bufferingNewest(4_096))
        let id = state.hub.register(deviceID: device.deviceID, authorID: device.authorID, outbox: outbox)
        state.metrics.connectedSockets.record(state.hub.count)
        let metrics = state.metrics
        defer {
            state.hub.unregister(id)
            state.metrics.connectedSockets.record(state.hub.count)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await outgoing in stream {
                    try await outbound.write(.text(outgoing.text))
                    let elapsed = ContinuousClock.now - outgoing.queuedAt
                    metrics.pushLatency.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
                }
            }
            let decoder = JSONDecoder()
            for try await message in inbound.messages(maxSize: 64 * 1024) {
                guard case let .text(text) = message else { continue }
                guard let parsed = try? decoder.decode(ClientSocketMessage.self, from: Data(text.utf8)) else {
                    state.hub.reply(id, .error(ErrorBody(.invalid, "unreadable socket message; expected JSON with a \"type\" of subscribe, unsubscribe, cursor or ping")))
                    continue
                }
                await handle(parsed, connection: id, device: device)
            }
            outbox.finish()
            group.cancelAll()
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
        case .ping:
            state.hub.reply(connection, .pong(serverTime: state.now()))
        }
    }
}
