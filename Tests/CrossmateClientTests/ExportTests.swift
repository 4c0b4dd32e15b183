import CrossmateClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateTestSupport
import Foundation
import GRDB
import Testing

/// A game taken to another app: exported by a player as .puz, .ipuz, .jpz or .xd, with the grid's
/// letters when asked; all of a player's games in one zip; nobody else's.
@Suite(.startsProcesses, .serialized) struct ExportTests {
    @Test func aPlayerExportsTheGameWithItsFillInEveryFormat() async throws {
        try await withLiveServer { server, directory in
            let ann = try await TestPlayer.login("Ann", server: server.baseURL, in: directory)
            let gameID = try await ann.engine.createGame(CreateGameRequest(bundled: "daybreak"))
            await ann.engine.start()
            let session = try await ann.engine.open(gameID)
            try await type("BETA", at: GridPosition(row: 0, col: 0), in: session)
            try await eventually("Ann's letters acknowledged") { await ann.engine.status.unsent == 0 }
            let bundled = try BundledPuzzles.puzzle("daybreak")
            for format in [PuzzleFormat.puz, .ipuz, .jpz] {
                let (name, bytes) = try await ann.engine.export(gameID, format: format.rawValue, fill: true)
                #expect(name == "Daybreak.\(format.rawValue)")
                let puzzle = try format.read(bytes)
                #expect(puzzle.cells.map(\.solution) == bundled.cells.map(\.solution), "\(format)")
                #expect(Array(puzzle.savedProgress?.letters.prefix(5) ?? []) == ["B", "E", "T", "A", ""], "\(format)")
                // Without the fill, the puzzle alone.
                let plain = try format.read(try await ann.engine.export(gameID, format: format.rawValue, fill: false).bytes)
                let plainLetters = plain.savedProgress?.letters ?? []
                #expect(plainLetters.allSatisfy { $0.isEmpty }, "\(format)")
            }
            let xd = try PuzzleFormat.xd.read(try await ann.engine.export(gameID, format: "xd", fill: false).bytes)
            #expect(xd.across.map(\.text) == bundled.across.map(\.text))
            await #expect(throws: ServerFailure.self) { try await ann.engine.export(gameID, format: "xd", fill: true) }
            await #expect(throws: ServerFailure.self) { try await ann.engine.export(gameID, format: "pdf", fill: false) }

            // Someone who is not a player cannot.
            let eve = try await TestPlayer.login("Eve", server: server.baseURL, in: directory)
            do {
                _ = try await eve.engine.export(gameID, format: "ipuz", fill: true)
                Issue.record("Eve exported a game she is not in")
            } catch let failure as ServerFailure {
                guard case let .refused(body, status, _) = failure else { throw failure }
                #expect(status == 403 && body.message.contains("not a player"), "\(body.message)")
            }

            // All of Ann's games in one zip that an independent reader opens.
            _ = try await ann.engine.createGame(CreateGameRequest(bundled: "green-light"))
            let (zipName, zip) = try await ann.engine.export(nil, format: "puz", fill: true)
            #expect(zipName == "crossmate-games.zip")
            let path = directory.path + "/games.zip"
            try Data(zip).write(to: URL(fileURLWithPath: path))
            let listing = try Self.python(
                "import zipfile, sys; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(sorted(z.namelist()))", path)
            #expect(listing.contains("'Daybreak.puz'") && listing.contains("'Green Light.puz'"), "\(listing)")
            await ann.engine.stop()
        }
    }

    /// Download all after a restart (no game open in the new process): every game is in the zip
    /// with its letters; games of one title, and a title that looks like a renamed one, each
    /// keep an entry of their own; a locked puzzle asked for as .ipuz goes in as .puz, and the
    /// zip's README says why.
    @Test func everyGameIsInTheZipAfterARestartWhateverItsTitleOrLock() async throws {
        let directory = try TemporaryDirectory("crossmate-export-all")
        defer { directory.remove() }
        var server = try ServerProcess(dataDirectory: directory.path + "/server")
        defer { server.kill() }
        let ann = try await TestPlayer.login("Ann", server: server.baseURL, in: directory)
        let first = try await ann.engine.createGame(CreateGameRequest(bundled: "daybreak"))
        _ = try await ann.engine.createGame(CreateGameRequest(bundled: "daybreak"))
        var renamed = try BundledPuzzles.puzzle("daybreak")
        renamed.title = "Daybreak \(first)"
        let uploads = [
            ("renamed.ipuz", try PuzzleFormat.ipuz.write(renamed)),
            ("locked.puz", try PuzWriter.write(try BundledPuzzles.puzzle("green-light"), lockKey: 2718)),
        ]
        for (name, bytes) in uploads {
            _ = try await ann.engine.createGame(CreateGameRequest(fileName: name, fileBase64: Data(bytes).base64EncodedString()))
        }
        await ann.engine.start()
        let session = try await ann.engine.open(first)
        try await type("BETA", at: GridPosition(row: 0, col: 0), in: session)
        try await eventually("Ann's letters acknowledged") { await ann.engine.status.unsent == 0 }
        await ann.engine.stop()
        // The games list keeps a summary of each game: the restarted server lists them without
        // their puzzles and has none of them open.
        server.kill()
        server = try ServerProcess(dataDirectory: directory.path + "/server", port: server.port)
        var readOnly = Configuration()
        readOnly.readonly = true
        let database = try DatabaseQueue(path: directory.path + "/server/crossmate.sqlite", configuration: readOnly)
        let summarized = try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM game_summaries") ?? 0 }
        try database.close()
        #expect(summarized == 4, "the games list has no summaries to list the games by")
        let (_, zip) = try await ann.engine.export(nil, format: "ipuz", fill: true)
        let path = directory.path + "/games.zip"
        try Data(zip).write(to: URL(fileURLWithPath: path))
        let listing = try Self.python(
            """
            import zipfile, sys, json
            z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None
            for name in z.namelist():
                data = z.read(name)
                print(name, json.loads(data)["puzzle"][0][0] if name.endswith(".ipuz") else len(data))
            print("README:", z.read("README.txt").decode() if "README.txt" in z.namelist() else "")
            """, path)
        let names = listing.split(separator: "\n").map { String($0.split(separator: " ").dropLast().joined(separator: " ")) }
        #expect(names.filter { $0.hasSuffix(".ipuz") }.count == 3, "\(listing)")
        #expect(Set(names.filter { $0.hasSuffix(".ipuz") }).count == 3, "two entries of one name: \(listing)")
        #expect(listing.contains("Green Light.puz"), "the locked game is missing: \(listing)")
        #expect(listing.contains("Green Light.puz is a .puz file: it cannot be written as .ipuz"), "\(listing)")
        // Ann's letters are in her first game's file.
        let firstFile = try PuzzleFormat.ipuz.read(try await ann.engine.export(first, format: "ipuz", fill: true).bytes)
        #expect(Array(firstFile.savedProgress?.letters.prefix(4) ?? []) == ["B", "E", "T", "A"])
    }

    static func python(_ program: String, _ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", program] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
}
