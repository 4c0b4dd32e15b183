import CrossmateFormats
import Foundation
import Testing

/// Runs the built `crossmate` executable, as a user would.
struct CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let executable: URL = {
        let runner = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
        var folder = runner.deletingLastPathComponent()
        // The runner may sit inside an .xctest bundle folder; walk up to the build products.
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("crossmate").path), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("crossmate")
    }()

    static func run(_ arguments: String...) throws -> Result { try run(arguments) }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func json(_ arguments: String...) throws -> [String: Any] {
        let result = try run(arguments)
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("crossmate-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite struct CLITests {
    func fixture(_ path: String) -> String { Fixture.root.appendingPathComponent(path).path }

    @Test func showJSONHasTheDocumentedShape() throws {
        let json = try CLI.json("show", fixture("kotwords/puz/test.puz"), "--json")
        #expect(Set(json.keys) == ["title", "author", "copyright", "notes", "width", "height", "locked", "cells", "clues"])
        #expect(json["title"] as? String == "Example Puzzle for Kotwords")
        #expect(json["width"] as? Int == 5)
        #expect(json["locked"] as? Bool == false)
        let cells = try #require(json["cells"] as? [[Any]])
        #expect(cells.count == 5 && cells.allSatisfy { $0.count == 5 })
        #expect(cells[0][4] is NSNull)
        let first = try #require(cells[0][0] as? [String: Any])
        #expect(Set(first.keys) == ["solution", "number", "circled", "shaded"])
        #expect(first["solution"] as? String == "A" && first["number"] as? Int == 1)
        let unnumbered = try #require(cells[1][1] as? [String: Any])
        #expect(unnumbered["number"] is NSNull)
        #expect((cells[2][2] as? [String: Any])?["solution"] as? String == "XYZ")
        #expect((cells[2][0] as? [String: Any])?["circled"] as? Bool == true)
        let clues = try #require(json["clues"] as? [String: [[String: Any]]])
        #expect(clues["across"]?.first?["number"] as? Int == 1)
        #expect(clues["down"]?.last?["text"] as? String == "Fifth down clue")
    }

    @Test func everyFormatShowsTheSameJSON() throws {
        let reference = try CLI.run("show", fixture("kotwords/puz/test.puz"), "--json").stdout
        for path in ["kotwords/ipuz/test.ipuz", "kotwords/jpz/test.jpz", "kotwords/xd/test.xd"] {
            #expect(try CLI.run("show", fixture(path), "--json").stdout == reference, "\(path)")
        }
    }

    @Test func showPrintsTheGridAndClues() throws {
        let result = try CLI.run("show", "bundled:green-light")
        #expect(result.status == 0)
        #expect(result.stdout.contains("Green Light"))
        #expect(result.stdout.contains("1. In addition (4)"))
        #expect(result.stdout.contains("G R E E N"))
    }

    @Test func convertThenLockThenUnlock() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ipuz = folder.appendingPathComponent("copy.ipuz").path
        let locked = folder.appendingPathComponent("locked.puz").path
        #expect(try CLI.run("convert", fixture("kotwords/jpz/test.jpz"), ipuz).status == 0)
        #expect(try CLI.run("show", ipuz, "--json").stdout == CLI.run("show", fixture("kotwords/jpz/test.jpz"), "--json").stdout)

        #expect(try CLI.run("convert", "bundled:daybreak", locked, "--lock", "0427").status == 0)
        let hidden = try CLI.json("show", locked, "--json")
        #expect(hidden["locked"] as? Bool == true)
        let hiddenCells = try #require(hidden["cells"] as? [[Any]])
        #expect((hiddenCells[0][0] as? [String: Any])?["solution"] is NSNull)

        let opened = try CLI.json("show", locked, "--key", "0427", "--json")
        #expect(opened["locked"] as? Bool == false)
        let original = try CLI.json("show", "bundled:daybreak", "--json")
        #expect(opened["cells"] as? NSArray == original["cells"] as? NSArray)
    }

    /// A locked rebus .puz opened with its key shows and converts with its whole rebus answers.
    @Test func aLockedRebusFileShowsAndConvertsWholeAnswers() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let locked = folder.appendingPathComponent("rebus-locked.puz")
        try Data(PuzWriter.write(ScramblingTests.rebusPuzzle(), lockKey: 1234)).write(to: locked)
        let shown = try CLI.json("show", locked.path, "--key", "1234", "--json")
        let rows = try #require(shown["cells"] as? [[Any]])
        #expect((rows[1][0] as? [String: Any])?["solution"] as? String == "GREEN")
        #expect((rows[4][3] as? [String: Any])?["solution"] as? String == "SUN")
        let ipuz = folder.appendingPathComponent("rebus.ipuz").path
        #expect(try CLI.run("convert", locked.path, ipuz, "--key", "1234").status == 0)
        #expect(try CLI.run("show", ipuz, "--json").stdout == CLI.run("show", locked.path, "--key", "1234", "--json").stdout)
        // Converted to .puz again with a new lock, it still unlocks whole.
        let relocked = folder.appendingPathComponent("relocked.puz").path
        #expect(try CLI.run("convert", locked.path, relocked, "--key", "1234", "--lock", "0427").status == 0)
        #expect(try CLI.run("show", relocked, "--key", "0427", "--json").stdout == CLI.run("show", ipuz, "--json").stdout)
    }

    @Test func errorsAreOneLineOnStderrWithStatusOne() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var corrupt = try Fixture.bytes("kotwords/puz/test.puz")
        corrupt[0x40] ^= 0x20
        let corruptPath = folder.appendingPathComponent("corrupt.puz").path
        try Data(corrupt).write(to: URL(fileURLWithPath: corruptPath))
        let truncatedPath = folder.appendingPathComponent("short.puz").path
        try Data(corrupt.prefix(30)).write(to: URL(fileURLWithPath: truncatedPath))
        let textPath = folder.appendingPathComponent("notes.txt").path
        try Data("shopping list".utf8).write(to: URL(fileURLWithPath: textPath))
        let locked = folder.appendingPathComponent("locked.puz").path
        _ = try CLI.run("convert", "bundled:green-light", locked, "--lock", "1234")

        let cases: [([String], String)] = [
            (["show", corruptPath], "\(corruptPath): checksum mismatch: the global checksum"),
            (["show", truncatedPath], "\(truncatedPath): truncated file: the header needs 52 bytes"),
            (["show", textPath], "\(textPath): not a crossword file"),
            (["show", folder.appendingPathComponent("missing.puz").path], "missing.puz: no such file"),
            (["show", folder.path], "is a directory"),
            (["show", locked, "--key", "4321"], "wrong unlock key: key 4321 does not unlock this puzzle"),
            (["convert", fixture("kotwords/puz/test.puz"), folder.appendingPathComponent("out.txt").path], "unsupported format"),
            (["convert", fixture("kotwords/jpz/test-barred.jpz"), folder.appendingPathComponent("out.puz").path], "the .puz format has no bars"),
            (["show", "bundled:nothing"], "no bundled puzzle named \"nothing\""),
        ]
        for (arguments, expected) in cases {
            let result = try CLI.run(arguments)
            let stderr = result.stderr
            #expect(result.status == 1, "\(arguments)")
            #expect(stderr.hasPrefix("crossmate: "), "\(arguments): \(stderr)")
            #expect(stderr.contains(expected), "\(arguments): \(stderr)")
            #expect(stderr.split(separator: "\n").count == 1, "\(arguments): \(stderr)")
        }
    }
}
