import CrossmateFormats
import CrossmateProtocol
import CrossmateStore
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import Synchronization

/// Builds the server exactly as `crossmate serve` runs it, so tests exercise the same app.
public func buildApplication(_ configuration: ServerConfiguration, logger: Logger? = nil) throws -> some ApplicationProtocol {
    var configured = logger ?? Logger(label: "crossmate")
    configured.logLevel = configuration.logLevel
    let logger = configured

    // The web app's files first: a binary that cannot serve its pages refuses to start.
    let app = try AppFiles.load()
    let database: any SQLDatabase
    var services: [any Service] = []
    let metrics = ServerMetrics()
    let hub = SocketHub(metrics: metrics, logger: logger, commitNotices: configuration.commitNotices)
    // Who hears what happened: one ordered list, filled below once its listeners are built.
    let facts = Facts()
    var fanout: PostgresFanout?
    let store: Store
    let directory: GameDirectory
    // The engine and where its data is, for the start line.
    let engine: String
    switch configuration.storage {
    case let .sqlite(path):
        engine = "SQLite at \(path)"
        // Owner-only before SQLite opens it (SQLite gives its -wal and -shm the main file's mode).
        try PrivateFiles.prepareDatabase(at: path)
        database = try SQLiteDatabase(path: path, logger: logger)
        // First in the list, so the last to stop: after everything that writes on the way out.
        services.append(DatabaseClosing(database: database, logger: logger))
        store = Store(
            database: database, onGroupCommit: metrics.recordCommit, commitInterval: configuration.commitInterval,
            commitWindow: configuration.commitWindow, beforeCommit: configuration.holdGroupCommit.map(GroupCommitHold.init)?.hold)
        directory = GameDirectory(store: store, snapshotInterval: configuration.snapshotInterval)
    case let .postgres(url):
        let postgres = try PostgresSQLDatabase(url: url, logger: logger)
        engine = "PostgreSQL at \(postgres.place)"
        database = postgres
        store = Store(
            database: database, onGroupCommit: metrics.recordCommit, commitInterval: configuration.commitInterval,
            commitWindow: configuration.commitWindow)
        directory = GameDirectory(store: store, snapshotInterval: configuration.snapshotInterval)
        let postgresFanout = PostgresFanout(
            hub: hub, facts: facts, database: postgres, store: store, directory: directory, viewersEvery: configuration.viewersEvery, logger: logger)
        // First, so the last to stop: its line is the log's last.
        services.append(DatabaseClosing(database: database, logger: logger))
        services.append(postgres.client)
        services.append(postgresFanout)
        fanout = postgresFanout
    }
    // The composition root: each part is given what it uses, and nothing holds them all.
    let clock = configuration.clock
    let history = HistoryReads(store: store, metrics: metrics)
    // RFC 8292: the push service may contact the sender at an https URL (or a mailto: address).
    let contact = configuration.publicURL.flatMap { $0.hasPrefix("https://") ? $0 : nil } ?? "mailto:crossmate@localhost"
    let notifier = PushNotifier(
        store: store, clock: clock, logger: logger, allowLoopback: configuration.pushAllowLoopback, subject: contact, metrics: metrics,
        movesWindowMillis: configuration.pushMovesWindowMillis)
    let writes = GameWrites(
        store: store, directory: directory, facts: facts, rules: WriteRules(maximumSkewMillis: configuration.maximumSkewMillis),
        clock: clock, logger: logger, movesIngested: { [metrics] in metrics.movesIngested.increment(by: Int64($0)) })
    let browsers = BrowserHost(
        services: BrowserServices(
            store: store, directory: directory, writes: writes, hub: hub, history: history, metrics: metrics, logger: logger, clock: clock))
    let remoteWrites = fanout.map { _ in RemoteWrites(writes: writes) }
    // In this order: this instance's sockets first (a relay or poke is on the wire before
    // anything else is done), then the other instances, the hosted replicas, the other
    // instances' writes folded here, the push notifier, the stats.
    var listeners: [any FactListener] = [hub]
    if let fanout { listeners.append(fanout) }
    listeners.append(browsers)
    if let remoteWrites { listeners.append(remoteWrites) }
    listeners += [notifier, StatsKeeper(history: history, logger: logger)] as [any FactListener]
    facts.listen(listeners)
    let devices = DeviceCache()
    hub.onRevoked.withLock { [devices] in $0 = SocketHub.Listener { devices.forget(deviceID: $0) } }
    let requestLimiter = RateLimiter(burst: configuration.rateLimitBurst, perSecond: configuration.rateLimitPerSecond)
    let authenticator = Authenticator(store: store, devices: devices, limiter: requestLimiter, clock: clock)

    let router = Router(context: CrossmateRequestContext.self)
    router.add(middleware: RequestMetrics(metrics: metrics))
    router.add(middleware: JSONErrors(logger: logger))
    router.add(middleware: DeviceAuthenticator(authenticator: authenticator, metrics: metrics))
    router.addRoutes(OperationsController(store: store, directory: directory, metrics: metrics, notifier: notifier, logger: logger).routes)
    router.addRoutes(
        AccountController(
            store: store, writes: writes, devices: devices,
            accountLimiter: RateLimiter(burst: configuration.accountRateLimitBurst, perSecond: configuration.accountRateLimitPerSecond),
            addresses: ClientAddress(trusted: configuration.trustedProxies),
            renameLimiter: RateLimiter(Limits.rename.perAccount!), signups: configuration.signups,
            linkCodeLifetimeMillis: configuration.linkCodeLifetimeMillis, logger: logger, clock: clock
        ).routes)
    let games = GameController(
        store: store, writes: writes, directory: directory, uploads: UploadParser(maximumAdmitted: configuration.maximumConcurrentUploads),
        nextGameLimiter: RateLimiter(Limits.nextGame.perAccount!), socketBufferBytes: configuration.socketBufferBytes, clock: clock)
    router.addRoutes(games.routes)
    router.addRoutes(
        ShareController(
            store: store, writes: writes, games: games, previewLimiter: requestLimiter,
            addresses: ClientAddress(trusted: configuration.trustedProxies), publicURL: configuration.publicURL, clock: clock
        ).routes)
    router.addRoutes(FeedController(store: store, clock: clock).routes)
    router.addRoutes(WebController(clock: clock, app: app, signups: configuration.signups, hasAccounts: AccountsMade(store: store).check).routes)
    router.addRoutes(
        SocialController(
            store: store, writes: writes, nudgeLimiter: RateLimiter(Limits.nudge.perAccount!), maximumSkewMillis: configuration.maximumSkewMillis,
            clock: clock
        ).routes)
    router.addRoutes(StatsController(store: store, history: history, clock: clock).routes)
    let exports = GameExports(
        store: store, directory: directory, snapshotInterval: configuration.snapshotInterval, running: metrics.exportsRunning)
    router.addRoutes(ExportController(store: store, exports: exports, clock: clock).routes)
    router.addRoutes(PushController(store: store, notifier: notifier, clock: clock).routes)
    // WebSocket upgrades get a router of their own, so ordinary requests never try to match it.
    let socketRouter = Router(context: CrossmateRequestContext.self)
    socketRouter.add(middleware: SocketAuthenticator(authenticator: authenticator, metrics: metrics, logger: logger))
    socketRouter.addRoutes(
        SocketController(
            hub: hub, browsers: browsers, writes: writes, authenticator: authenticator,
            socketLimiter: RateLimiter(burst: configuration.socketRateLimitBurst, perSecond: configuration.socketRateLimitPerSecond),
            store: store, directory: directory, configuration: configuration, metrics: metrics, logger: logger
        ).routes)

    // Every connection is guarded from its first byte (`HTTPGuard`): malformed requests are
    // answered and closed, slow and silent clients time out, headers and targets are bounded.
    let limits = configuration.httpLimits
    let socketResponder = socketRouter.buildResponder()
    let channel = HTTP1WebSocketUpgradeChannel.Configuration(
        http1: .init(
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: limits.maximumHeaderFieldBytes, maxHeaderListSize: limits.maximumHeaderBytes,
                maxHeaderFieldCount: limits.maximumHeaderCount)),
        ws: .init(maxFrameSize: SocketController.maximumMessageBytes, autoPing: .enabled(timePeriod: .seconds(15))))
    var server = Application(
        router: router,
        server: HTTPServerBuilder { responder in
            GuardedHTTPChannel(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: socketResponder, configuration: channel),
                limits: limits)
        },
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "crossmate"),
        onServerRunning: { channel in
            // Printed, not logged, so scripts and people see the URL whatever the log level.
            let local = "http://\(configuration.host):\(channel.localAddress?.port ?? configuration.port)/"
            let line = "Crossmate is serving at \(local)" + (configuration.publicURL.map { " (players reach it at \($0)/)" } ?? "") + "\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        },
        logger: logger.quietingConnectionNoise
    )
    let sweep = ReplicaSweep(browsers: browsers, grace: configuration.browserReplicaGraceMillis, metrics: metrics)
    services.append(
        Housekeeping(
            store: store, directory: directory, sweepers: [sweep], interval: configuration.housekeepingInterval, clock: clock, logger: logger))
    services.append(notifier)
    if let fanout, let remoteWrites {
        services.append(remoteWrites)
        services.append(RemotePresence(heard: fanout.presenceHeard, writes: writes))
    }
    services.append(facts)
    services.append(ShutdownLog(logger: logger))
    server.addServices(services)
    metrics.recordBuild(
        version: Release.version, commit: app.commit ?? "unknown", engine: configuration.storage.engineName, schema: Store.schemaVersion)
    let reached = configuration.publicURL.map { "; players reach it at \($0)/" } ?? ""
    let commit = app.commit.map { String($0.prefix(12)) } ?? "unknown"
    logger.notice(
        "crossmate \(Release.version) (commit \(commit)) starting: \(engine), schema \(Store.schemaVersion), sign-ups \(configuration.signups.rawValue); web app from \(app.origin)\(reached)"
    )
    server.beforeServerStarts {
        // A PostgreSQL that cannot be used is one sentence within seconds, not a minute of retries.
        if let postgres = database as? PostgresSQLDatabase {
            do {
                // A stop (SIGTERM) meanwhile is honoured at once.
                logger.info("asking PostgreSQL at \(postgres.place) for its version")
                let version = try await cancelWhenGracefulShutdown { try await postgres.preflight() }
                logger.notice("PostgreSQL \(version) answers at \(postgres.place)")
            } catch is CancellationError {
                throw StoppedBeforeServing()
            } catch {
                throw DatabaseTrouble(sentence: "cannot use PostgreSQL at \(postgres.place): \(DatabaseTrouble.sentence(for: error))")
            }
        }
        let schema = try await store.migrate(now: configuration.clock())
        if schema.found != schema.now {
            logger.notice("database schema migrated from version \(schema.found) to \(schema.now)")
        } else {
            logger.info("database schema is at version \(schema.now)")
        }
    }
    return server
}

/// The server was asked to stop (SIGTERM, SIGINT) before it served: not a failure.
public struct StoppedBeforeServing: Error, CustomStringConvertible {
    public var description: String { "stopped before serving: asked to stop while waiting for the database" }
}

/// Says in the log that the server is stopping, when it is asked to (SIGTERM, SIGINT), and that
/// it has stopped once every other service has.
struct ShutdownLog: Service {
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        logger.notice("stopping: finishing the requests in flight, then closing the database")
    }
}

/// Closes the database when the server stops cleanly, so SQLite's log is copied into the
/// database and removed: a stopped server's data directory is its database file alone.
struct DatabaseClosing: Service {
    let database: any SQLDatabase
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        do {
            try await database.close()
            logger.notice("stopped: the database is closed")
        } catch {
            logger.error("the database could not be closed cleanly (\(error)); its log is replayed at the next start")
        }
    }
}

/// Health and metrics.
struct OperationsController {
    let store: Store
    let directory: GameDirectory
    let metrics: ServerMetrics
    let notifier: PushNotifier
    let logger: Logger
    let health = HealthLog()

    /// Whether the database answers within two seconds: nil when it does, else the reason in
    /// words, told to the log once per outage (not once per look) and kept in `crossmate_database_up`.
    func databaseTrouble() async -> String? {
        var reason: String?
        do {
            let answered: Bool? = try await withinDeadline(.seconds(1)) {
                _ = try await store.feedSequence(authorID: "")
                return true
            }
            if answered == nil {
                // The pool waits for a connection it keeps failing to make: ask afresh why.
                reason =
                    await store.database.whyUnreachable(within: .seconds(1))
                    ?? "the database did not answer within 1 s; see the server's log for what it is waiting on"
            }
        } catch {
            reason = DatabaseTrouble.sentence(for: error)
        }
        metrics.databaseUp.set(reason == nil ? 1.0 : 0.0)
        health.report(reason, logger: logger)
        return reason
    }

    /// This controller's routes, for the application's router.
    var routes: RouteCollection<CrossmateRequestContext> {
        let router = RouteCollection(context: CrossmateRequestContext.self)
        // Answers within two seconds whatever the database does: 503 with the reason while it
        // cannot be reached.
        router.get("healthz") { _, _ -> Response in
            let reason = await databaseTrouble()
            let body = reason.map { ["status": "unavailable", "reason": $0] } ?? ["status": "ok"]
            return Response(
                status: reason == nil ? .ok : .serviceUnavailable, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(body))))
        }
        router.get("metrics") { _, _ -> Response in
            _ = await databaseTrouble()
            metrics.gameProjections.set(Double(directory.count))
            metrics.webPushesWaiting.set(Double(notifier.schedule.waitingCount))
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.render())))
        }
        return router
    }
}

/// Whether the last health check found the database away: an outage is logged when it starts
/// and when it ends, not at every check.
final class HealthLog: Sendable {
    private let away = Mutex(false)

    func report(_ reason: String?, logger: Logger) {
        let changed = away.withLock { away -> Bool in
            defer { away = reason != nil }
            return away != (reason != nil)
        }
        guard changed else { return }
        if let reason { logger.error("health check: \(reason)") } else { logger.notice("health check: the database answers again") }
    }
}

/// `ServerConfiguration.holdGroupCommit`: counts group commits and blocks the writer thread at
/// the chosen one for good, between relaying its moves and its COMMIT (SQLite's writer is a
/// thread of its own; nothing else waits on it but writes).
final class GroupCommitHold: Sendable {
    private let chosen: Int
    private let count = Mutex(0)

    init(_ chosen: Int) {
        self.chosen = chosen
    }

    func hold() {
        guard
            count.withLock({ count in
                count += 1
                return count == chosen
            })
        else { return }
        while true { sleep(3_600) }
    }
}
