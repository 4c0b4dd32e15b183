/// A value bound to or read from SQL. The schema uses only integers and text, so both engines
/// store and return exactly these.
public enum SQLValue: Hashable, Sendable {
    case integer(Int64)
    case text(String)
    case null

    public init(_ value: Int64) { self = .integer(value) }
    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: String) { self = .text(value) }
    public init(_ value: String?) { self = value.map(SQLValue.text) ?? .null }
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
}

/// One result row, read by column position.
public struct SQLRow: Hashable, Sendable {
    public var values: [SQLValue]

    public init(_ values: [SQLValue]) { self.values = values }

    public func int(_ column: Int) -> Int64? {
        if case let .integer(value) = values[column] { return value }
        if case let .text(text) = values[column] { return Int64(text) }
        return nil
    }

    public func text(_ column: Int) -> String? {
        switch values[column] {
        case let .text(value): value
        case let .integer(value): String(value)
        case .null: nil
        }
    }

    public func bool(_ column: Int) -> Bool { (int(column) ?? 0) != 0 }
}

/// The SQL spoken to a connection: `?` placeholders, rewritten as each engine needs.
public protocol SQLConnection: Sendable {
    func execute(_ sql: String, _ values: [SQLValue]) async throws
    func query(_ sql: String, _ values: [SQLValue]) async throws -> [SQLRow]
    /// Runs INSERT, UPDATE and DELETE statements (without RETURNING) that touch different rows,
    /// as one trip to the database where the engine can: no statement may depend on another's
    /// effects, as they may run in any order.
    func executeAll(_ statements: [(sql: String, values: [SQLValue])]) async throws
}

extension SQLConnection {
    public func executeAll(_ statements: [(sql: String, values: [SQLValue])]) async throws {
        for statement in statements { try await execute(statement.sql, statement.values) }
    }

    public func execute(_ sql: String, _ values: SQLValue...) async throws { try await execute(sql, values) }
    public func query(_ sql: String, _ values: SQLValue...) async throws -> [SQLRow] { try await query(sql, values) }
    public func first(_ sql: String, _ values: SQLValue...) async throws -> SQLRow? { try await query(sql, values).first }
}

/// A database the store runs on: embedded SQLite or PostgreSQL.
public protocol SQLDatabase: Sendable {
    /// Runs `body` in one transaction: all of it commits, or none of it.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T
    /// Runs read-only queries outside a write transaction.
    func read<T: Sendable>(_ body: @Sendable (any SQLConnection) async throws -> T) async throws -> T
    /// A lock-the-row suffix for selects inside a transaction (`FOR UPDATE` on PostgreSQL; SQLite
    /// transactions already hold the database's one write lock).
    var forUpdate: String { get }
    /// A statement that makes concurrent migrations from several instances take turns, if needed.
    var migrationLock: String? { get }
    func close() async throws
}
