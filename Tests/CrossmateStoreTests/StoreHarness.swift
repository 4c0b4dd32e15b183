import CrossmateStore
import CrossmateTestSupport
import Foundation
import GRDBSQLite
import Logging

/// The engines the shared store suite runs on: SQLite always, PostgreSQL when
/// CROSSMATE_TEST_POSTGRES_URL is set (scripts/with-postgres.sh starts one).
enum Backend: String, CaseIterable, Sendable {
    case sqlite
    case postgres

    static var available: [Backend] {
        ProcessInfo.processInfo.environment["CROSSMATE_TEST_POSTGRES_URL"] == nil ? [.sqlite] : [.sqlite, .postgres]
    }

}

/// Runs `body` with a migrated store on `backend`; each SQLite run gets a new file, and Postgres
/// runs share one database but use fresh identifiers.
func withStore<T: Sendable>(_ backend: Backend, _ body: @Sendable (Store) async throws -> T) async throws -> T {
    switch backend {
    case .sqlite:
        return try await withSQLiteFile { path in
            let store = Store(database: try SQLiteDatabase(path: path))
            try await store.migrate(now: 1)
            return try await body(store)
        }
    case .postgres:
        let url = ProcessInfo.processInfo.environment["CROSSMATE_TEST_POSTGRES_URL"]!
        let database = try PostgresSQLDatabase(url: url, logger: Logger(label: "test"))
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await database.client.run()
                return nil
            }
            let store = Store(database: database)
            try await store.migrate(now: 1)
            let result = try await body(store)
            group.cancelAll()
            return result
        }
    }
}

/// The path of a new SQLite file in a temporary directory, removed when `body` ends.
func withSQLiteFile<T>(_ body: (String) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory("crossmate-store")
    defer { directory.remove() }
    return try await body(directory.path + "/test.sqlite")
}

func unique(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(12).lowercased())" }

/// The moves of `game` in the SQLite database file itself, leaving out what is only in its
/// write-ahead log (`immutable=1` opens the file alone); 0 while the file has no such table.
func movesInDatabaseFile(_ path: String, game: String) -> Int {
    var db: OpaquePointer?
    defer { sqlite3_close(db) }
    guard sqlite3_open_v2("file:\(path)?immutable=1", &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK else { return 0 }
    var statement: OpaquePointer?
    defer { sqlite3_finalize(statement) }
    let sql = "SELECT count(*) FROM records WHERE game_id = ? AND record_type = 'move'"
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return 0 }
    sqlite3_bind_text(statement, 1, game, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    return sqlite3_step(statement) == SQLITE_ROW ? Int(sqlite3_column_int64(statement, 0)) : 0
}
