import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import Hummingbird
import Logging
import Synchronization

/// Counts every request answered by its route's pattern (`/v1/games/{game}`, never the path a
/// client chose), its method and its status class, through `ServerMetrics.recordRequest`. The
/// outermost middleware, so it sees the answer the client gets, errors turned into JSON included.
struct RequestMetrics: RouterMiddleware {
    typealias Context = CrossmateRequestContext
    let metrics: ServerMetrics
    /// Methods counted by name; any other a client sends is counted as "other" (the label's
    /// values are bounded whatever clients send).
    static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let method = Self.methods.contains(request.method.rawValue) ? request.method.rawValue : "other"
        do {
            let response = try await next(request, context)
            metrics.recordRequest(route: context.endpointPath ?? "unmatched", method: method, status: response.status.code)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.recordRequest(route: context.endpointPath ?? "unmatched", method: method, status: status)
            throw error
        }
    }
}

/// Finds the device behind `Authorization: Bearer TOKEN`, applies its rate limit, and counts
/// the request. The token is taken from that header only: a token in a URL ends up in logs and
/// proxies (a browser's WebSocket uses a socket ticket instead, see `SocketAuthenticator`).
struct DeviceAuthenticator: RouterMiddleware {
    typealias Context = CrossmateRequestContext
    let authenticator: Authenticator
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        metrics.requests.increment()
        var context = context
        if let device = try await authenticator.authenticate(request) {
            try authenticator.takeRequestToken(device)
            context.device = device
        }
        return try await next(request, context)
    }
}

/// Authenticates a WebSocket upgrade by its Authorization header (native clients) or a
/// single-use `?ticket=` (browsers). It never throws: a refused upgrade could only be a bare
/// 400, so the refusal is kept in the context and the socket, once open, carries the error
/// (`{"type":"error",…}`) and closes with 4401 (unauthorized) or 4429 (rate limited).
struct SocketAuthenticator: RouterMiddleware {
    typealias Context = CrossmateRequestContext
    let authenticator: Authenticator
    let metrics: ServerMetrics
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        metrics.requests.increment()
        var context = context
        do {
            var found = try await authenticator.authenticate(request)
            if found == nil, let ticket = request.uri.queryParameters["ticket"] {
                guard ticket.utf8.count <= 200,
                    let device = try await authenticator.store.useSocketTicket(
                        ticketHash: Secrets.hash(String(ticket)), now: authenticator.clock())
                else {
                    throw APIError(.unauthorized, "the socket ticket is unknown, used or expired; ask for a new one (POST /v1/socket-tickets)")
                }
                found = device
            }
            guard let device = found else {
                throw APIError(.unauthorized, "a socket needs \"Authorization: Bearer TOKEN\" or ?ticket= from POST /v1/socket-tickets")
            }
            try authenticator.takeRequestToken(device)
            context.device = device
        } catch let error as APIError {
            context.socketRefusal = error
        } catch {
            logger.error("socket authentication failed", metadata: ["error": "\(error)"])
            context.socketRefusal = APIError(.serverError, "the server could not check this socket's credentials; it has been logged")
        }
        return try await next(request, context)
    }
}

extension StringProtocol {
    /// Without leading and trailing white space (scalar by scalar: this runs on every request's
    /// token, and walking Characters backwards was a measurable share of a request).
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        var trimmed = String.UnicodeScalarView()
        trimmed.append(contentsOf: scalars[first...last])
        return String(trimmed)
    }
}

/// Every failure leaves as `{"error": code, "message": text}`: Hummingbird's own errors (no such
/// route, bad parameters) are translated, and unexpected ones are logged and answered as
/// `serverError` without internals.
struct JSONErrors: RouterMiddleware {
    typealias Context = CrossmateRequestContext
    let logger: Logger
    let outage = OutageLog()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError {
            let code: ErrorCode =
                switch error.status.code {
                case 401: .unauthorized
                case 403: .forbidden
                case 404: .notFound
                case 413: .limitExceeded
                case 429: .rateLimited
                case 500...: .serverError
                default: .invalid
                }
            let message = error.status == .notFound ? "there is no \(request.method) \(request.uri.path)" : (error.body ?? error.status.reasonPhrase)
            throw APIError(code, message)
        } catch let error where isDatabaseUnreachable(error) {
            // The database is away (restarting, unreachable): the client retries; the log hears
            // of it once a minute, not once a request.
            outage.report(path: request.uri.path, error: error, logger: logger)
            throw APIError(.rateLimited, "the server cannot reach its database just now; retry in a few seconds", retryAfterSeconds: 2)
        } catch let error as CorruptRecord {
            logger.error("stored record unreadable", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            throw APIError(
                .serverError, "game \(TextRule.quote(error.gameID)) cannot be read: its stored \(error.what) is damaged (logged for the operator)")
        } catch {
            logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            throw APIError(.serverError, "the server could not complete this request; it has been logged")
        }
    }
}

/// Requests refused because the database was away, told to the log at most once a minute with
/// how many there were.
final class OutageLog: Sendable {
    private struct State {
        var lastLogged: ContinuousClock.Instant?
        var refused = 0
    }

    private let state = Mutex(State())

    func report(path: String, error: any Error, logger: Logger) {
        let refused = state.withLock { state -> Int? in
            state.refused += 1
            let now = ContinuousClock.now
            guard state.lastLogged.map({ now - $0 >= .seconds(60) }) ?? true else { return nil }
            state.lastLogged = now
            defer { state.refused = 0 }
            return state.refused
        }
        guard let refused else { return }
        logger.error(
            "the database cannot be reached; requests are refused with retry-after until it answers",
            metadata: ["refused": "\(refused)", "path": "\(path)", "error": "\(String(describing: error).prefix(300))"])
    }
}
