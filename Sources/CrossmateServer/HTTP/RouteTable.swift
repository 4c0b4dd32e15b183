import CrossmateProtocol
import HTTPTypes
import Hummingbird

extension RouterMethods {
    /// Registers `route` (a row of the one route table, `APIRoute`) with `handler`.
    @discardableResult func on(_ route: APIRoute, use handler: @Sendable @escaping (Request, Context) async throws -> some ResponseGenerator) -> Self
    {
        let method: HTTPRequest.Method =
            switch route.method {
            case .get: .get
            case .post: .post
            case .put: .put
            case .delete: .delete
            }
        return on(RouterPath(route.pattern), method: method, use: handler)
    }
}
