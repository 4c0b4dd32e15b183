import Foundation
import Testing

/// The server's layers point one way: `Application/` (the write path, the projections, the
/// rules of access) names no type defined in `HTTP/`, `Realtime/`, `Browsers/` or `Push/`, which
/// call it. The write path publishes facts (`Facts`); the outer layers listen.
@Suite struct LayerTests {
    static let server = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/CrossmateServer")

    static func swiftFiles(in folder: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: server.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }
    }

    /// The types a folder's files declare.
    static func declared(in folder: String) throws -> Set<String> {
        var names: Set<String> = []
        let declaration = /(?m)^(?:public |final |private |fileprivate |indirect )*(?:struct|class|enum|actor|protocol|typealias) ([A-Z][A-Za-z0-9]*)/
        for file in try swiftFiles(in: folder) {
            for match in try String(contentsOf: file, encoding: .utf8).matches(of: declaration) { names.insert(String(match.1)) }
        }
        return names
    }

    @Test func applicationNamesNoTypeOfTheLayersThatCallIt() throws {
        var outer: Set<String> = []
        for folder in ["HTTP", "Realtime", "Browsers", "Push"] { outer.formUnion(try Self.declared(in: folder)) }
        #expect(outer.contains("SocketHub") && outer.contains("BrowserHost") && outer.count > 40, "\(outer.count) types read")
        var named: [String: Set<String>] = [:]
        for file in try Self.swiftFiles(in: "Application") {
            let text = try String(contentsOf: file, encoding: .utf8)
            // Words, outside comments: a type named in a comment points nowhere.
            let code = text.split(separator: "\n").map { line in
                line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            }
            let words = Set(code.flatMap { $0.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" }) }.map(String.init))
            for name in words.intersection(outer) { named[name, default: []].insert(file.lastPathComponent) }
        }
        #expect(named.isEmpty, "Application names \(named)")
    }

    /// Controllers call the application's verbs; they publish no fact of their own (only the
    /// write path does, and the fan-out, for what it hears from the other instances).
    @Test func onlyTheWritePathAndTheFanoutPublishFacts() throws {
        var publishers: Set<String> = []
        for folder in ["Application", "HTTP", "Realtime", "Browsers", "Push"] {
            for file in try Self.swiftFiles(in: folder) where try String(contentsOf: file, encoding: .utf8).contains("facts.publish(") {
                publishers.insert(folder + "/" + file.lastPathComponent)
            }
        }
        #expect(publishers == ["Application/GameWrites.swift", "Application/GameWrites+Accounts.swift", "Realtime/Fanout.swift"])
    }

    /// A route reads its body through its endpoint alone (`Incoming`, typed by the `Endpoint`
    /// it is registered by): no controller decodes a body of a type it names itself, and each
    /// body's limit is in the one list (`BodyLimits.swift`), not a number at the route.
    @Test func bodiesAreReadThroughTheirEndpoints() throws {
        var decoders: [String] = []
        var read = 0
        for file in try Self.swiftFiles(in: "HTTP") {
            let text = try String(contentsOf: file, encoding: .utf8)
            if text.contains("JSONBody.decode(") { decoders.append(file.lastPathComponent) }
            read += text.components(separatedBy: "incoming.decode(").count - 1
            if file.lastPathComponent.hasSuffix("Controller.swift") {
                #expect(!text.contains("maximumBodyBytes"), "\(file.lastPathComponent) sets a body limit of its own")
            }
        }
        #expect(decoders == ["RouteTable.swift"], "bodies decoded outside `Incoming`: \(decoders)")
        #expect(read >= 16, "\(read) bodies read")
    }
}
