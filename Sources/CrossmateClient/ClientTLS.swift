import Foundation
import NIOSSL

/// The certificates a device trusts for `https://` and `wss://` servers: the system's, and the
/// authority in `CROSSMATE_CA_FILE` (a PEM file) when it is set — for a server behind a proxy
/// with a private authority (Caddy's `tls internal`, a company's own CA).
public enum ClientTLS {
    /// The PEM file named by `CROSSMATE_CA_FILE`, or nil.
    public static var authorityFile: String? {
        ProcessInfo.processInfo.environment["CROSSMATE_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A client TLS configuration that trusts the system's roots and the extra authority.
    public static var configuration: TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let authorityFile { tls.additionalTrustRoots = [.file(authorityFile)] }
        return tls
    }
}
