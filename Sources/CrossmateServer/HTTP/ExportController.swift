import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Games as puzzle files, so a player can take them to another app: one game
/// (`GET /v1/games/{id}/export?format=puz&fill=1`) or their latest games in a zip
/// (`GET /v1/export`). Only a player of a game can export it; a removed player still can (the
/// game stays readable to them). Costs are in `Limits.gameExport` and `Limits.allGamesExport`.
struct ExportController {
    let store: Store
    let exports: GameExports
    let gameLimiter = RateLimiter(Limits.gameExport.perAccount!)
    let allLimiter = RateLimiter(Limits.allGamesExport.perAccount!)
    let clock: @Sendable () -> Int64

    var routes: RouteCollection<CrossmateRequestContext> {
        let router = RouteCollection(context: CrossmateRequestContext.self)
        router.on(.exportGame, answeredWith: exportGame)
        router.on(.exportAll, answeredWith: exportAll)
        return router
    }

    /// The format and whether the fill goes with it, from the query.
    static func options(_ request: Request) throws -> (PuzzleFormat, Bool) {
        let query = request.uri.queryParameters
        let named = query["format"].map(String.init) ?? "ipuz"
        guard let format = PuzzleFormat(rawValue: named.lowercased()) else {
            throw APIError(.invalid, "format is puz, ipuz, jpz or xd, not \(TextRule.quote(named, maximumBytes: 16))")
        }
        let fill = ["1", "true", "yes"].contains(query["fill"].map(String.init) ?? "0")
        if fill, !format.keepsFill {
            throw APIError(.invalid, "an .xd file keeps no player's letters; export the fill as .puz, .ipuz or .jpz")
        }
        return (format, fill)
    }

    func limit(_ limiter: RateLimiter, _ device: StoredDevice, what: String) throws {
        try limiter.admit(device.authorID, now: clock()) { "you exported \(what) a moment ago; you can again in \($0) s" }
    }

    static func attachment(_ bytes: [UInt8], name: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    @Sendable func exportGame(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let (format, fill) = try Self.options(request)
        let (game, _) = try await store.access(gameID, for: device, write: false)
        try limit(gameLimiter, device, what: "a game")
        let file = try await exports.file(game, format: format, fill: fill)
        return Self.attachment(file.bytes, name: file.name, type: format == .ipuz ? "application/json" : "application/octet-stream")
    }

    @Sendable func exportAll(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let (format, fill) = try Self.options(request)
        try limit(allLimiter, device, what: "all your games")
        let zip = try await exports.zip(of: device.authorID, format: format, fill: fill)
        return Self.attachment(zip, name: "crossmate-games.zip", type: "application/zip")
    }
}

extension HTTPField.Name {
    static let contentDisposition = Self("Content-Disposition")!
}
