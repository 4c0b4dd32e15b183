import CrossmateStore
import Foundation

/// Where a push may go. An endpoint's host is resolved here, by the system's resolver (the one
/// that would have connected), and every address it gives is checked as a number, so no
/// spelling of a host (`0177.0.0.1`, `0x7f.1`, `127.1`, `[::ffff:7f00:1]`, a name that
/// resolves to loopback) reaches this server's own network. The push then connects to the
/// address that was checked, not to the name resolved again.
enum PushAddress {
    /// An address an endpoint's host resolved to, in numbers and as text for connecting.
    struct Resolved: Sendable, Equatable {
        /// The endpoint's host, as its URL names it.
        var host: String
        var bytes: [UInt8]
        var text: String
    }

    /// Why no push may go to `host`'s addresses, or nil; the first allowed address otherwise.
    enum Verdict: Sendable, Equatable {
        case allowed(Resolved)
        case refused(String)
        case unresolved(String)
    }

    /// Threads of their own for the resolver, which blocks (never the task pool's).
    static let lookups = DatabaseThreads(name: "push-resolve", count: 2)

    /// Where a push to `endpoint` may go: its host resolved and checked (`check(host:)`); plain
    /// http only to loopback, and only with `allowLoopback` (tests' stand-in push services). The
    /// one check a subscription and every push go through.
    static func check(endpoint: String, allowLoopback: Bool) async -> Verdict {
        guard let url = URL(string: endpoint), let host = url.host, let scheme = url.scheme?.lowercased() else {
            return .refused("endpoint is not a URL")
        }
        let verdict = await check(host: host, port: url.port ?? (scheme == "https" ? 443 : 80), allowLoopback: allowLoopback && scheme == "http")
        if case let .allowed(address) = verdict, scheme == "http", !isLoopback(address.bytes) { return .refused("endpoint must be https") }
        return verdict
    }

    /// Resolves `host` and checks every address: refused when any is not public (with
    /// `allowLoopback`, loopback is allowed too).
    static func check(host: String, port: Int, allowLoopback: Bool) async -> Verdict {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let found: Result<[[UInt8]], LookupFailure> = await withTaskExecutorPreference(lookups) { resolve(bare, port: port) }
        switch found {
        case let .failure(failure): return .unresolved(failure.description)
        case let .success(addresses):
            guard let first = addresses.first else { return .unresolved("\(host) has no address") }
            for address in addresses where !isPublic(address) && !(allowLoopback && isLoopback(address)) {
                return .refused("endpoint must be a public push service; \(host) is \(text(address))")
            }
            return .allowed(Resolved(host: host, bytes: first, text: text(first)))
        }
    }

    /// A push that may not go where its endpoint points.
    struct Refused: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    struct LookupFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// The addresses `host` resolves to (IPv4 as 4 bytes, IPv6 as 16), by getaddrinfo.
    static func resolve(_ host: String, port: Int) -> Result<[[UInt8]], LookupFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else { return .failure(LookupFailure(description: "\(host) does not resolve (\(String(cString: gai_strerror(status))))")) }
        defer { freeaddrinfo(list) }
        var addresses: [[UInt8]] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch Int32(current.pointee.ai_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        withUnsafeBytes(of: v4.pointee.sin_addr) { addresses.append(Array($0)) }
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        withUnsafeBytes(of: v6.pointee.sin6_addr) { addresses.append(Array($0)) }
                    }
                default: break
                }
            }
            entry = current.pointee.ai_next
        }
        return .success(addresses)
    }

    /// An address as text (`inet_ntop`): `a.b.c.d` or IPv6's shortest form.
    static func text(_ address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.count == 4 ? AF_INET : AF_INET6
        return address.withUnsafeBytes { bytes in
            guard inet_ntop(family, bytes.baseAddress, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    static func isLoopback(_ address: [UInt8]) -> Bool {
        if address.count == 4 { return address[0] == 127 }
        if let v4 = embeddedIPv4(address) { return v4[0] == 127 }
        return address == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// Whether a push may go to `address`: a public unicast address (RFC 6890's special-purpose
    /// ranges refused: this host, private, shared, loopback, link-local, documentation,
    /// benchmarking, multicast, reserved; for IPv6 only global unicast, and the IPv4 inside a
    /// mapped, NAT64 or 6to4 address checked as IPv4).
    static func isPublic(_ address: [UInt8]) -> Bool {
        if address.count == 4 { return isPublicIPv4(address) }
        guard address.count == 16 else { return false }
        if let v4 = embeddedIPv4(address) { return isPublicIPv4(v4) }
        // Global unicast is 2000::/3; everything else (::, ::1, ::/96, fc00::/7, fe80::/10,
        // ff00::/8, 100::/64, 64:ff9b:1::/48 …) is not a push service.
        guard address[0] & 0xE0 == 0x20 else { return false }
        let first = UInt16(address[0]) << 8 | UInt16(address[1])
        let second = UInt16(address[2]) << 8 | UInt16(address[3])
        if first == 0x2001 && second < 0x0200 { return false }  // 2001::/23: IETF protocol assignments (Teredo, ORCHID …)
        if first == 0x2001 && second == 0x0db8 { return false }  // 2001:db8::/32: documentation
        if first == 0x3fff && second < 0x1000 { return false }  // 3fff::/20: documentation
        return true
    }

    /// The IPv4 address inside an IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) or 6to4
    /// (2002::/16) address.
    static func embeddedIPv4(_ address: [UInt8]) -> [UInt8]? {
        guard address.count == 16 else { return nil }
        if address[0..<10].allSatisfy({ $0 == 0 }) && address[10] == 0xFF && address[11] == 0xFF { return Array(address[12..<16]) }
        if address[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return Array(address[12..<16]) }
        if address[0] == 0x20 && address[1] == 0x02 { return Array(address[2..<6]) }
        return nil
    }

    static func isPublicIPv4(_ octets: [UInt8]) -> Bool {
        let (a, b, c) = (octets[0], octets[1], octets[2])
        switch a {
        case 0, 10, 127: return false  // this network, private, loopback
        case 100 where (64...127).contains(b): return false  // shared address space (carrier NAT)
        case 169 where b == 254: return false  // link-local (cloud metadata services)
        case 172 where (16...31).contains(b): return false  // private
        case 192 where b == 168: return false  // private
        case 192 where b == 0 && (c == 0 || c == 2): return false  // protocol assignments, documentation
        case 192 where b == 88 && c == 99: return false  // 6to4 relay anycast
        case 198 where b == 18 || b == 19: return false  // benchmarking
        case 198 where b == 51 && c == 100: return false  // documentation
        case 203 where b == 0 && c == 113: return false  // documentation
        case 224...255: return false  // multicast, reserved, broadcast
        default: return true
        }
    }
}
