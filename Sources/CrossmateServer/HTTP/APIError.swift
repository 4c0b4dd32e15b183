import CrossmateProtocol
import Foundation
import Hummingbird

/// An error answered as `{"error": code, "message": text}` with the matching HTTP status.
struct APIError: HTTPResponseError {
    var body: ErrorBody
    var retryAfterSeconds: Int?

    init(_ code: ErrorCode, _ message: String, serverTime: Int64? = nil, retryAfterSeconds: Int? = nil) {
        body = ErrorBody(code, message, serverTime: serverTime)
        self.retryAfterSeconds = retryAfterSeconds
    }

    init(_ body: ErrorBody) {
        self.body = body
    }

    var status: HTTPResponse.Status {
        switch body.error {
        case .unauthorized: .unauthorized
        case .forbidden, .readOnly: .forbidden
        case .notFound: .notFound
        case .limitExceeded: .contentTooLarge
        case .rateLimited: .tooManyRequests
        case .clockSkew: .conflict
        case .invalid: .badRequest
        case .gone: .gone
        case .serverError: .internalServerError
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfterSeconds { headers[.retryAfter] = String(retryAfterSeconds) }
        let data = try JSONEncoder().encode(body)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
