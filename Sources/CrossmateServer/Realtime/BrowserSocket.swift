import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import Foundation

/// A browser's own socket messages: opening and closing a game, its replay, and commands. Each is
/// answered by the device's hosted replica of the game (`BrowserHost`); the socket's other
/// messages are a native device's and any device's (`SocketController`).
struct BrowserSocket {
    let browsers: BrowserHost
    let configuration: ServerConfiguration

    private var services: BrowserServices { browsers.services }

    /// A browser opens a game: its hosted replica (loaded or shared with the device's other
    /// tabs) answers with the whole game; the others see this device arrive.
    func open(_ gameID: String, connection: Int, device: StoredDevice) async {
        guard
            browsers.game(gameID, deviceID: device.deviceID, connection: connection) != nil
                || browsers.openCount(connection: connection) < BrowserHost.maximumOpenPerConnection
        else {
            services.hub.tell(
                .socket(connection),
                .error(
                    ErrorBody(.limitExceeded, "a socket has at most \(BrowserHost.maximumOpenPerConnection) games open at once; close one first"))
            )
            return
        }
        do {
            let game = try await browsers.open(gameID, device: device, connection: connection)
            services.hub.openInBrowser(connection, game: gameID, true)
            services.hub.subscribe(connection, to: [gameID])  // for the other players' cursors
            services.metrics.browserReplicas.set(Double(browsers.count))
            // A game made before uploads were held to `FrameBudget` may not fit: it is
            // refused in words rather than cut off mid-frame.
            try await game.open(services: services, others: browsers.viewers(of: game).subtracting([connection])) { opened in
                let text = SocketHub.encode(.opened(opened))
                guard text.utf8.count <= configuration.socketBufferBytes * 3 / 4 else {
                    throw APIError(.limitExceeded, "this game is too large to open in a browser; play it with crossmate play")
                }
                services.hub.tell(.socket(connection), text: text)
            }
            await services.writes.announceHere(gameID)
        } catch let error as APIError {
            browsers.close(connection: connection, gameID: gameID, now: services.now(), grace: configuration.browserReplicaGraceMillis)
            services.hub.tell(.socket(connection), .error(error.body))
        } catch {
            browsers.close(connection: connection, gameID: gameID, now: services.now(), grace: configuration.browserReplicaGraceMillis)
            services.logger.error("a browser could not open a game", metadata: ["game": "\(gameID)", "error": "\(error)"])
            services.hub.tell(
                .socket(connection), .error(ErrorBody(.serverError, "the server could not open game \(TextRule.quote(gameID)); it has been logged")))
        }
    }

    /// A browser asks for the finished game's replay.
    func replay(_ gameID: String, from: Int, connection: Int, device: StoredDevice) async {
        guard let game = browsers.game(gameID, deviceID: device.deviceID, connection: connection) else {
            services.hub.tell(.socket(connection), .error(ErrorBody(.invalid, "open game \(TextRule.quote(gameID)) before asking for its replay")))
            return
        }
        do {
            services.hub.tell(.socket(connection), .replay(try await game.replay(from: from, host: browsers)))
        } catch let error as APIError {
            services.hub.tell(.socket(connection), .error(error.body))
        } catch {
            services.logger.error("a replay could not be assembled", metadata: ["game": "\(gameID)", "error": "\(error)"])
            services.hub.tell(.socket(connection), .error(ErrorBody(.serverError, "the server could not assemble the replay; it has been logged")))
        }
    }

    /// A browser's command, performed by its hosted replica.
    func command(_ request: CommandRequest, connection: Int, device: StoredDevice) async {
        services.metrics.requests.increment()
        guard let game = browsers.game(request.gameID, deviceID: device.deviceID, connection: connection) else {
            services.hub.tell(
                .socket(connection),
                .refused(
                    CommandRefusal(
                        id: request.id, gameID: request.gameID,
                        CommandRefusal.Reason(code: .notOpen, reason: "open the game before sending it commands"))))
            return
        }
        // A command's identity is its id and when it was typed: without the time, one sent
        // again after a restart could not be told from a new one and would be performed twice.
        guard request.typedAt != nil else {
            services.hub.tell(
                .socket(connection),
                .refused(
                    CommandRefusal(
                        id: request.id, gameID: request.gameID,
                        CommandRefusal.Reason(
                            code: .invalid,
                            reason: "a command carries typedAt, when it was typed (Unix ms), so that one sent again is not performed twice"))))
            return
        }
        services.hub.tell(.socket(connection), await game.perform(request, host: browsers, from: connection))
    }

    /// A page with the game open was hidden or shown again (a phone put in a pocket, another
    /// tab brought in front). Hidden past `browserHiddenGraceMillis`, the device is away: its
    /// lease ends and it is no longer here, so the others see it go and it is called back as any
    /// device that left. Shown again, it is back. The page keeps its socket and replica meanwhile.
    func setShown(_ gameID: String, _ shown: Bool, connection: Int, device: StoredDevice) async {
        let hub = services.hub
        if shown {
            guard hub.show(connection, game: gameID), let game = browsers.game(gameID, deviceID: device.deviceID, connection: connection) else {
                return
            }
            await game.comeBack(services: services)
            await services.writes.announceHere(gameID)
            return
        }
        guard let hiding = hub.hide(connection, game: gameID) else { return }
        let (browsers, services, grace) = (browsers, services, configuration.browserHiddenGraceMillis)
        Task {
            try? await Task.sleep(for: .milliseconds(grace))
            guard hub.goAway(connection, game: gameID, hiding: hiding),
                let game = browsers.game(gameID, deviceID: device.deviceID, connection: connection)
            else { return }
            await game.goAway(services: services)
            await services.writes.announceHere(gameID)
        }
    }

    /// The socket stops showing a game: the page it goes back to (the games list) keeps the
    /// subscription, which it wants for its badges and pictures.
    func close(_ gameID: String, connection: Int) async {
        services.hub.openInBrowser(connection, game: gameID, false)
        await leave(
            browsers.close(connection: connection, gameID: gameID, now: services.now(), grace: configuration.browserReplicaGraceMillis))
        await services.writes.announceHere(gameID)
    }

    /// The socket closed: every game it showed loses it.
    func closed(connection: Int) async {
        await leave(browsers.close(connection: connection, now: services.now(), grace: configuration.browserReplicaGraceMillis))
    }

    /// Browser replicas whose last socket left: the device leaves the game (its lease ends), and
    /// the others viewing the game see it go (`announceHere`, after).
    private func leave(_ games: [BrowserGame]) async {
        services.metrics.browserReplicas.set(Double(browsers.count))
        for game in games {
            await game.leave(services: services)
        }
    }
}
