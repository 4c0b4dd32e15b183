import CompressNIO
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateStore
import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// The web app: plain HTML, CSS and JavaScript modules shipped with the server (no build step,
/// nothing fetched from elsewhere). Every page path answers the one HTML page; the app reads
/// the path. Bundled puzzles' layouts are served for the start page and the browser tests.
struct WebController {
    let clock: @Sendable () -> Int64
    /// Who may make an account: the first page says how to get in.
    let signups: Signups
    /// Whether the server has an account yet (with sign-ups by invitation, the first is open).
    let hasAccounts: @Sendable () async throws -> Bool

    /// One file of the app as served: its bytes, gzipped once (kept only when smaller), and an
    /// entity tag that names its content, so a browser revalidating an unchanged file gets a 304.
    struct Asset: Sendable {
        var type: String
        var bytes: ByteBuffer
        var gzipped: ByteBuffer?
        var etag: String
    }

    /// The app's files as served, each compressed once (`assets(of:)`).
    let files: [String: Asset]

    init(
        clock: @escaping @Sendable () -> Int64, app: AppFiles, signups: Signups = .open,
        hasAccounts: @escaping @Sendable () async throws -> Bool = { true }
    ) {
        self.clock = clock
        self.signups = signups
        self.hasAccounts = hasAccounts
        files = Self.assets(of: app)
    }

    /// The app's files as served: scripts and styles compacted, everything gzipped once.
    static func assets(of app: AppFiles) -> [String: Asset] {
        var files: [String: Asset] = [:]
        for (name, data) in app.files {
            let bytes = name.hasSuffix(".js") || name.hasSuffix(".css") ? compact(String(decoding: data, as: UTF8.self)) : data
            files[name] = asset(type: contentType(of: name), bytes: bytes)
        }
        // The API's routes, from the one route table (`APIRoute`).
        files["routes.js"] = asset(type: contentType(of: "routes.js"), bytes: compact(APIRoute.javaScript))
        // The sizes the web app checks before it sends, from the one limits table (`Limits`).
        files["limits.js"] = asset(type: contentType(of: "limits.js"), bytes: compact(Limits.javaScript))
        return files
    }

    /// A script or style sheet as sent: without its whole-line comments, indentation and blank
    /// lines (about a sixth of what a first load transfers). Only whole lines go, so nothing
    /// inside a line changes; that is safe while no string runs over a line end, which
    /// `WebAssetTests` checks of every file (no template literal spans lines).
    static func compact(_ source: String) -> [UInt8] {
        var kept: [Substring] = []
        var inComment = false
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.drop(while: { $0 == " " || $0 == "\t" })
            if inComment {
                if let end = text.range(of: "*/") {
                    inComment = false
                    let rest = text[end.upperBound...].drop(while: { $0 == " " })
                    if !rest.isEmpty { kept.append(rest) }
                }
                continue
            }
            if text.isEmpty || text.hasPrefix("//") { continue }
            if text.hasPrefix("/*") {
                guard let end = text.range(of: "*/") else {
                    inComment = true
                    continue
                }
                let rest = text[end.upperBound...].drop(while: { $0 == " " })
                if !rest.isEmpty { kept.append(rest) }
                continue
            }
            kept.append(withoutTrailingComment(text))
        }
        return Array(kept.joined(separator: "\n").utf8) + [UInt8(ascii: "\n")]
    }

    /// A line without a comment at its end (`code(); // why`), when what comes before the
    /// comment is plainly outside any string: an even number of each quote, none escaped.
    static func withoutTrailingComment(_ line: Substring) -> Substring {
        guard let comment = line.range(of: " // ") else { return line }
        let before = line[..<comment.lowerBound]
        guard !before.contains("\\"), !before.contains("/"),
            ["\"", "'", "`"].allSatisfy({ quote in before.filter { $0 == quote }.count.isMultiple(of: 2) })
        else { return line }
        var end = before.endIndex
        while end > before.startIndex, before[before.index(before: end)] == " " { end = before.index(before: end) }
        return end == before.startIndex ? line : before[..<end]
    }

    static func asset(type: String, bytes: [UInt8]) -> Asset {
        var plain = ByteBuffer(bytes: bytes)
        var gzipped = try? plain.compress(with: .gzip(configuration: .init(compressionLevel: 9)))
        if let compressed = gzipped, compressed.readableBytes >= bytes.count { gzipped = nil }
        // FNV-1a over the bytes: a content tag, not a secret.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Asset(type: type, bytes: ByteBuffer(bytes: bytes), gzipped: gzipped, etag: "\"\(String(hash, radix: 16))-\(bytes.count)\"")
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "webmanifest": "application/manifest+json"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }

    /// Only this server's own scripts, styles and socket; nothing from elsewhere.
    static let policy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    /// This controller's routes, for the application's router.
    var routes: RouteCollection<CrossmateRequestContext> {
        let router = RouteCollection(context: CrossmateRequestContext.self)
        for path in ["/", "games/:game", "join/:token", "link", "friends", "stats"] {
            router.get(RouterPath(path)) { request, _ in try page("index.html", for: request) }
        }
        router.get("app/:file") { request, context in try page(try context.parameters.require("file"), for: request) }
        // The service worker sits at the root so it may serve every page path offline.
        router.get("sw.js") { request, _ in
            var response = try page("sw.js", for: request)
            response.headers[.init("Service-Worker-Allowed")!] = "/"
            return response
        }
        router.get("v1") { _, _ -> [String: String] in
            // By invitation, a server with no account yet takes its host's first.
            var said = signups.rawValue
            if signups == .invite, try await !hasAccounts() { said = "first" }
            return [
                "service": "crossmate", "app": "/", "api": "/v1", "health": "/healthz", "metrics": "/metrics",
                "bundledPuzzles": BundledPuzzles.identifiers.joined(separator: ", "), "signups": said,
                "version": Release.version,
            ]
        }
        router.on(
            .puzzles,
            answeredWith: { _, _ -> BundledList in
                BundledList(puzzles: try Self.bundled.map(\.summary), serverTime: clock())
            })
        router.on(
            .puzzle,
            use: { _, context -> PuzzleLayout in
                let name = try context.parameter(.name)
                guard let found = try Self.bundled.first(where: { $0.summary.name == name }) else {
                    throw APIError(
                        .notFound, "there is no bundled puzzle \(TextRule.quote(name)) (try \(BundledPuzzles.identifiers.joined(separator: ", ")))")
                }
                return PuzzleLayout(found.puzzle)
            })
        return router
    }

    /// A file of the app: gzipped for a browser that takes it, and a 304 without a body when
    /// the browser already holds this version (`no-cache` makes it ask each time; the answer is
    /// then a few hundred bytes).
    private func page(_ name: String, for request: Request) throws -> Response {
        guard let file = files[name] else { throw APIError(.notFound, "there is no file \(TextRule.quote(name)) in the web app") }
        var headers: HTTPFields = [.contentType: file.type, .cacheControl: "no-cache", .eTag: file.etag, .vary: "Accept-Encoding"]
        headers[.contentSecurityPolicy] = Self.policy
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        let known = request.headers[values: .ifNoneMatch].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        if known.contains(file.etag) || known.contains("*") {
            return Response(status: .notModified, headers: headers)
        }
        let accepted = request.headers[values: .acceptEncoding].joined(separator: ",").lowercased()
        if let gzipped = file.gzipped,
            accepted.split(separator: ",").contains(where: { $0.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "gzip" })
        {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: gzipped))
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: file.bytes))
    }

    struct BundledList: Codable, ResponseEncodable {
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

/// Whether the server has an account yet. Once it has, it always has: the store is asked only
/// until then, so `/v1`, which anyone may ask as often as they like, costs no read after that.
final class AccountsMade: Sendable {
    private let known = Atomic(false)
    private let store: Store

    init(store: Store) {
        self.store = store
    }

    func check() async throws -> Bool {
        if known.load(ordering: .relaxed) { return true }
        let made = try await store.hasAccounts()
        if made { known.store(true, ordering: .relaxed) }
        return made
    }
}
