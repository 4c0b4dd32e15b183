import CrossmateStore
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The per-request context: Hummingbird's core storage, the WebSocket handler slot, and the
/// device the bearer token belongs to once `DeviceAuthenticator` has run.
public struct CrossmateRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    public var device: StoredDevice?
    /// Why a WebSocket upgrade was refused, told on the socket itself (see `SocketAuthenticator`).
    var socketRefusal: APIError?
    /// The connection, which a WebSocket writes its frames to directly.
    let channel: any Channel

    public init(source: Source) {
        coreContext = .init(source: source)
        channel = source.channel
        webSocket = .init()
        device = nil
        socketRefusal = nil
    }

    /// Answers as every client has read them: slashes unescaped (a path in an invitation reads
    /// as one), keys in the types' order.
    public var responseEncoder: JSONEncoder { JSONBody.encoder }

    /// Batches may be up to 2 MB; the default limit is smaller.
    public var maxUploadSize: Int { 8 * 1024 * 1024 }

    /// The authenticated device, or `unauthorized`.
    func requireDevice() throws -> StoredDevice {
        guard let device else { throw APIError(.unauthorized, "this request needs a device token: send \"Authorization: Bearer TOKEN\"") }
        return device
    }
}

/// The parameters the route table's patterns name (`:game` and the rest), spelled once: a route
/// reads one by its case, never by a string of its own.
enum RouteParameter: String, CaseIterable {
    case game, author, device, link, name, token
}

extension CrossmateRequestContext {
    /// The value of the route's `parameter` (the request was routed by a pattern that names it).
    func parameter(_ parameter: RouteParameter) throws -> String {
        try parameters.require(parameter.rawValue)
    }
}
