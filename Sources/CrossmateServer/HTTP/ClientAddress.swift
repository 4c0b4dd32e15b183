import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Who a request comes from, for the limits kept per address (new accounts, device links,
/// invitation previews). Behind a reverse proxy every connection comes from the proxy, so one
/// address would share one limit among everyone; a proxy this server was told to trust
/// (`--trusted-proxy`) says whom it serves in `X-Forwarded-For`. A header from any other peer
/// is never believed: anyone can write one.
struct ClientAddress: Sendable {
    /// Addresses of proxies whose `X-Forwarded-For` is believed (`ServerConfiguration.trustedProxies`).
    let trusted: Set<String>

    /// The connection's peer; when that is a trusted proxy, the last address in the request's
    /// `X-Forwarded-For` that is not itself a trusted proxy (proxies append what they saw, so
    /// the entries before it are whatever the client sent).
    func of(_ request: Request, context: CrossmateRequestContext) -> String {
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        return Self.resolve(peer: peer, forwardedFor: request.headers[values: .xForwardedFor], trusted: trusted)
    }

    static func resolve(peer: String, forwardedFor: [String], trusted: Set<String>) -> String {
        guard trusted.contains(peer) else { return peer }
        // Bounded: a header list is already bounded by the HTTP limits; at most 32 hops are read.
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.suffix(32).map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() where !hop.isEmpty && !trusted.contains(hop) {
            // What is kept in a limiter's table is at most an address's length.
            return String(hop.prefix(64))
        }
        return peer
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
}
