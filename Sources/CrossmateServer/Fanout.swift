import CrossmateProtocol
import CrossmateStore
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Something every instance's sockets should hear about.
enum FanoutEvent: Codable, Sendable {
    /// `exceptDevice`: the device that made the change, which knows it from its response.
    /// `inline`: the changes themselves, when they are few.
    case poke(game: String, sequence: Int64, exceptDevice: String? = nil, inline: InlineChanges? = nil)
    case feed(authorID: String, sequence: Int64)
    case cursor(game: String, deviceID: String, authorID: String, cursor: CursorPosition)
}

/// Delivers events to this instance's sockets and, with PostgreSQL, to every other instance.
protocol Fanout: Sendable {
    var hub: SocketHub { get }
    /// Passes an event this instance's sockets already have to the other instances.
    func forward(_ event: FanoutEvent) async
}

extension Fanout {
    func publish(_ event: FanoutEvent) async {
        hub.deliver(event)
        await forward(event)
    }
}

extension SocketHub {
    func deliver(_ event: FanoutEvent) {
        switch event {
        case let .poke(game, sequence, exceptDevice, inline): poke(game: game, sequence: sequence, exceptDevice: exceptDevice, inline: inline)
        case let .feed(authorID, sequence): feed(authorID: authorID, sequence: sequence)
        case let .cursor(game, deviceID, authorID, cursor): self.cursor(game: game, deviceID: deviceID, authorID: authorID, cursor: cursor)
        }
    }
}

/// One instance alone: events go straight to its sockets.
struct LocalFanout: Fanout {
    let hub: SocketHub
    func forward(_ event: FanoutEvent) async {}
}

/// Several instances on one PostgreSQL: events go to local sockets at once and to the others
/// through NOTIFY. Each instance holds one LISTEN connection; after (re)connecting it re-reads
/// the zone sequence of every game its sockets watch and pokes what it missed.
final class PostgresFanout: Fanout, Service {
    static let channel = "crossmate_events"
    static let maximumPayload = 7_900
    struct Envelope: Codable {
        var instance: String
        var event: FanoutEvent
    }

    let hub: SocketHub
    let database: PostgresSQLDatabase
    let store: Store
    let instance = UUID().uuidString
    let logger: Logger

    init(hub: SocketHub, database: PostgresSQLDatabase, store: Store, logger: Logger) {
        self.hub = hub
        self.database = database
        self.store = store
        self.logger = logger
    }

    func forward(_ event: FanoutEvent) async {
        guard var payload = try? String(decoding: JSONEncoder().encode(Envelope(instance: instance, event: event)), as: UTF8.self) else { return }
        if payload.utf8.count > Self.maximumPayload, case let .poke(game, sequence, exceptDevice, _) = event {
            // NOTIFY payloads stop at 8,000 bytes: announce a big write plainly; devices fetch it.
            let plain = FanoutEvent.poke(game: game, sequence: sequence, exceptDevice: exceptDevice)
            guard let encoded = try? JSONEncoder().encode(Envelope(instance: instance, event: plain)) else { return }
            payload = String(decoding: encoded, as: UTF8.self)
        }
        do {
            try await database.client.query("SELECT pg_notify(\(Self.channel), \(payload))", logger: logger)
        } catch {
            // Other instances' clients still fetch on their next poke or reconnect.
            logger.warning("NOTIFY failed", metadata: ["error": "\(error)"])
        }
    }

    func run() async throws {
        var attempt = 0
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: database.configuration.asConnectionConfiguration, id: attempt, logger: logger)
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: Self.channel) { notifications in
                    attempt = 0
                    await catchUp()
                    for try await notification in notifications.cancelOnGracefulShutdown() {
                        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(notification.payload.utf8)),
                              envelope.instance != instance else { continue }
                        hub.deliver(envelope.event)
                    }
                }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                logger.warning("LISTEN connection lost; reconnecting", metadata: ["error": "\(error)"])
            }
            attempt += 1
            try? await Task.sleep(for: .milliseconds(min(2_000, 100 * attempt)))
        }
    }

    /// After a (re)connect: poke every watched game whose zone moved on while we were not listening.
    private func catchUp() async {
        for game in hub.watchedGames {
            guard let stored = try? await store.game(game) else { continue }
            if stored.zoneSeq > hub.lastPoked(game) {
                hub.poke(game: game, sequence: stored.zoneSeq)
            }
        }
    }
}

extension PostgresClient.Configuration {
    /// The same server and credentials for a single `PostgresConnection`.
    var asConnectionConfiguration: PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let path = unixSocketPath {
            configuration = .init(unixSocketPath: path, username: username, password: password, database: database)
        } else {
            configuration = .init(host: host ?? "localhost", port: port ?? 5432, username: username, password: password,
                                  database: database, tls: .disable)
        }
        return configuration
    }
}
