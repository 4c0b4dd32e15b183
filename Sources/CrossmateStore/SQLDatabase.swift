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

/// A result's column names, as the query names them (a column's own name, or its `AS` alias),
/// shared by every row of the result.
public final class SQLColumns: Hashable, Sendable {
    public let names: [String]
    private let index: [String: Int]

    public init(_ names: [String]) {
        self.names = names
        // The first of two columns of one name is the one read (a query names them apart).
        self.index = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The position of column `name`; a name the query does not have is a programming error.
    public func position(_ name: String) -> Int {
        guard let position = index[name] else { preconditionFailure("no column \(name) among \(names)") }
        return position
    }

    public static func == (a: SQLColumns, b: SQLColumns) -> Bool { a.names == b.names }
    public func hash(into hasher: inout Hasher) { hasher.combine(names) }
}

/// One result row, read by column name.
public struct SQLRow: Hashable, Sendable {
    public var values: [SQLValue]
    public var columns: SQLColumns

    public init(_ values: [SQLValue], columns: SQLColumns) {
        self.values = values
        self.columns = columns
    }

    public subscript(_ name: String) -> SQLValue { values[columns.position(name)] }

    public func int(_ name: String) -> Int64? {
        switch self[name] {
        case let .integer(value): value
        case let .text(text): Int64(text)
        case .null: nil
        }
    }

    public func text(_ name: String) -> String? {
        switch self[name] {
        case let .text(value): value
        case let .integer(value): String(value)
        case .null: nil
        }
    }

    public func bool(_ name: String) -> Bool { (int(name) ?? 0) != 0 }

    /// A column the schema declares NOT NULL: a null there is a database that was changed
    /// outside the store, said as such.
    public func string(_ name: String) throws -> String {
        guard let value = text(name) else { throw MissingColumnValue(column: name) }
        return value
    }

    public func integer(_ name: String) throws -> Int64 {
        guard let value = int(name) else { throw MissingColumnValue(column: name) }
        return value
    }
}

/// A NOT NULL column read as null (or as text that is no number where one belongs).
public struct MissingColumnValue: Error, Equatable, CustomStringConvertible {
    public var column: String
    public init(column: String) { self.column = column }
    public var description: String { "the database has no value in column \(column) where one must be" }
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

extension SQLDatabase {
    /// A quick read (`ReadLane.interactive`).
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        try await read(.interactive, body)
    }
}

extension SQLConnection {
    public func executeAll(_ statements: [(sql: String, values: [SQLValue])]) async throws {
        for statement in statements { try await execute(statement.sql, statement.values) }
    }

    public func execute(_ sql: String, _ values: SQLValue...) async throws { try await execute(sql, values) }
    public func query(_ sql: String, _ values: SQLValue...) async throws -> [SQLRow] { try await query(sql, values) }
    public func first(_ sql: String, _ values: SQLValue...) async throws -> SQLRow? { try await query(sql, values).first }
}

/// Which readers a read queues for. Reads that grow with a game's history (a replay's records,
/// stats, pages of changes) have a lane of their own, so however many of them one account asks
/// for, the quick reads every request and socket makes (a device, a game's access) never wait
/// behind them.
public enum ReadLane: Sendable {
    case interactive
    case history
}

/// A database the store runs on: embedded SQLite or PostgreSQL.
public protocol SQLDatabase: Sendable {
    /// Runs `body` in one transaction: all of it commits, or none of it.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T
    /// Runs read-only queries outside a write transaction, never on the task pool's threads
    /// where the engine's calls block.
    func read<T: Sendable>(_ lane: ReadLane, _ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T
    /// A lock-the-row suffix for selects inside a transaction (`FOR UPDATE` on PostgreSQL; SQLite
    /// transactions already hold the database's one write lock).
    var forUpdate: String { get }
    /// A statement that makes concurrent migrations from several instances take turns, if needed.
    var migrationLock: String? { get }
    /// A transaction that may wait as long as it must (a migration waiting its turn behind
    /// another instance's): `transaction` without the deadline a database may put on it.
    func unhurriedTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T
    func close() async throws
    /// Where the group commits are best driven from: the thread their transactions run on, when
    /// the database has one (SQLite's writer), so a group goes from the queue to its COMMIT and
    /// back without a trip through the task pool. Nil: the task pool.
    var commitExecutor: (any TaskExecutor)? { get }
    /// Why the database cannot be reached, found afresh within `deadline` (a connection of its
    /// own, not the pool's, which waits and retries): a sentence, or nil when nothing is found.
    func whyUnreachable(within deadline: Duration) async -> String?
}

extension SQLDatabase {
    public var commitExecutor: (any TaskExecutor)? { nil }
    public func whyUnreachable(within deadline: Duration) async -> String? { nil }

    public func unhurriedTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        try await transaction(body)
    }
}
