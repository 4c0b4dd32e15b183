import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateTestSupport
import Foundation
import GRDB
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Backups and restores as operators really make them: after a clean stop and after a crash,
/// following the refusals' own advice, from a link, from hostile or foreign files, into a
/// link; and a server that will not serve a database failing its check.
@Suite(.startsProcesses, .serialized) struct RestoreSafetyTests {
    func crossmate(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) { try runCrossmate(arguments) }

    /// A server with one account, one game and `letters` acknowledged moves.
    func playedServer(_ directory: TemporaryDirectory, letters: Int) async throws -> (ServerProcess, TestPlayer, GameSession) {
        let server = try ServerProcess(dataDirectory: directory.path + "/server")
        let ann = try await TestPlayer.login("Ann", server: server.baseURL, in: directory)
        let gameID = try await ann.engine.createGame(CreateGameRequest(bundled: "daybreak"))
        await ann.engine.start()
        let session = try await ann.engine.open(gameID)
        try await typeMoves(letters, from: 0, in: session, engine: ann.engine)
        return (server, ann, session)
    }

    func typeMoves(_ count: Int, from first: Int, in session: GameSession, engine: SyncEngine) async throws {
        let squares = try await session.view().puzzle.letterPositions
        for index in first..<(first + count) {
            // Each round over the squares types another letter, so every keystroke is a move.
            try await session.type(String(UnicodeScalar(UInt8(65 + (index / squares.count) % 26))), at: squares[index % squares.count])
        }
        try await eventually("the moves acknowledged") { await engine.status.unsent == 0 }
    }

    /// What a database file holds, read as SQLite reads it (with its log, if any).
    func inspect(_ path: String) throws -> (integrity: [String], moves: Int) {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            (
                try String.fetchAll(db, sql: "PRAGMA integrity_check"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM records WHERE record_type = 'move'") ?? 0
            )
        }
    }

    func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// The operator's path from the issue: a backup, more typing, the server stopped (cleanly or
    /// killed), the old database moved away as the refusal says, the backup restored, the server
    /// started on it. The restored database is whole and holds exactly the backup's moves.
    @Test(arguments: [false, true]) func aRestoreNeverMeetsTheOldLog(killed: Bool) async throws {
        let directory = try TemporaryDirectory("crossmate-restore-log")
        defer { directory.remove() }
        var (server, ann, session) = try await playedServer(directory, letters: 30)
        let data = directory.path + "/server"
        let database = data + "/crossmate.sqlite"
        let copy = directory.path + "/backup.sqlite"
        let backup = try crossmate(["backup", copy, "--data", data])
        #expect(backup.status == 0, "\(backup.errors)")
        try await typeMoves(40, from: 30, in: session, engine: ann.engine)
        await ann.engine.stop()
        if killed {
            server.kill()
            #expect(exists(database + "-wal"), "a killed server leaves its log")
        } else {
            #expect(server.terminate() == 0)
            // A clean stop copies the log into the database and removes it.
            #expect(!exists(database + "-wal") && !exists(database + "-shm"), "a clean stop left the log beside the database")
            #expect(try inspect(database).moves == 70)
        }

        // Restoring over a database is refused, and the refusal says what to move.
        let over = try crossmate(["restore", copy, "--data", data])
        #expect(
            over.status == 1 && over.errors.contains("move the old database away") && over.errors.contains("crossmate.sqlite-wal"), "\(over.errors)")
        try FileManager.default.moveItem(atPath: database, toPath: directory.path + "/old.sqlite")
        var restore = try crossmate(["restore", copy, "--data", data])
        if killed {
            // The killed server's log is still there: refused, named, and nothing written.
            #expect(restore.status == 1 && restore.errors.contains("crossmate.sqlite-wal is still there"), "\(restore.errors)")
            #expect(!exists(database))
            for suffix in ["-wal", "-shm"] where exists(database + suffix) {
                try FileManager.default.moveItem(atPath: database + suffix, toPath: directory.path + "/old.sqlite" + suffix)
            }
            // The old database with its log is still whole: nothing was lost by moving them.
            #expect(try inspect(directory.path + "/old.sqlite") == (["ok"], 70))
            restore = try crossmate(["restore", copy, "--data", data])
        }
        #expect(restore.status == 0, "\(restore.errors)")
        #expect(restore.output.contains("1 accounts, 1 games and 30 moves"), "\(restore.output)")
        server = try ServerProcess(dataDirectory: data)
        let health = try await URLSession.shared.data(from: URL(string: server.baseURL + "/healthz")!)
        #expect((health.1 as? HTTPURLResponse)?.statusCode == 200)
        #expect(server.terminate() == 0)
        #expect(try inspect(database) == (["ok"], 30))
    }

    /// A backup made by hand is owner-only whatever the umask, leaves no log beside it, is never
    /// written through a link, and a restore from a link copies the file itself.
    @Test func backupsAreRealPrivateFilesAndRestoresCopyThem() async throws {
        let directory = try TemporaryDirectory("crossmate-backup-files")
        defer { directory.remove() }
        let (server, _, _) = try await playedServer(directory, letters: 6)
        defer { server.kill() }
        let data = directory.path + "/server"
        let copy = directory.path + "/backup.sqlite"
        let previous = umask(0o022)
        let backup = try crossmate(["backup", copy, "--data", data])
        umask(previous)
        #expect(backup.status == 0, "\(backup.errors)")
        let mode = (try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o600, "the backup's mode is \(String(mode, radix: 8))")
        #expect(!exists(copy + "-wal") && !exists(copy + "-shm"), "the backup left a log beside it")

        // A dangling link as the destination is refused, and its target never made.
        let target = directory.path + "/elsewhere.sqlite"
        let link = directory.path + "/link.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let through = try crossmate(["backup", link, "--data", data])
        #expect(through.status == 1 && through.errors.contains("already exists"), "\(through.errors)")
        #expect(!exists(target))

        // Restored from a link, the database is a file of its own: the server's writes never
        // reach the backup.
        let backupLink = directory.path + "/latest.sqlite"
        try FileManager.default.createSymbolicLink(atPath: backupLink, withDestinationPath: copy)
        let restoredData = directory.path + "/restored"
        let restore = try crossmate(["restore", backupLink, "--data", restoredData])
        #expect(restore.status == 0, "\(restore.errors)")
        let restored = restoredData + "/crossmate.sqlite"
        let attributes = try FileManager.default.attributesOfItem(atPath: restored)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(!exists(restored + "-wal") && !exists(copy + "-wal"))
        let before = try Data(contentsOf: URL(fileURLWithPath: copy))
        let second = try ServerProcess(dataDirectory: restoredData)
        // A new account is written into the restored database.
        _ = try await TestPlayer.login("Ben", server: second.baseURL, in: directory)
        #expect(second.terminate() == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == before, "the server wrote into the backup")
        #expect(!exists(restoredData + "/crossmate.sqlite.restoring"))
    }

    /// Files that are not a Crossmate database of their version are refused quickly, before
    /// anything in them runs, and nothing is written.
    @Test func hostileAndForeignFilesAreRefusedInBoundedTime() async throws {
        let directory = try TemporaryDirectory("crossmate-restore-hostile")
        defer { directory.remove() }
        let server = try ServerProcess(dataDirectory: directory.path + "/server")
        #expect(server.terminate() == 0)
        let good = directory.path + "/server/crossmate.sqlite"

        // The accounts table replaced by a view that never ends.
        let hostile = directory.path + "/hostile.sqlite"
        try FileManager.default.copyItem(atPath: good, toPath: hostile)
        let queue = try DatabaseQueue(path: hostile)
        try await queue.write { db in
            try db.execute(sql: "DROP TABLE link_codes; DROP TABLE devices")
            try db.execute(sql: "ALTER TABLE accounts RENAME TO old_accounts")
            try db.execute(
                sql: "CREATE VIEW accounts AS WITH RECURSIVE forever(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM forever) SELECT n FROM forever")
        }
        try queue.close()
        let started = ContinuousClock.now
        let refused = try crossmate(["restore", hostile, "--data", directory.path + "/a"])
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(refused.status == 1 && refused.errors.contains("does not have the tables of a Crossmate database"), "\(refused.errors)")
        #expect(!exists(directory.path + "/a/crossmate.sqlite") && !exists(directory.path + "/a/crossmate.sqlite.restoring"))

        // The right version with other tables.
        let foreign = directory.path + "/foreign.sqlite"
        try FileManager.default.copyItem(atPath: good, toPath: foreign)
        let other = try DatabaseQueue(path: foreign)
        try await other.write { db in try db.execute(sql: "ALTER TABLE games ADD COLUMN extra TEXT; CREATE TABLE notes (x TEXT)") }
        try other.close()
        let wrong = try crossmate(["restore", foreign, "--data", directory.path + "/b"])
        #expect(
            wrong.status == 1 && wrong.errors.contains("unexpected table notes") && wrong.errors.contains("the columns of games"), "\(wrong.errors)")
        #expect(!exists(directory.path + "/b/crossmate.sqlite"))

        // A clean one restores.
        let fine = try crossmate(["restore", good, "--data", directory.path + "/c"])
        #expect(fine.status == 0, "\(fine.errors)")
    }

    /// A database that fails SQLite's check is not served: the server refuses to start and
    /// says what to do, instead of answering `/healthz` with 200.
    @Test func aDamagedDatabaseIsNotServed() async throws {
        let directory = try TemporaryDirectory("crossmate-damaged")
        defer { directory.remove() }
        let (server, ann, _) = try await playedServer(directory, letters: 20)
        await ann.engine.stop()
        #expect(server.terminate() == 0)
        let database = directory.path + "/server/crossmate.sqlite"
        // Scribble over the middle of the file, past its header: pages of tables and indexes.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: database))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 4_096 * 2)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: Int(size) - 4_096 * 3))
        try handle.close()
        let refusal = try ServerProcess.refusal(["--port", "0", "--data", directory.path + "/server"])
        #expect(refusal.status != 0)
        #expect(refusal.message.contains("fails SQLite's integrity check") && refusal.message.contains("crossmate restore"), "\(refusal.message)")
    }

    /// A restore is the disaster path: devices that typed after the backup hold moves the
    /// restored server lost. Each gives them back on its own once it reconnects (it checks its
    /// acknowledged moves against the restored server), goes on typing, and a device that
    /// joins afterwards sees every letter.
    @Test func devicesThatTypedAfterTheBackupGiveTheirMovesBack() async throws {
        let directory = try TemporaryDirectory("crossmate-restore-devices")
        defer { directory.remove() }
        var server = try ServerProcess(dataDirectory: directory.path + "/server")
        defer { server.kill() }
        let ann = try await TestPlayer.login("Ann", server: server.baseURL, in: directory)
        let bob = try await TestPlayer.login("Bob", server: server.baseURL, in: directory)
        let gameID = try await ann.engine.createGame(CreateGameRequest(bundled: "green-light"))
        #expect(try await bob.engine.join(try await ann.engine.invite(gameID)) == gameID)
        await ann.engine.start()
        await bob.engine.start()
        let annSession = try await ann.engine.open(gameID)
        let bobSession = try await bob.engine.open(gameID)
        try await type("GREEN", at: GridPosition(row: 1, col: 0), in: annSession)
        try await eventually("Ann's first word acknowledged") { await ann.engine.status.unsent == 0 }
        let backup = try crossmate(["backup", directory.path + "/backup.sqlite", "--data", directory.path + "/server"])
        #expect(backup.status == 0, "\(backup.errors)")
        // After the backup: a word each, acknowledged.
        try await type("LEGAL", at: GridPosition(row: 2, col: 0), in: annSession)
        try await type("UNITY", at: GridPosition(row: 3, col: 0), in: bobSession)
        try await eventually("both words acknowledged") { await allSent(ann, bob) }
        #expect(try await storedMoveSequences(gameID, server: server.baseURL, token: ann.identity.token).count == 15)

        // The disk is lost: the server is killed and the backup restored in a new place, served
        // where the old one was.
        server.kill()
        let restore = try crossmate(["restore", directory.path + "/backup.sqlite", "--data", directory.path + "/restored"])
        #expect(restore.status == 0, "\(restore.errors)")
        server = try ServerProcess(dataDirectory: directory.path + "/restored", port: server.port)
        try await eventually("both devices gave back what the backup lacked", within: .seconds(30)) {
            try await storedMoveSequences(gameID, server: server.baseURL, token: ann.identity.token).count == 15
        }
        // A device that joins now sees every letter (it joins before the last words finish the
        // puzzle; a finished puzzle takes no one new).
        let cy = try await TestPlayer.login("Cy", server: server.baseURL, in: directory)
        #expect(try await cy.engine.join(try await ann.engine.invite(gameID)) == gameID)
        // Typing goes on: nothing is refused, nothing is stuck.
        try await type("EATS", at: GridPosition(row: 4, col: 0), in: annSession)
        try await type("ALSO", at: GridPosition(row: 0, col: 1), in: bobSession)
        try await eventually("the new words acknowledged") { await allSent(ann, bob) }
        #expect(try await storedMoveSequences(gameID, server: server.baseURL, token: ann.identity.token).count == 23)
        #expect(try ann.store.unsent(gameID: gameID, limit: 100).isEmpty)

        // Cy sees the whole grid; and Bob's screen has Ann's last word.
        await cy.engine.start()
        let cySession = try await cy.engine.open(gameID)
        let solution = ["#ALSO", "GREEN", "LEGAL", "UNITY", "EATS#"].joined().map { $0 == "#" ? "" : String($0) }
        try await eventually("Cy sees the whole grid") { try await cySession.view().grid.letters == solution }
        try await eventually("Bob sees Ann's last word") { try await bobSession.view().grid.letters == solution }
        await ann.engine.stop()
        await bob.engine.stop()
        await cy.engine.stop()
    }
}
