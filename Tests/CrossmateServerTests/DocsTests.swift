import Foundation
import Testing

/// The map of the code (`docs/architecture.md`) names only what exists: every type (and member),
/// module and file it puts in backquotes is in the repository. A rename that leaves the map
/// behind fails here.
@Suite struct DocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every file under the root's `Sources`, `Tests`, `deploy` and `scripts`, by path from the root.
    static func files() -> [String] {
        var paths: [String] = []
        for folder in ["Sources", "Tests", "deploy", "scripts"] {
            let base = root.appendingPathComponent(folder)
            guard let walk = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let path as String in walk { paths.append(folder + "/" + path) }
        }
        return paths
    }

    /// The types the sources declare (the web app's classes too), and the names their
    /// functions, cases and properties take.
    static func declarations(in files: [String]) throws -> (types: Set<String>, members: Set<String>) {
        var types: Set<String> = []
        var members: Set<String> = []
        for path in files where path.hasPrefix("Sources/") && (path.hasSuffix(".swift") || path.hasSuffix(".js")) {
            let words = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
                .split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
            for (word, next) in zip(words, words.dropFirst()) {
                switch word {
                case "struct", "class", "enum", "actor", "protocol", "typealias": types.insert(String(next))
                case "func", "case", "var", "let": members.insert(String(next))
                default: break
                }
            }
        }
        return (types, members)
    }

    @Test func theArchitectureMapNamesOnlyWhatExists() throws {
        let map = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let files = Self.files()
        let (types, members) = try Self.declarations(in: files)
        let names = Set(map.matches(of: /`([^`\n]+)`/).map { String($0.1) })
        var missing: [String] = []
        var checked = 0
        for name in names.sorted() {
            if name.hasPrefix("/app/") {
                // A file the server serves: one of the web app's, or one it makes (`WebController`).
                let file = String(name.dropFirst(5))
                let made = try String(
                    contentsOf: Self.root.appendingPathComponent("Sources/CrossmateServer/HTTP/WebController.swift"), encoding: .utf8)
                if !files.contains("Sources/CrossmateServer/Web/" + file) && !made.contains(#"files["\#(file)"]"#) { missing.append(name) }
                checked += 1
            } else if name.wholeMatch(of: /[A-Za-z0-9_+.\/-]+\.(swift|js|json|md|sh|service|timer)|[A-Za-z]+\/|Caddyfile/) != nil {
                let bare = name.hasSuffix("/") ? String(name.dropLast()) : name
                if !files.contains(where: { $0 == bare || $0.hasSuffix("/" + bare) }) { missing.append(name) }
                checked += 1
            } else if name.wholeMatch(of: /[A-Z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)?/) != nil {
                let parts = name.split(separator: ".").map(String.init)
                let isModule = ["Sources/", "Tests/"].contains {
                    FileManager.default.fileExists(atPath: Self.root.appendingPathComponent($0 + parts[0]).path)
                }
                let isTest = files.contains { $0.hasSuffix("/" + parts[0] + ".swift") && $0.hasPrefix("Tests/") }
                var found = types.contains(parts[0]) || isModule || isTest
                if found, parts.count == 2 { found = members.contains(parts[1]) }
                if !found { missing.append(name) }
                checked += 1
            }
        }
        #expect(checked > 80, "\(checked) names checked")
        #expect(missing.isEmpty, "docs/architecture.md names what does not exist: \(missing)")
    }
}

/// No Swift file in `Sources` over 500 lines and no web app module over 400: a file that grows
/// past them is split by what its parts do.
@Suite struct FileSizeTests {
    @Test func noSourceFileIsOverItsLines() throws {
        var over: [String] = []
        for path in DocsTests.files() where path.hasPrefix("Sources/") {
            let limit = path.hasSuffix(".swift") ? 500 : path.hasSuffix(".js") ? 400 : nil
            guard let limit else { continue }
            let lines =
                try String(contentsOf: DocsTests.root.appendingPathComponent(path), encoding: .utf8).split(
                    separator: "\n", omittingEmptySubsequences: false
                ).count - 1
            if lines > limit { over.append("\(path): \(lines) lines, over \(limit)") }
        }
        #expect(over.isEmpty, "split these by what their parts do: \(over)")
    }
}
