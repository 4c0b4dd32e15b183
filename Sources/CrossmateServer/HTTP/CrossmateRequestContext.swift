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
