import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateTestSupport
import Foundation
import GRDB
import Testing

/// `crossmate backup` on a running server, `crossmate restore` into a new data directory, and a
/// database from a newer Crossmate refused by this one.
@Suite(.startsProcesses, .serialized) struct BackupTests {
    func crossmate(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) { try runCrossmate(arguments) }

    @Test func aBackupTakenWhileTypingHoldsEveryAcknowledgedMoveAndRestores() async throws {
        let directory = try TemporaryDirectory("crossmate-backup")
        defer { directory.remove() }
        var server = try ServerProcess(dataDirectory: directory.path + "/server")
        defer { server.kill() }
        let ann = try await TestPlayer.login("Ann", server: server.baseURL, in: directory)
        let gameID = try await ann.engine.createGame(CreateGameRequest(bundled: "daybreak"))
        await ann.engine.start()
        let session = try await ann.engine.open(gameID)
        try await type("BETA", at: GridPosition(row: 0, col: 0), in: session)
        try await eventually("Ann's letters acknowledged") { await ann.engine.status.unsent == 0 }
        let acknowledged = try await storedMoveSequences(gameID, server: server.baseURL, token: ann.identity.token)
        #expect(acknowledged.count == 4)
        // Ann goes on typing while the backup is taken.
        let typing = Task {
            for round in 0..<400 where !Task.isCancelled {
                let letter = String(UnicodeScalar(UInt8(65 + round % 26)))
                try await session.type(letter, at: GridPosition(row: 2 + (round / 9) % 2, col: round % 4))
            }
        }
        try await eventually("typing has begun") { await ann.engine.status.unsent > 0 || typing.isCancelled }
        let copy = directory.path + "/crossmate-backup.sqlite"
        let backup = try crossmate(["backup", copy, "--data", directory.path + "/server"])
        typing.cancel()
        _ = await typing.result
        #expect(backup.status == 0, "\(backup.errors)")
        #expect(backup.output.contains("Backed up 1 accounts, 1 games and "), "\(backup.output)")
        // A second backup to the same file would overwrite the first: refused.
        let again = try crossmate(["backup", copy, "--data", directory.path + "/server"])
        #expect(again.status == 1 && again.errors.contains("already exists"), "\(again.errors)")
        await ann.engine.stop()
        server.kill()

        // Restored into a new data directory, a server serves every acknowledged move.
        let restoredDirectory = directory.path + "/restored"
        let restored = try crossmate(["restore", copy, "--data", restoredDirectory])
        #expect(restored.status == 0, "\(restored.errors)")
        let into = try crossmate(["restore", copy, "--data", restoredDirectory])
        #expect(into.status == 1 && into.errors.contains("already exists"), "a restore overwrote a database: \(into.errors)")
        server = try ServerProcess(dataDirectory: restoredDirectory)
        let held = try await storedMoveSequences(gameID, server: server.baseURL, token: ann.identity.token)
        #expect(acknowledged.isSubset(of: held), "missing after the restore: \(acknowledged.subtracting(held).sorted())")
        server.kill()

        // What is not a Crossmate database says so.
        let junk = directory.path + "/junk.sqlite"
        try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: junk))
        let bad = try crossmate(["restore", junk, "--data", directory.path + "/elsewhere"])
        #expect(bad.status == 1 && bad.errors.contains("cannot be read as a Crossmate database"), "\(bad.errors)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/elsewhere/crossmate.sqlite"))
    }

    /// A data directory a newer Crossmate migrated is refused by this one — by the server and
    /// by restore — with a message that says so, and left as it was.
    @Test func aNewerDatabaseIsRefusedWithAReason() async throws {
        let directory = try TemporaryDirectory("crossmate-newer")
        defer { directory.remove() }
        let server = try ServerProcess(dataDirectory: directory.path + "/server")
        server.kill()
        let database = directory.path + "/server/crossmate.sqlite"
        let queue = try DatabaseQueue(path: database)
        try await queue.write { db in try db.execute(sql: "INSERT INTO schema_migrations (version, applied_at) VALUES (9999, 0)") }
        try queue.close()
        let serve = try crossmate(["serve", "--port", "0", "--data", directory.path + "/server"])
        #expect(serve.status != 0)
        #expect(serve.errors.contains("written by a newer Crossmate (schema 9999"), "\(serve.errors)")
        let restore = try crossmate(["restore", database, "--data", directory.path + "/other"])
        #expect(restore.status == 1 && restore.errors.contains("newer Crossmate"), "\(restore.errors)")
    }
}
