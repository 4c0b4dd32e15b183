import CrossmateProtocol
import CrossmateStore
import Foundation
import Hummingbird

/// JSON bodies in and out of the HTTP routes: one encoder for every answer, and one decoder with
/// a size limit and errors a client can act on.
enum JSONBody {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// Reads and decodes a JSON body of at most the type's `maximumBodyBytes`, with errors a
    /// client can act on. With `empty`, a request without a body (the body is optional) means
    /// that value.
    static func decode<T: BoundedBody>(_ type: T.Type, from request: Request, empty: T? = nil) async throws -> T {
        let limit = T.maximumBodyBytes
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
        case .signedOut: APIError(.unauthorized, "this device was signed out while the request arrived; sign in again")
        case let .tooManyRecords(kind, maximum):
            APIError(
                .limitExceeded, "this game keeps at most \(maximum) \(kind == .message ? "chat messages" : "\(kind.rawValue)s"), and holds as many")
        }
    }
}
