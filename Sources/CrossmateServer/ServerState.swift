import CrossmateProtocol
import CrossmateStore
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
    /// Devices by token hash. Tokens are never reassigned, so an entry cannot go stale.
    let devices = DeviceCache()
    let metrics: ServerMetrics
    let logger: Logger

    init(configuration: ServerConfiguration, store: Store, hub: SocketHub, fanout: any Fanout, metrics: ServerMetrics, logger: Logger) {
        self.configuration = configuration
        self.store = store
        directory = GameDirectory(store: store, snapshotInterval: configuration.snapshotInterval)
        self.hub = hub
        self.fanout = fanout
        limiter = RateLimiter(burst: configuration.rateLimitBurst, perSecond: configuration.rateLimitPerSecond)
        self.metrics = metrics
        self.logger = logger
    }

    func now() -> Int64 { configuration.clock() }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// Reads and decodes a JSON body of at most `limit` bytes, with errors a client can act on.
    func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw APIError(.limitExceeded, "the request body is larger than \(limit / 1024) KB")
        }
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

    /// A JSON response.
    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The game and the caller's participation, or the error that ends the request.
    func access(_ gameID: String, for device: StoredDevice, write: Bool) async throws -> (StoredGame, StoredParticipant) {
        guard let (game, found) = try await store.access(gameID: gameID, authorID: device.authorID) else {
            throw APIError(.notFound, "there is no game \(gameID)")
        }
        guard let participant = found else {
            throw APIError(.forbidden, "you are not a player in game \(gameID); ask its owner for an invitation link")
        }
        if write, participant.revoked {
            throw APIError(.readOnly, "you were removed from game \(gameID); it stays readable but takes no more input")
        }
        return (game, participant)
    }

    /// A record that is not a move (a participant, a seal) was stored at `sequence`: the game's
    /// projection steps over it (so the next write does not wait for it) and devices are poked.
    func recordStored(game gameID: String, sequence: Int64) async {
        await directory.cached(gameID)?.skip(past: sequence)
        await fanout.publish(.poke(game: gameID, sequence: sequence))
    }
}

/// A bounded memory of token hashes already looked up.
final class DeviceCache: Sendable {
    private let entries = Mutex<[String: StoredDevice]>([:])
    private let capacity = 100_000

    func device(tokenHash: String, store: Store) async throws -> StoredDevice? {
        if let cached = entries.withLock({ $0[tokenHash] }) { return cached }
        guard let device = try await store.device(tokenHash: tokenHash) else { return nil }
        entries.withLock {
            if $0.count >= capacity { $0.removeAll(keepingCapacity: true) }
            $0[tokenHash] = device
        }
        return device
    }
}

extension StoreRefusal {
    var apiError: APIError {
        switch self {
        case .gameNotFound: APIError(.notFound, "the game no longer exists")
        case .notParticipant: APIError(.forbidden, "you are not a player in this game")
        case .revoked: APIError(.readOnly, "you were removed from this game; it takes no more input from you")
        }
    }
}
