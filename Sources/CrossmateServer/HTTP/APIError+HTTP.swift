import CrossmateProtocol
import Foundation
import Hummingbird

/// A refusal answered over HTTP: its body as JSON, its code as the status, and `Retry-After`
/// when it has one.
extension APIError: HTTPResponseError {
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
