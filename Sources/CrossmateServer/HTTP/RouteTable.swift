import CrossmateProtocol
import HTTPTypes
import Hummingbird

/// A request's JSON body as its endpoint types it, read when the handler asks (after its own
/// checks: a refused request's body is never read), at most its type's `maximumBodyBytes`.
struct Incoming<Body: BoundedBody>: Sendable {
    let request: Request

    /// The body; with `empty`, a request without one means that value.
    func decode(empty: Body? = nil) async throws -> Body {
        try await JSONBody.decode(Body.self, from: request, empty: empty)
    }
}

extension RouterMethods {
    /// Registers an endpoint whose handler reads the body the endpoint takes and returns the
    /// answer it gives: the compiler holds the handler to the types the client uses.
    @discardableResult func on<Body: BoundedBody, Answer: ResponseGenerator>(
        _ endpoint: Endpoint<Body, Answer>, use handler: @Sendable @escaping (Request, Context, Incoming<Body>) async throws -> Answer
    ) -> Self {
        on(endpoint.route, answeredWith: { request, context in try await handler(request, context, Incoming(request: request)) })
    }

    /// As above, answered with a status of its own (201 Created).
    @discardableResult func on<Body: BoundedBody, Answer: ResponseGenerator>(
        _ endpoint: Endpoint<Body, Answer>,
        use handler: @Sendable @escaping (Request, Context, Incoming<Body>) async throws -> EditedResponse<Answer>
    ) -> Self {
        on(endpoint.route, answeredWith: { request, context in try await handler(request, context, Incoming(request: request)) })
    }

    /// Registers an endpoint that takes no body.
    @discardableResult func on<Answer: ResponseGenerator>(
        _ endpoint: Endpoint<NoBody, Answer>, use handler: @Sendable @escaping (Request, Context) async throws -> Answer
    ) -> Self {
        on(endpoint.route, answeredWith: handler)
    }

    /// As above, answered with a status of its own (201 Created).
    @discardableResult func on<Answer: ResponseGenerator>(
        _ endpoint: Endpoint<NoBody, Answer>, use handler: @Sendable @escaping (Request, Context) async throws -> EditedResponse<Answer>
    ) -> Self {
        on(endpoint.route, answeredWith: handler)
    }

    /// Registers a row of the route table without an endpoint: a route answered with a file or
    /// with bytes spliced from stored records, whose answer is no one Swift type.
    @discardableResult func on(
        _ route: APIRoute, answeredWith handler: @Sendable @escaping (Request, Context) async throws -> some ResponseGenerator
    ) -> Self {
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
