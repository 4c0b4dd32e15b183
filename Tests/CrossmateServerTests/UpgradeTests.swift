import CrossmateProtocol
import CrossmateTestSupport
import Foundation
import Testing

/// A newer `crossmate serve` on a data directory an earlier release made: migrated in place,
/// with every account, game and move still there and the game still played.
@Suite(.startsProcesses, .serialized) struct UpgradeTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/data-0.21")

    struct Accounts: Decodable {
        struct Account: Decodable {
            var token: String
            var authorID: String
        }
        var ann: Account
        var ben: Account
        var gameID: String
    }

    @Test func aDataDirectoryFromRelease021IsMigratedAndServed() async throws {
        let directory = try TemporaryDirectory("crossmate-upgrade")
        defer { directory.remove() }
        try FileManager.default.copyItem(
            atPath: Self.fixture.appendingPathComponent("crossmate.sqlite").path, toPath: directory.path + "/crossmate.sqlite")
        let accounts = try JSONDecoder().decode(Accounts.self, from: Data(contentsOf: Self.fixture.appendingPathComponent("accounts.json")))
        let server = try ServerProcess(dataDirectory: directory.path)
        defer { server.kill() }
        let game = accounts.gameID
        // Ann's list has the game with its letters counted; the changes hold both players' moves.
        let list = try ProxyTests.call(server.port, "GET", "/v1/games", body: "", headers: ["Authorization": "Bearer \(accounts.ann.token)"])
        #expect(list.status == 200 && list.body.contains(#""gameID":"\#(game)""#) && list.body.contains(#""filled":9"#), "\(list.body)")
        let changes = try ProxyTests.call(
            server.port, "GET", "/v1/games/\(game)/changes", body: "", headers: ["Authorization": "Bearer \(accounts.ben.token)"])
        #expect(changes.status == 200)
        for letter in ["A", "L", "S", "O", "G", "R", "E", "N"] { #expect(changes.body.contains(#""letter":"\#(letter)""#), "\(letter)") }
        // The game goes on: an export with today's writers, and the list of players in joining order.
        let export = try ProxyTests.call(
            server.port, "GET", "/v1/games/\(game)/export?format=xd", body: "", headers: ["Authorization": "Bearer \(accounts.ben.token)"])
        #expect(export.status == 200 && export.body.contains("#ALSO"), "\(export.body.prefix(200))")
        // Every migration since is recorded: the schema is a fresh directory's.
        let fresh = try TemporaryDirectory("crossmate-upgrade-fresh")
        defer { fresh.remove() }
        try ServerProcess(dataDirectory: fresh.path).kill()
        func schema(_ data: String) throws -> String {
            let text = try runCrossmate(["backup", data + "/copy-\(UUID().uuidString).sqlite", "--data", data]).output
            return text.firstMatch(of: /\(schema (\d+)\)/).map { String($0.1) } ?? "none: \(text)"
        }
        let upgraded = try schema(directory.path)
        #expect(upgraded == (try schema(fresh.path)) && upgraded != "8", "\(upgraded)")
    }
}
