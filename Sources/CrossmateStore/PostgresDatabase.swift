import Logging
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// PostgreSQL, for several server instances sharing one database. Connections come from a
/// PostgresNIO pool; `run()` must be running (the server adds the client as a service).
public final class PostgresSQLDatabase: SQLDatabase {
    public let client: PostgresClient
    public let configuration: PostgresClient.Configuration
    /// The same server, credentials and TLS for a connection of its own (LISTEN, `preflight`).
    public let connectionConfiguration: PostgresConnection.Configuration
    private let logger: Logger

    public init(url: String, logger: Logger) throws {
        (configuration, connectionConfiguration) = try Self.configurations(from: url)
        // The pool says "Connection creation failed" at info for every try (several a second
        // while the database is away); the outage is told once by the health check instead.
        var quiet = logger
        if quiet.logLevel > .debug { quiet.logLevel = .warning }
        client = PostgresClient(configuration: configuration, eventLoopGroup: Self.loops, backgroundLogger: quiet)
        self.logger = logger
    }

    /// How long the check at start-up waits for PostgreSQL (`preflight`).
    public static let preflightDeadline = Duration.seconds(5)

    /// Opens one connection and asks the database for its version, within `preflightDeadline`:
    /// a wrong address, user, password or database name is one `DatabaseTrouble` sentence at
    /// start-up, rather than a pool that retries for a minute. Returns the server's version.
    public func preflight(within deadline: Duration = preflightDeadline) async throws -> String {
        let (configuration, logger, place) = (connectionConfiguration, logger, place)
        let answer = Answered<String>()
        let work = Task {
            do {
                let connection = try await PostgresConnection.connect(on: Self.loops.next(), configuration: configuration, id: 0, logger: logger)
                defer { Task { try? await connection.close() } }
                var version = ""
                for try await found in try await connection.query("SHOW server_version", logger: logger).decode(String.self) { version = found }
                answer.resume(.success(version))
            } catch {
                answer.resume(.failure(error))
            }
        }
        // Answered by the work, the deadline or a stop, whichever comes first: a server that takes
        // the connection and never speaks holds neither the start nor a SIGTERM.
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.set(continuation)
                answer.watch(
                    Task {
                        try await Task.sleep(for: deadline)
                        answer.resume(
                            .failure(
                                DatabaseTrouble(
                                    sentence: "PostgreSQL at \(place) did not answer within \(deadline); is that its address, and is it running?"
                                )))
                        work.cancel()
                    })
            }
        } onCancel: {
            answer.resume(.failure(CancellationError()))
            work.cancel()
        }
    }

    public func whyUnreachable(within deadline: Duration) async -> String? {
        do {
            _ = try await preflight(within: deadline)
            return nil
        } catch {
            return DatabaseTrouble.sentence(for: error)
        }
    }

    /// Where the database is, for messages: host and port or socket, and the database's name.
    public var place: String {
        let server = configuration.unixSocketPath ?? "\(configuration.host ?? "localhost"):\(configuration.port ?? 5432)"
        return "\(server), database \"\(configuration.database ?? configuration.username)\""
    }

    /// The database's connections have an event loop of their own. On the server's one event
    /// loop (`crossmate serve` runs one a core pair), each query's answer waited behind the
    /// sockets' frames that loop was busy with: at 1,000 devices the p99 from keystroke to peer
    /// was 82–105 ms sharing the loop and 19–25 ms with one of its own (alternating runs, this
    /// 2-core VM, BENCHMARKS.md). One thread for the process's lifetime, shared by its clients.
    static let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    public var forUpdate: String { " FOR UPDATE" }
    public var migrationLock: String? { "SELECT pg_advisory_xact_lock(7310462)" }

    /// Parses `postgres://user:password@host:port/database?sslmode=…` (or `?host=/socket/dir`
    /// for a Unix socket): the pool's configuration and a single connection's.
    public static func configurations(from url: String) throws -> (PostgresClient.Configuration, PostgresConnection.Configuration) {
        guard let components = URLComponentsLite(url), ["postgres", "postgresql"].contains(components.scheme) else {
            throw PostgresURLError(url: url)
        }
        let user = components.user ?? "postgres"
        var pool: PostgresClient.Configuration
        let single: PostgresConnection.Configuration
        if let socketDirectory = components.query["host"], socketDirectory.hasPrefix("/") {
            let path = "\(socketDirectory)/.s.PGSQL.\(components.port ?? 5432)"
            pool = .init(unixSocketPath: path, username: user, password: components.password, database: components.database)
            single = .init(unixSocketPath: path, username: user, password: components.password, database: components.database)
        } else {
            let (host, port) = (components.host ?? "localhost", components.port ?? 5432)
            let tls = try tlsConfiguration(components.query)
            let context = try tls.map { try NIOSSLContext(configuration: $0) }
            pool = .init(
                host: host, port: port, username: user, password: components.password, database: components.database,
                tls: tls.map { .require($0) } ?? .disable)
            single = .init(
                host: host, port: port, username: user, password: components.password, database: components.database,
                tls: context.map { .require($0) } ?? .disable)
        }
        pool.options.maximumConnections = 16
        // A connection that cannot be made in 3 s is given up (and tried again): a stop
        // (SIGTERM) while PostgreSQL is away is not held by a connect waiting its default 10 s.
        pool.options.connectTimeout = .seconds(3)
        var connection = single
        connection.options.connectTimeout = .seconds(3)
        return (pool, connection)
    }

    /// TLS as libpq's `sslmode` asks: `disable` (the default), `require` (encrypted, the
    /// certificate not checked), `verify-ca` or `verify-full` (checked against the system's
    /// authorities, or the file `sslrootcert` names; `verify-full` also checks the host name).
    static func tlsConfiguration(_ query: [String: String]) throws -> TLSConfiguration? {
        switch query["sslmode"] ?? "disable" {
        case "disable": return nil
        case "require":
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .none
            return configuration
        case let mode where mode == "verify-ca" || mode == "verify-full":
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = mode == "verify-full" ? .fullVerification : .noHostnameVerification
            if let file = query["sslrootcert"] {
                guard let roots = try? NIOSSLCertificate.fromPEMFile(file), !roots.isEmpty else {
                    throw PostgresURLError(reason: "sslrootcert \(file) is not a readable PEM file of certificates")
                }
                configuration.trustRoots = .certificates(roots)
            }
            return configuration
        case let mode:
            throw PostgresURLError(reason: "sslmode=\(mode) is not one Crossmate knows: use disable, require, verify-ca or verify-full")
        }
    }

    /// How long one transaction, quick read or notification may hold its connection. A
    /// connection can stop answering without closing (seen after `pg_ctl restart`: a BEGIN sent
    /// on a fresh connection was never answered, nor failed when the connection was closed, and
    /// the group commit waiting on it stopped every later move on that instance for good). Past
    /// this the connection is closed, the caller is answered with `DatabaseUnresponsive` (a
    /// device sends its moves again; a commit that did land is found a duplicate), and what was
    /// running on the connection is left behind. Moves commit in milliseconds even at 2,000
    /// devices: at 20 s, a player whose letter met such a connection waited 20 s after a
    /// restart (BENCHMARKS.md); at 5 s, 5.
    public static let connectionDeadline = Duration.seconds(5)
    /// The same for the history lane's reads (a finished game's whole history), which may be long.
    public static let historyDeadline = Duration.seconds(20)

    /// Runs `body` on a leased connection; after `deadline` without an answer, closes the
    /// connection and throws `DatabaseUnresponsive` whatever `body` is doing.
    private func withDeadline<T: Sendable>(
        _ what: String, deadline: Duration = connectionDeadline, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await client.withConnection { connection in
            let logger = logger
            let answer = Answered<T>()
            return try await withCheckedThrowingContinuation { continuation in
                answer.set(continuation)
                let work = Task {
                    do { answer.resume(.success(try await body(connection))) } catch { answer.resume(.failure(error)) }
                }
                answer.watch(
                    Task {
                        try await Task.sleep(for: deadline)
                        logger.error("a database connection did not answer for \(deadline); closing it", metadata: ["during": "\(what)"])
                        answer.resume(.failure(DatabaseUnresponsive(what: what, deadline: deadline)))
                        work.cancel()
                        try? await connection.close()
                    })
            }
        }
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        do {
            let logger = logger
            return try await withDeadline("a transaction") { connection in
                try await connection.withTransaction(logger: logger) { connection in
                    try await body(Connection(connection: connection, logger: logger))
                }
            }
        } catch let error as PostgresTransactionError {
            // The transaction was rolled back because the body threw: report the body's reason.
            if let reason = error.closureError, error.rollbackError == nil { throw reason }
            throw error
        }
    }

    /// A migration waits its turn behind other instances' (an advisory lock) as long as it must.
    public func unhurriedTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let logger = logger
        return try await client.withTransaction(logger: logger) { connection in
            try await body(Connection(connection: connection, logger: logger))
        }
    }

    /// PostgresNIO's calls never block a thread: both lanes share the connection pool.
    public func read<T: Sendable>(_ lane: ReadLane, _ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let logger = logger
        return try await withDeadline("a read", deadline: lane == .history ? Self.historyDeadline : Self.connectionDeadline) { connection in
            try await body(Connection(connection: connection, logger: logger))
        }
    }

    public func close() async throws {}

    /// Sends `payloads` as notifications on `channel`, in order, in one statement (and so one
    /// transaction) per sixteen.
    public func notify(channel: String, payloads: [String]) async throws {
        for start in stride(from: 0, to: payloads.count, by: 16) {
            let batch = payloads[start..<min(start + 16, payloads.count)]
            let calls = Array(repeating: "pg_notify(?, ?)", count: batch.count).joined(separator: ", ")
            let logger = logger
            try await withDeadline("a notification") { connection in
                try await Connection(connection: connection, logger: logger)
                    .execute("SELECT \(calls)", batch.flatMap { [SQLValue.text(channel), .text($0)] })
            }
        }
    }

    /// Rewrites `?` placeholders as `$1, $2, …`.
    static func numbered(_ sql: String) -> String {
        var out = ""
        var index = 0
        for character in sql {
            if character == "?" {
                index += 1
                out += "$\(index)"
            } else {
                out.append(character)
            }
        }
        return out
    }

    static func query(_ sql: String, _ values: [SQLValue]) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case let .integer(number): bindings.append(number)
            case let .text(text): bindings.append(text)
            case .null: bindings.appendNull()
            }
        }
        return PostgresQuery(unsafeSQL: numbered(sql), binds: bindings)
    }

    struct Connection: SQLConnection {
        let connection: PostgresConnection
        let logger: Logger

        func execute(_ sql: String, _ values: [SQLValue]) async throws {
            _ = try await connection.query(PostgresSQLDatabase.query(sql, values), logger: logger)
        }

        /// One statement: every statement but the last becomes a data-modifying WITH query of the
        /// last (which PostgreSQL runs to completion whether or not the last reads it).
        func executeAll(_ statements: [(sql: String, values: [SQLValue])]) async throws {
            guard let last = statements.last else { return }
            let queries = statements.dropLast().enumerated().map { "w\($0.offset) AS (\($0.element.sql))" }
            let sql = queries.isEmpty ? last.sql : "WITH \(queries.joined(separator: ", ")) \(last.sql)"
            try await execute(sql, statements.flatMap(\.values))
        }

        func query(_ sql: String, _ values: [SQLValue]) async throws -> [SQLRow] {
            var rows: [SQLRow] = []
            var columns: SQLColumns?
            for try await row in try await connection.query(PostgresSQLDatabase.query(sql, values), logger: logger) {
                var values: [SQLValue] = []
                var names: [String] = []
                for cell in row {
                    if columns == nil { names.append(cell.columnName) }
                    if cell.bytes == nil {
                        values.append(.null)
                    } else if cell.dataType == .int8 || cell.dataType == .int4 || cell.dataType == .int2 {
                        values.append(.integer(try cell.decode(Int64.self)))
                    } else {
                        values.append(.text(try cell.decode(String.self)))
                    }
                }
                let shared = columns ?? SQLColumns(names)
                columns = shared
                rows.append(SQLRow(values, columns: shared))
            }
            return rows
        }
    }
}

public struct PostgresURLError: Error, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    /// A URL that is not one (shown without its password).
    init(url: String) {
        let shown = url.split(separator: "@").count > 1 ? "…@" + (url.split(separator: "@").last ?? "") : Substring(url)
        reason = "\"\(shown.prefix(200))\" is not a PostgreSQL URL; expected postgres://USER:PASSWORD@HOST:PORT/DATABASE"
    }
    public var description: String { reason }
}

/// Just enough URL parsing for connection strings, without Foundation's URL (which rejects
/// some valid socket forms).
struct URLComponentsLite {
    var scheme: String
    var user: String?
    var password: String?
    var host: String?
    var port: Int?
    var database: String?
    var query: [String: String] = [:]

    init?(_ url: String) {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        scheme = String(url[..<schemeEnd.lowerBound]).lowercased()
        var rest = String(url[schemeEnd.upperBound...])
        if let questionMark = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: questionMark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { query[String(parts[0])] = String(parts[1]).removingPercentEncodingLite }
            }
            rest = String(rest[..<questionMark])
        }
        if let slash = rest.firstIndex(of: "/") {
            let name = String(rest[rest.index(after: slash)...])
            database = name.isEmpty ? nil : name
            rest = String(rest[..<slash])
        }
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            if let colon = credentials.firstIndex(of: ":") {
                user = String(credentials[..<colon]).removingPercentEncodingLite
                password = String(credentials[credentials.index(after: colon)...]).removingPercentEncodingLite
            } else {
                user = String(credentials).removingPercentEncodingLite
            }
            rest = String(rest[rest.index(after: at)...])
        }
        if let colon = rest.lastIndex(of: ":"), let number = Int(rest[rest.index(after: colon)...]) {
            port = number
            rest = String(rest[..<colon])
        }
        host = rest.isEmpty ? nil : rest
    }
}

extension String {
    var removingPercentEncodingLite: String {
        var bytes: [UInt8] = []
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let end = utf8.index(index, offsetBy: 3, limitedBy: utf8.endIndex),
                let value = UInt8(String(decoding: utf8[utf8.index(after: index)..<end], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = end
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The database did not answer one transaction or read in time (`PostgresSQLDatabase.connectionDeadline`).
public struct DatabaseUnresponsive: Error, CustomStringConvertible {
    public var what: String
    public var deadline = PostgresSQLDatabase.connectionDeadline
    public var description: String { "the database did not answer \(what) within \(deadline)" }
}

/// A continuation answered once, by the work or by its watchdog, whichever comes first; the
/// watchdog is cancelled when the work answers.
private final class Answered<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var watchdog: Task<Void, any Error>?
        var done = false
        /// An answer that came before the continuation was set: handed over when it is.
        var early: Result<T, any Error>?
    }

    private let state = Mutex(State())

    func set(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if state.early == nil { state.continuation = continuation }
            return state.early
        }
        if let early { continuation.resume(with: early) }
    }

    func watch(_ watchdog: Task<Void, any Error>) {
        let done = state.withLock { state -> Bool in
            if !state.done { state.watchdog = watchdog }
            return state.done
        }
        if done { watchdog.cancel() }
    }

    func resume(_ result: Result<T, any Error>) {
        let (continuation, watchdog) = state.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, any Error>?) in
            guard !state.done else { return (nil, nil) }
            defer {
                state.continuation = nil
                state.watchdog = nil
                state.done = true
            }
            if state.continuation == nil { state.early = result }
            return (state.continuation, state.watchdog)
        }
        watchdog?.cancel()
        continuation?.resume(with: result)
    }
}

/// Whether `error` says the database could not be reached (a connection refused, closed or not
/// answering, or a server shutting down), rather than something about the request: the server
/// answers such a request "retry in a moment" and tells the log once per outage.
public func isDatabaseUnreachable(_ error: any Error) -> Bool {
    switch error {
    case is DatabaseUnresponsive:
        return true
    case let error as PSQLError:
        if [.connectionError, .serverClosedConnection, .clientClosedConnection].contains(error.code) { return true }
        // 57P01–57P03: the administrator shut the server down, or it is starting up.
        return error.serverInfo?[.sqlState].map { $0.hasPrefix("57P") } ?? false
    case let error as PostgresTransactionError:
        return [error.beginError, error.closureError, error.commitError].contains { $0.map(isDatabaseUnreachable) ?? false }
    default:
        return false
    }
}
