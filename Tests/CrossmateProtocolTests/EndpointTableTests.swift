import CrossmateProtocol
import Foundation
import Testing

/// README's endpoint table names every route of the API (`APIRoute.all`), so a route added to
/// the one route table cannot be left out of the documentation.
@Suite struct EndpointTableTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("README.md")

    /// "GET /v1/games/ID/changes": a route as the table writes it, its parameters in capitals
    /// (`:game` and `:device` read ID).
    static func written(_ route: APIRoute) -> String {
        let path = route.pattern.split(separator: "/").map { segment -> String in
            guard segment.hasPrefix(":") else { return String(segment) }
            let name = segment.dropFirst()
            return name == "game" || name == "device" ? "ID" : name.uppercased()
        }.joined(separator: "/")
        return "\(route.method.rawValue) /\(path)"
    }

    @Test func everyRouteIsInTheEndpointTable() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let head = try #require(text.range(of: "| request | what it does |"), "README has no endpoint table")
        let table = text[head.upperBound...].prefix { _ in true }.split(separator: "\n\n", maxSplits: 1).first ?? ""
        // A route stands at the start of a code span, followed by its end, a space or a query.
        let missing = APIRoute.all.filter { route in
            let written = "`" + Self.written(route)
            return ![written + "`", written + " ", written + "?"].contains { table.contains($0) }
        }
        #expect(missing.isEmpty, "README's endpoint table lacks \(missing.map(Self.written))")
        #expect(APIRoute.all.count >= 44)
    }
}
