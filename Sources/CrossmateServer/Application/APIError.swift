import CrossmateProtocol

/// A refusal, as the application decides it: a code, a sentence the player can act on, and
/// when to retry (a rate limit) or the server's time (a clock skew). The HTTP layer answers it
/// as `{"error": code, "message": text}` with the matching status (`APIError+HTTP.swift`); the
/// sockets send its body.
struct APIError: Error {
    var body: ErrorBody
    var retryAfterSeconds: Int?

    init(_ code: ErrorCode, _ message: String, serverTime: Int64? = nil, retryAfterSeconds: Int? = nil) {
        body = ErrorBody(code, message, serverTime: serverTime)
        self.retryAfterSeconds = retryAfterSeconds
    }

    init(_ body: ErrorBody) {
        self.body = body
    }
}
