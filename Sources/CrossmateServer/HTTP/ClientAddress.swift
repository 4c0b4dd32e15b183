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
    /// the entries before it are whatever the client sent). An IPv6 client is counted by its
    /// /64 (`limitKey`).
    func of(_ request: Request, context: CrossmateRequestContext) -> String {
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        return Self.limitKey(Self.resolve(peer: peer, forwardedFor: request.headers[values: .xForwardedFor], trusted: trusted))
    }

    /// What a limit per address counts: an IPv4 address itself; an IPv6 address by its /64,
    /// the block one subscriber is handed (a client has 2^64 addresses to rotate through); an
    /// IPv4-mapped IPv6 address as its IPv4 address. Anything else as it is.
    static func limitKey(_ address: String) -> String {
        var bare = Substring(address)
        if bare.hasPrefix("["), let close = bare.firstIndex(of: "]") { bare = bare[bare.index(after: bare.startIndex)..<close] }
        if let zone = bare.firstIndex(of: "%") { bare = bare[..<zone] }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, String(bare), &v6) == 1 else { return address }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
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
