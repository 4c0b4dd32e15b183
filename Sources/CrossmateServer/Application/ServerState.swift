import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Hummingbird
import Logging
import Synchronization

/// What every route shares: the store, the game projections, the sockets, limits and metrics.
final class ServerState: Sendable {
    let configuration: ServerConfiguration
    let store: Store
    let directory: GameDirectory
    let hub: SocketHub
    let fanout: any Fanout
    let limiter: RateLimiter
    /// Socket messages other than pushes (cursors, pings, subscribes), per device.
    let socketLimiter: RateLimiter
    /// Account creation, per client address.
    let accountLimiter: RateLimiter
    /// Devices by token hash. Tokens are never reassigned; a revoked device's entries go.
    let devices = DeviceCache()
    let metrics: ServerMetrics
    let logger: Logger
    /// Uploaded files are parsed here, off the task pool, a few at a time.
    let uploads: UploadParser
    /// Browsers' replicas of the games they have open.
    let browsers = BrowserHost()
    /// Nudges, per sending account.
    let nudgeLimiter = RateLimiter(Limits.nudge.perAccount!)
    /// What each finished game contributes to its players' stats (it never changes once read).
    let finishedGames = FinishedGameCache()
    /// Next puzzles together, per starting account.
    let nextGameLimiter = RateLimiter(Limits.nextGame.perAccount!)
    /// Finished games' replays, assembled once.
    let replays = ReplayCache()
    /// Work that grows with history, one at a time per account.
    let history = HistoryGate()
    /// Renames, per account: each writes a record into every game the account is in.
    let renameLimiter = RateLimiter(Limits.rename.perAccount!)

    init(
        configuration: ServerConfiguration, store: Store, directory: GameDirectory, hub: SocketHub, fanout: any Fanout,
        metrics: ServerMetrics, logger: Logger
    ) {
        self.configuration = configuration
        self.store = store
        self.directory = directory
        self.hub = hub
        self.fanout = fanout
        limiter = RateLimiter(burst: configuration.rateLimitBurst, perSecond: configuration.rateLimitPerSecond)
        socketLimiter = RateLimiter(burst: configuration.socketRateLimitBurst, perSecond: configuration.socketRateLimitPerSecond)
        accountLimiter = RateLimiter(burst: configuration.accountRateLimitBurst, perSecond: configuration.accountRateLimitPerSecond)
        self.metrics = metrics
        self.logger = logger
        uploads = UploadParser(maximumAdmitted: configuration.maximumConcurrentUploads)
        rules = WriteRules(maximumSkewMillis: configuration.maximumSkewMillis)
        hub.onRevoked.withLock { [devices] in $0 = SocketHub.Listener { devices.forget(deviceID: $0) } }
    }

    func now() -> Int64 { configuration.clock() }

    /// The write path every adapter (routes, sockets, hosted browser replicas) calls.
    var writes: GameWrites {
        GameWrites(
            store: store, directory: directory, events: self, rules: rules, clock: configuration.clock, logger: logger,
            movesIngested: { [metrics] in metrics.movesIngested.increment(by: $0) })
    }
    /// The rules the write path holds writes to, shared by every write.
    let rules: WriteRules

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// Reads and decodes a JSON body of at most `limit` bytes, with errors a client can act on.
    /// With `empty`, a request without a body (the body is optional) means that value.
    func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int, empty: T? = nil) async throws -> T {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw APIError(.limitExceeded, "the request body is larger than \(limit / 1024) KB")
        }
        if let empty, buffer.readableBytesView.allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) { return empty }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw APIError(.invalid, "malformed JSON: \(Self.describe(error))")
        } catch {
            throw APIError(.invalid, "malformed JSON: \(error)")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "" : " at \(keys.joined(separator: "."))"
        }
        switch error {
        case let .dataCorrupted(context): return "the body is not valid JSON\(path(context))"
        case let .keyNotFound(key, context): return "missing field \"\(key.stringValue)\"\(path(context))"
        case let .typeMismatch(type, context): return "expected \(type)\(path(context))"
        case let .valueNotFound(type, context): return "expected a \(type), found null\(path(context))"
        @unknown default: return "\(error)"
        }
    }

    /// The game and the caller's participation, or the error that ends the request.
    func access(_ gameID: String, for device: StoredDevice, write: Bool) async throws -> (StoredGame, StoredParticipant) {
        try await store.access(gameID, for: device, write: write)
    }

    /// The puzzle of a game, from its cached projection or (loading it) from the store.
    func puzzle(of gameID: String) async throws -> Puzzle? {
        try await directory.puzzle(of: gameID, store: store)
    }
}

/// The server hands the write path's events to their consumers: this instance's sockets, the
/// other instances, the hosted browser replicas, the stats keeper.
extension ServerState: ZoneEventSink {
    func emit(_ event: ZoneEvent) {
        switch event {
        case let .ordered(game, saved, sender):
            browsers.relay(gameID: game, saved, state: self)
            if let moves = InlineChanges(saved: saved) { hub.relay(game: game, moves, exceptDevice: sender) }
        case let .notCommitted(game):
            hub.relaysFailed(game: game)
            Task { await browsers.reload(gameID: game, state: self) }
        case let .everyone(event):
            hub.deliver(event)
            fanout.forward(event)
        case let .hereNow(event):
            hub.deliver(event)
        case let .othersOnly(event):
            fanout.forward(event)
        case let .whoIsHere(game, cursors):
            let devices = hub.viewers(game).map { PresentDevice(deviceID: $0.deviceID, authorID: $0.authorID, cursor: cursors[$0.deviceID]) }
            hub.announce(.here(gameID: game, devices: devices), toGame: game)
        case let .left(game, authorID):
            hub.dropSubscriptions(authorID: authorID, game: game)
        case let .finished(game):
            let stats = StatsController(state: self)
            Task { [logger] in
                do { _ = try await stats.finishedGame(game) } catch {
                    logger.error("a finished game's stats could not be kept", metadata: ["game": "\(game)", "error": "\(error)"])
                }
            }
        }
    }
}

/// A bounded memory of token hashes already looked up. A revoked device is forgotten on every
/// instance (the revocation fans out as an event).
final class DeviceCache: Sendable {
    private struct Entries {
        var byTokenHash: [String: StoredDevice] = [:]
        /// Devices revoked since the cache was last emptied: a lookup that began before the
        /// revocation must not put one back.
        var revoked: Set<String> = []
    }

    private let entries = Mutex(Entries())
    private let capacity = 100_000

    func device(tokenHash: String, store: Store) async throws -> StoredDevice? {
        if let cached = entries.withLock({ $0.byTokenHash[tokenHash] }) { return cached }
        guard let device = try await store.device(tokenHash: tokenHash) else { return nil }
        return entries.withLock {
            guard !$0.revoked.contains(device.deviceID) else { return nil }
            if $0.byTokenHash.count >= capacity { $0 = Entries() }
            $0.byTokenHash[tokenHash] = device
            return device
        }
    }

    /// An account was renamed: its cached devices carry the new name.
    func rename(authorID: String, to name: String) {
        entries.withLock {
            for (hash, device) in $0.byTokenHash where device.authorID == authorID { $0.byTokenHash[hash]?.displayName = name }
        }
    }

    func forget(deviceID: String) {
        entries.withLock {
            $0.byTokenHash = $0.byTokenHash.filter { $0.value.deviceID != deviceID }
            if $0.revoked.count >= capacity { $0.revoked.removeAll() }
            $0.revoked.insert(deviceID)
        }
    }
}

extension StoreRefusal {
    var apiError: APIError {
        switch self {
        case .gameNotFound: APIError(.notFound, "the game no longer exists")
        case .notParticipant: APIError(.forbidden, "you are not a player in this game")
        case .revoked: APIError(.readOnly, "you were removed from this game; it takes no more input from you")
        case .busy: APIError(.rateLimited, "the server is busy saving other moves; retry after 1 s", retryAfterSeconds: 1)
        case .notPlayedWith: APIError(.invalid, "a Decision's key is an account you have played a game with")
        case let .tooManyDecisions(maximum):
            APIError(.limitExceeded, "an account keeps at most \(maximum) Decisions; clear some (delete) or change one you have")
        case let .tooManyRecords(kind, maximum):
            APIError(
                .limitExceeded, "this game keeps at most \(maximum) \(kind == .message ? "chat messages" : "\(kind.rawValue)s"), and holds as many")
        }
    }
}
