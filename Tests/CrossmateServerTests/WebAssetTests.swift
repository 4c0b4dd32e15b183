import CompressNIO
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import CrossmateServer

/// The web app's files travel compressed and are revalidated, not downloaded again: every file
/// is gzipped once at start-up and tagged by its content.
@Suite struct WebAssetTests {
    static func get(_ client: some TestClientProtocol, _ path: String, _ headers: HTTPFields) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: headers, body: nil)
    }

    @Test func filesAreGzippedAndAnUnchangedFileIsA304() async throws {
        try await withServer { client, _ in
            var sent = 0
            var whole = 0
            for path in [
                "/", "/app/app.js", "/app/dom.js", "/app/nav.js", "/app/connection.js", "/app/game.js", "/app/gameview.js", "/app/gamestate.js",
                "/app/gamemodel.js", "/app/gridview.js", "/app/toolbar.js", "/app/outbox.js",
                "/app/chat.js",
                "/app/replay.js", "/app/ending.js", "/app/settingsdialog.js",
                "/app/keys.js", "/app/style.css",
                "/app/api.js", "/app/routes.js", "/app/queue.js", "/app/settings.js", "/app/share.js", "/app/stats.js", "/app/welcome.js",
                "/app/gameslist.js", "/app/friends.js", "/sw.js",
            ] {
                let plain = try await Self.get(client, path, [:])
                #expect(plain.status == .ok && plain.headers[.contentEncoding] == nil)
                let etag = try #require(plain.headers[.eTag], "\(path) has no ETag")
                let gzipped = try await Self.get(client, path, [.acceptEncoding: "gzip, deflate, br"])
                #expect(gzipped.headers[.contentEncoding] == "gzip" && gzipped.headers[.eTag] == etag, "\(path)")
                var body = gzipped.body
                #expect(try body.decompress(with: .gzip()) == plain.body, "\(path) does not unzip to itself")
                #expect(gzipped.body.readableBytes < plain.body.readableBytes, "\(path) did not shrink")
                let again = try await Self.get(client, path, [.acceptEncoding: "gzip", .ifNoneMatch: etag])
                #expect(again.status == .notModified && again.body.readableBytes == 0, "\(path) was sent again")
                let stale = try await Self.get(client, path, [.ifNoneMatch: "\"old\""])
                #expect(stale.status == .ok)
                sent += gzipped.body.readableBytes
                whole += plain.body.readableBytes
            }
            print("web app first load: \(sent) bytes gzipped of \(whole)")
        }
    }

    /// The style sheet draws letters on the squares the palette was chosen for (PlayerColors):
    /// a highlight changed in one place only would undo the palette's contrast.
    @Test func theStyleSheetUsesThePalettesSquareColours() async throws {
        try await withServer { client, _ in
            let sheet = String(buffer: try await Self.get(client, "/app/style.css", [:]).body)
            // Light and dark themes: `light-dark(light, dark)`, the palette's squares in each.
            let theme = { (light: String, dark: String) in "light-dark(\(light), \(dark))" }
            for (variable, value) in [
                ("--cell", theme(PlayerColors.squareBackground, PlayerColors.darkSquareBackground)),
                ("--word", theme(PlayerColors.wordHighlight, PlayerColors.darkWordHighlight)),
                ("--current", theme(PlayerColors.squareHighlight, PlayerColors.darkSquareHighlight)), ("--wrong", PlayerColors.checkedWrong),
                ("--block", theme(PlayerColors.block, PlayerColors.darkBlock)),
            ] {
                let declarations = sheet.components(separatedBy: "\(variable):").dropFirst()
                #expect(!declarations.isEmpty, "style.css does not set \(variable)")
                for declaration in declarations {
                    #expect(declaration.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix(value), "\(variable) is not \(value)")
                }
            }
        }
    }

    /// Every colour variable the sheet uses is set, none is set from itself (the browser drops
    /// such a declaration, and borders and badges lose their colour), and no var() runs on into
    /// stray characters.
    @Test func theStyleSheetsVariablesAreSetAndWellFormed() async throws {
        try await withServer { client, _ in
            let sheet = String(buffer: try await Self.get(client, "/app/style.css", [:]).body)
            // Set on elements by the app's scripts: the grid's size and its squares' on a phone, a
            // peer's colour, the dock's height, the finish's ripple, a flag's colour.
            let setByTheApp: Set = ["--cols", "--rows", "--sq", "--peer", "--peerword", "--dock", "--wave", "--flag"]
            var declared: Set<String> = []
            for line in sheet.split(separator: "\n") {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard text.hasPrefix("--"), let colon = text.firstIndex(of: ":") else { continue }
                let name = String(text[..<colon])
                declared.insert(name)
                #expect(!text[colon...].contains("var(\(name))"), "\(name) is set from itself")
            }
            for use in sheet.components(separatedBy: "var(").dropFirst() {
                let name = String(use.prefix { $0 != ")" && $0 != "," })
                #expect(declared.contains(name) || setByTheApp.contains(name), "var(\(name)) is never set")
                if let close = use.firstIndex(of: ")"), name == String(use[..<close]) {
                    let after = use[use.index(after: close)...].first
                    #expect(after.map { !$0.isLetter && !$0.isNumber } ?? true, "var(\(name)) runs on into \(use.prefix(40))")
                }
            }
        }
    }

    /// Scripts and the style sheet are sent without comments and indentation; that
    /// is only safe while no string or template literal runs over a line's end, so every file
    /// is checked for it here.
    @Test func scriptsAreSentWithoutCommentsAndNoStringSpansLines() async throws {
        let folder = Self.sourceFolder
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".js") }
        #expect(names.count >= 8)
        for name in names {
            let source = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                #expect(line.filter { $0 == "`" }.count % 2 == 0, "\(name):\(number + 1) opens a template literal it does not close")
                #expect(!line.hasSuffix("\\"), "\(name):\(number + 1) continues a string on the next line")
            }
        }
        // A comment at a line's end goes too, where what is before it is plainly outside any
        // string; where it might not be, the line is kept whole.
        let compacted = String(
            decoding: WebController.compact(
                "a();\n  // gone\n  /** gone\n   * gone */\n  b(); // gone too\n/* gone */ c();\n\n"
                    + "d(\"x // y\"); // kept\ne(\"http://a\"); // kept\nf('it\\'s'); // kept\n"),
            as: UTF8.self)
        #expect(compacted == "a();\nb();\nc();\nd(\"x // y\"); // kept\ne(\"http://a\"); // kept\nf('it\\'s'); // kept\n")
        try await withServer { client, _ in
            for path in ["/app/app.js", "/app/game.js", "/app/style.css"] {
                let sent = String(buffer: try await Self.get(client, path, [:]).body)
                #expect(!sent.split(separator: "\n").contains { $0.hasPrefix("//") || $0.hasPrefix(" ") || $0.hasPrefix("/*") }, "\(path)")
            }
        }
    }

    /// No module of the web app imports, statically or when a page loads, one that imports it
    /// (directly or further along): each can be read and loaded on its own.
    @Test func theWebAppHasNoImportCycle() throws {
        let folder = Self.sourceFolder
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".js") }
        var imports: [String: Set<String>] = [:]
        for name in names {
            let source = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            imports[name] = Set(source.matches(of: /(?:from|import\()\s*"\.\/([\w-]+\.js)"/).map { String($0.output.1) })
        }
        #expect(imports["app.js"]?.contains("game.js") == true, "the reading of imports found the shell's page import")
        // Depth-first, with the path so far: a module met again on its own path is a cycle.
        func cycle(from name: String, path: [String]) -> [String]? {
            if let start = path.firstIndex(of: name) { return Array(path[start...]) + [name] }
            for next in (imports[name] ?? []).sorted() {
                if let found = cycle(from: next, path: path + [name]) { return found }
            }
            return nil
        }
        for name in names.sorted() {
            let found = cycle(from: name, path: [])
            #expect(found == nil, "import cycle: \(found?.joined(separator: " → ") ?? "")")
        }
    }

    /// The app's folder in the source tree (the bundle's copy is what the server reads).
    static let sourceFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/CrossmateServer/Web").standardizedFileURL
}

/// The API's routes are spelled once (`APIRoute`): the server answers every one of them (none is
/// the router's "there is no …"), and the web app's routes module is made from the same table.
@Suite struct RouteTableTests {
    @Test func theServerAnswersEveryRouteOfTheTable() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            for route in APIRoute.all where route != .socket {
                let path = route.path(Array(repeating: "x", count: route.pattern.count { $0 == ":" }))
                let method = HTTPRequest.Method(rawValue: route.method.rawValue)!
                let response = try await client.send(
                    method, path, token: ann.token, raw: route.method == .get || route.method == .delete ? nil : "{}")
                let body = String(buffer: response.body)
                #expect(!body.contains("there is no \(route.method.rawValue)"), "\(route.name) \(path) is not registered: \(body)")
            }
        }
    }

    @Test func theWebAppsRoutesComeFromTheTable() async throws {
        try await withServer { client, _ in
            let module = String(buffer: try await client.send(.get, "/app/routes.js").body)
            for route in APIRoute.all { #expect(module.contains(#"\#(route.name): ["\#(route.method.rawValue)", "/\#(route.pattern)"]"#)) }
            #expect(APIRoute.pushMoves.path("game 1") == "/v1/games/game%201/moves")
            #expect(Set(APIRoute.all.map(\.name)).count == APIRoute.all.count)
        }
    }

    /// Every row of the table is an endpoint's (a route with its body and answer types), but for
    /// the routes answered with a file and the socket; a route that takes a body is a POST or a
    /// PUT, and one without a body is called so.
    @Test func everyJSONRouteIsAnEndpoint() {
        func row<Body, Answer>(_ endpoint: Endpoint<Body, Answer>) -> (APIRoute, takesBody: Bool) {
            (endpoint.route, Body.self != NoBody.self)
        }
        let endpoints = [
            row(Endpoint.createAccount), row(Endpoint.me), row(Endpoint.rename), row(Endpoint.createLinkCode), row(Endpoint.linkDevice),
            row(Endpoint.devices), row(Endpoint.revokeDevice), row(Endpoint.socketTicket), row(Endpoint.feed), row(Endpoint.stats),
            row(Endpoint.createGame), row(Endpoint.games), row(Endpoint.pushMoves), row(Endpoint.changes), row(Endpoint.snapshot),
            row(Endpoint.resign), row(Endpoint.seal), row(Endpoint.pause), row(Endpoint.presence), row(Endpoint.postMessage),
            row(Endpoint.postReaction), row(Endpoint.postFlag), row(Endpoint.nudge), row(Endpoint.invite), row(Endpoint.invitations),
            row(Endpoint.revokeLink), row(Endpoint.previewInvitation), row(Endpoint.revokeInvitation), row(Endpoint.acceptInvitation),
            row(Endpoint.leave), row(Endpoint.removePlayer), row(Endpoint.friends), row(Endpoint.decide), row(Endpoint.preferences),
            row(Endpoint.settings), row(Endpoint.putSetting), row(Endpoint.pushKey), row(Endpoint.pushSubscribe),
            row(Endpoint.pushUnsubscribe), row(Endpoint.puzzle),
        ]
        let typed = Set(endpoints.map(\.0))
        #expect(typed.count == endpoints.count, "an endpoint is listed twice")
        #expect(Set(APIRoute.all).subtracting(typed) == [.exportGame, .exportAll, .puzzles, .socket])
        for (route, takesBody) in endpoints where takesBody {
            #expect(route.method == .post || route.method == .put, "\(route.name) takes a body on \(route.method.rawValue)")
        }
    }

    /// Every parameter a route's pattern names is one the routes read by name (`RouteParameter`),
    /// and every one of those is named by some pattern.
    @Test func routeParametersAreSpelledOnce() {
        let named = Set(APIRoute.all.flatMap { $0.pattern.split(separator: "/").filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) } })
        #expect(named == Set(RouteParameter.allCases.map(\.rawValue)))
    }

    /// The sizes the web app checks before it sends come from the server's one limits table, not
    /// numbers copied into the scripts.
    @Test func theWebAppsLimitsComeFromTheTable() async throws {
        try await withServer { client, _ in
            let module = String(buffer: try await client.send(.get, "/app/limits.js").body)
            #expect(Limits.forTheWebApp.count >= 5)
            for (name, value) in Limits.forTheWebApp { #expect(module.contains("\(name): \(value),"), "\(name)") }
            #expect(module.contains("chatMessageBytes: \(Chat.maximumBytes),") && module.contains("squareLetters: \(SquareText.maximumLength),"))
            // No script repeats one of those numbers as a size of its own.
            for name in try FileManager.default.contentsOfDirectory(atPath: WebAssetTests.sourceFolder.path) where name.hasSuffix(".js") {
                let source = try String(contentsOf: WebAssetTests.sourceFolder.appendingPathComponent(name), encoding: .utf8)
                let copied =
                    source.contains(/(MAXIMUM|LIMIT)_[A-Z_]+ = \d/) || source.contains(#"maxlength: "\#(ProtocolLimits.maximumDisplayNameLength)""#)
                    || source.contains(#"maxlength: "\#(Limits.nudgeMessageBytes)""#)
                #expect(!copied, "\(name) copies a limit of the server's table")
            }
        }
    }
}
