import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import Foundation
import Hummingbird
import NIOCore

/// The web app: plain HTML, CSS and JavaScript modules shipped with the server (no build step,
/// nothing fetched from elsewhere). Every page path answers the one HTML page; the app reads
/// the path. Bundled puzzles' layouts are served for the start page and the browser tests.
struct WebController {
    let state: ServerState

    /// The app's files, read once from the bundle.
    static let files: [String: (type: String, bytes: ByteBuffer)] = {
        guard let folder = Bundle.module.url(forResource: "Web", withExtension: nil),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [:] }
        var files: [String: (String, ByteBuffer)] = [:]
        for name in names {
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(name)) else { continue }
            files[name] = (contentType(of: name), ByteBuffer(bytes: data))
        }
        return files
    }()

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json", "webmanifest": "application/json"
        default: "application/octet-stream"
        }
    }

    /// Only this server's own scripts, styles and socket; nothing from elsewhere.
    static let policy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    func addRoutes(to router: Router<CrossmateRequestContext>) {
        for path in ["/", "games/:game", "join/:token", "link", "friends"] {
            router.get(RouterPath(path)) { _, _ in try page("index.html") }
        }
        router.get("app/:file") { _, context in try page(try context.parameters.require("file")) }
        // The service worker sits at the root so it may serve every page path offline.
        router.get("sw.js") { _, _ in
            var response = try page("sw.js")
            response.headers[.init("Service-Worker-Allowed")!] = "/"
            return response
        }
        router.get("v1") { _, _ -> Response in
            try ServerState.json([
                "service": "crossmate", "app": "/", "api": "/v1", "health": "/healthz", "metrics": "/metrics",
                "bundledPuzzles": BundledPuzzles.identifiers.joined(separator: ", "),
            ])
        }
        router.get("v1/puzzles") { _, _ -> Response in
            try ServerState.json(BundledList(puzzles: try Self.bundled.map(\.summary), serverTime: state.now()))
        }
        router.get("v1/puzzles/:name") { _, context -> Response in
            let name = try context.parameters.require("name")
            guard let found = try Self.bundled.first(where: { $0.summary.name == name }) else {
                throw APIError(
                    .notFound, "there is no bundled puzzle \(TextRule.quote(name)) (try \(BundledPuzzles.identifiers.joined(separator: ", ")))")
            }
            return try ServerState.json(PuzzleLayout(found.puzzle))
        }
    }

    private func page(_ name: String) throws -> Response {
        guard let file = Self.files[name] else { throw APIError(.notFound, "there is no file \(TextRule.quote(name)) in the web app") }
        var headers: HTTPFields = [.contentType: file.type, .cacheControl: "no-cache"]
        headers[.contentSecurityPolicy] = Self.policy
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: file.bytes))
    }

    struct BundledList: Codable {
        struct Entry: Codable {
            var name: String
            var title: String
            var author: String
            var width: Int
            var height: Int
        }
        var puzzles: [Entry]
        var serverTime: Int64
    }

    static let bundledPuzzles: Result<[(summary: BundledList.Entry, puzzle: Puzzle)], any Error> = Result {
        try BundledPuzzles.identifiers.map { name in
            let puzzle = try BundledPuzzles.puzzle(name)
            return (BundledList.Entry(name: name, title: puzzle.title, author: puzzle.author, width: puzzle.width, height: puzzle.height), puzzle)
        }
    }

    static var bundled: [(summary: BundledList.Entry, puzzle: Puzzle)] {
        get throws { try bundledPuzzles.get() }
    }
}
