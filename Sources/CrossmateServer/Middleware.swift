import CrossmateProtocol
import CrossmateStore
import Hummingbird

/// Finds the device behind `Authorization: Bearer TOKEN` (or `?token=` for WebSockets, which
/// browsers cannot give headers), applies its rate limit, and counts the request.
struct DeviceAuthenticator: RouterMiddleware {
    typealias Context = CrossmateRequestContext
    let state: ServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        state.metrics.requests.increment()
        var context = context
        let header = request.headers[.authorization]
        let token: String?
        if let header, header.lowercased().hasPrefix("bearer ") {
            token = String(header.dropFirst("bearer ".count)).trimmingSpaces
        } else if header != nil {
            throw APIError(.unauthorized, "the Authorization header must be \"Bearer TOKEN\"")
        } else {
            token = request.uri.queryParameters["token"].map(String.init)
        }
        if let token {
            guard token.count <= 200, let device = try await state.devices.device(tokenHash: Secrets.hash(token), store: state.store) else {
                throw APIError(.unauthorized, "the device token is not valid; sign in again or link this device anew")
            }
            if let wait = state.limiter.take(device.deviceID, now: state.now()) {
                throw APIError(.rateLimited, "too many requests from this device; retry after \(wait) s", retryAfterSeconds: wait)
            }
            context.device = device
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
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
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
    let state: ServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError {
            let code: ErrorCode = switch error.status.code {
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
        } catch {
            state.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            throw APIError(.serverError, "the server could not complete this request; it has been logged")
        }
    }
}
