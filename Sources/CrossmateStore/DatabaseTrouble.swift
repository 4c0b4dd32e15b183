import GRDB
import NIOCore
import PostgresNIO

/// Why the database cannot be used, in a sentence an operator can act on: what PostgreSQL said
/// (never PostgresNIO's "Generic description to prevent accidental leakage"), or what the
/// connection met, and what to check.
public struct DatabaseTrouble: Error, CustomStringConvertible {
    public var sentence: String
    public var description: String { sentence }

    public init(sentence: String) {
        self.sentence = sentence
    }

    /// `error` said as a sentence (at most 300 characters: it goes into logs and `/healthz`).
    public static func sentence(for error: any Error) -> String {
        String(words(for: error).prefix(300))
    }

    private static func words(for error: any Error) -> String {
        switch error {
        case let trouble as DatabaseTrouble: return trouble.sentence
        case let unresponsive as DatabaseUnresponsive: return unresponsive.description + "; it may be overloaded or its network slow"
        case let url as PostgresURLError: return url.description
        case let psql as PSQLError: return words(for: psql)
        case let sqlite as DatabaseError: return "SQLite: \(sqlite.message ?? "error \(sqlite.resultCode)")"
        default:
            let text = String(describing: error)
            if text.contains("connectionCreationCircuitBreakerTripped") {
                return "PostgreSQL could not be reached for a while; the pool is waiting before it tries again"
            }
            if text.contains("poolClosed") || text.contains("shutdown") { return "the database's connections are closing (the server is stopping)" }
            return text
        }
    }

    private static func words(for error: PSQLError) -> String {
        if let info = error.serverInfo {
            let state = info[.sqlState] ?? ""
            let message = info[.message] ?? "an error"
            switch state {
            case "3D000": return "PostgreSQL says \(message): create it (createdb) or correct the name in CROSSMATE_POSTGRES_URL"
            case "28P01", "28000":
                return "PostgreSQL refused the login (\(message)): check the user and password in CROSSMATE_POSTGRES_URL and pg_hba.conf"
            case "57P01", "57P02", "57P03": return "PostgreSQL is shutting down or starting up (\(message)); it is tried again"
            case "53300": return "PostgreSQL has no connection to spare (\(message)); raise max_connections or run fewer instances"
            default: return "PostgreSQL says: \(message) (SQLSTATE \(state))"
            }
        }
        switch error.code {
        case .connectionError:
            if let underlying = error.underlying {
                let reason = String(describing: underlying)
                if reason.contains("refused") || reason.contains("ECONNREFUSED") || reason.contains("error 111") {
                    return "PostgreSQL refuses connections at that address: is it running, and is CROSSMATE_POSTGRES_URL's host and port its own?"
                }
                if reason.lowercased().contains("timeout") || reason.contains("timed out") {
                    return "PostgreSQL did not answer at that address in time: is it PostgreSQL, is it running, and is the network to it up?"
                }
                if reason.contains("No such file") || reason.contains("ENOENT") {
                    return "there is no PostgreSQL socket at that path: is PostgreSQL running, and is ?host= its socket directory?"
                }
                return "could not connect to PostgreSQL: \(reason)"
            }
            return "could not connect to PostgreSQL"
        case .serverClosedConnection, .uncleanShutdown: return "PostgreSQL closed the connection (restarting or stopped?); it is tried again"
        case .sslUnsupported: return "PostgreSQL does not offer TLS: drop sslmode from CROSSMATE_POSTGRES_URL or turn on ssl in postgresql.conf"
        case .failedToAddSSLHandler: return "TLS to PostgreSQL could not be set up: check sslmode and sslrootcert in CROSSMATE_POSTGRES_URL"
        case .authMechanismRequiresPassword: return "PostgreSQL asks for a password and CROSSMATE_POSTGRES_URL has none"
        case .unsupportedAuthMechanism: return "PostgreSQL asks for a login method Crossmate does not speak; use scram-sha-256, md5 or trust"
        case .poolClosed: return "the database's connections are closing (the server is stopping)"
        default: return "PostgreSQL: \(error.code)"
        }
    }
}
