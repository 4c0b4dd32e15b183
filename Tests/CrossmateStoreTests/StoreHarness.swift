import CrossmateStore
import Foundation
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
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crossmate-store-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory.appendingPathComponent("test.sqlite").path)
}

func unique(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(12).lowercased())" }
