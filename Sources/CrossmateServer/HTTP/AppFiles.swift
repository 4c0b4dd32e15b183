import Foundation

/// Where the web app's files come from. A release binary carries them inside itself: the release
/// script appends them to the stripped executable as a tar archive and a trailer naming its
/// length (`scripts/release.sh`), so the one installed file serves the app wherever it is put. A
/// build run from its checkout reads them from the checkout's `Sources/CrossmateServer/Web`,
/// which it finds by this file's path. Neither found: the server refuses to start, in words,
/// rather than failing at the first page.
struct AppFiles: Sendable {
    /// The files by name (`app.js`, `index.html`, …).
    var files: [String: [UInt8]]
    /// The commit the binary was built from, when known.
    var commit: String?
    /// Where they were read from, for the start line.
    var origin: String

    /// The trailer after the appended archive: the archive's length in 20 decimal digits, then
    /// this marker.
    static let marker = "CROSSMATE-FILES1"
    static let trailerBytes = 20 + 16
    /// An appended archive larger than this is not ours (the app is about 0.4 MB).
    static let maximumArchiveBytes = 64 << 20

    struct Missing: Error, CustomStringConvertible {
        var checkout: String
        var description: String {
            "the web app's files are neither inside this binary nor in its checkout (\(checkout)): install the binary that "
                + "scripts/release.sh packs (it carries them), or run the server from its checkout"
        }
    }

    /// The files, from the running binary or else from the checkout it was built from.
    static func load(executable: String? = Bundle.main.executablePath) throws -> AppFiles {
        if let executable, let embedded = try appended(to: executable) { return embedded }
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let folder = checkout.appendingPathComponent("Web")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path), names.contains("index.html") else {
            throw Missing(checkout: folder.path)
        }
        var files: [String: [UInt8]] = [:]
        for name in names where !name.hasPrefix(".") {
            if let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) { files[name] = Array(data) }
        }
        let root = checkout.deletingLastPathComponent().deletingLastPathComponent()
        return AppFiles(files: files, commit: GitHead.commit(of: root), origin: folder.path)
    }

    /// The archive appended to `path`, or nil when it carries none.
    static func appended(to path: String) throws -> AppFiles? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let end = try handle.seekToEnd()
        guard end > UInt64(trailerBytes) else { return nil }
        try handle.seek(toOffset: end - UInt64(trailerBytes))
        let trailer = String(decoding: try handle.read(upToCount: trailerBytes) ?? Data(), as: UTF8.self)
        guard trailer.hasSuffix(marker), let length = UInt64(trailer.prefix(20)), length > 0, length <= UInt64(maximumArchiveBytes),
            length <= end - UInt64(trailerBytes)
        else { return nil }
        try handle.seek(toOffset: end - UInt64(trailerBytes) - length)
        let archive = [UInt8](try handle.read(upToCount: Int(length)) ?? Data())
        var files: [String: [UInt8]] = [:]
        var commit: String?
        for (name, bytes) in try Tar.entries(archive) {
            if name == "commit" {
                commit = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            } else if name.hasPrefix("web/"), !name.dropFirst(4).contains("/"), name.count > 4 {
                files[String(name.dropFirst(4))] = bytes
            }
        }
        guard files["index.html"] != nil else { throw Missing(checkout: "\(path) carries an archive without the app") }
        return AppFiles(files: files, commit: commit, origin: "inside \(path)")
    }
}

/// Regular files of a ustar archive (as `tar --format=ustar` writes it): names and contents.
enum Tar {
    struct Malformed: Error, CustomStringConvertible {
        var description: String { "the web app's archive inside this binary is damaged; install the release archive again" }
    }

    static func entries(_ archive: [UInt8]) throws -> [(name: String, bytes: [UInt8])] {
        var entries: [(String, [UInt8])] = []
        var offset = 0
        while offset + 512 <= archive.count {
            let header = archive[offset..<offset + 512]
            if header.allSatisfy({ $0 == 0 }) { break }
            func text(_ range: Range<Int>) -> String {
                let field = archive[offset + range.lowerBound..<offset + range.upperBound]
                return String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let size = Int(text(124..<136).trimmingCharacters(in: .whitespaces), radix: 8), size >= 0,
                offset + 512 + size <= archive.count
            else { throw Malformed() }
            let prefix = text(345..<500)
            var name = (prefix.isEmpty ? "" : prefix + "/") + text(0..<100)
            while name.hasPrefix("./") { name.removeFirst(2) }
            let type = archive[offset + 156]
            if type == UInt8(ascii: "0") || type == 0 { entries.append((name, Array(archive[offset + 512..<offset + 512 + size]))) }
            offset += 512 + (size + 511) / 512 * 512
        }
        return entries
    }
}

/// The commit a checkout has out, read from its `.git` (a worktree's `.git` file names its own).
enum GitHead {
    static func commit(of root: URL) -> String? {
        let fileManager = FileManager.default
        var git = root.appendingPathComponent(".git")
        var isFolder: ObjCBool = false
        guard fileManager.fileExists(atPath: git.path, isDirectory: &isFolder) else { return nil }
        if !isFolder.boolValue {
            guard let link = read(git), link.hasPrefix("gitdir: ") else { return nil }
            let path = String(link.dropFirst("gitdir: ".count))
            git = path.hasPrefix("/") ? URL(fileURLWithPath: path) : root.appendingPathComponent(path)
        }
        guard let head = read(git.appendingPathComponent("HEAD")) else { return nil }
        guard head.hasPrefix("ref: ") else { return String(head.prefix(40)) }
        let ref = String(head.dropFirst("ref: ".count))
        let common = read(git.appendingPathComponent("commondir")).map { git.appendingPathComponent($0).standardizedFileURL } ?? git
        for folder in [git, common] {
            if let commit = read(folder.appendingPathComponent(ref)) { return String(commit.prefix(40)) }
        }
        let packed = read(common.appendingPathComponent("packed-refs")) ?? ""
        return packed.split(separator: "\n").first { $0.hasSuffix(" " + ref) }.map { String($0.prefix(40)) }
    }

    private static func read(_ url: URL) -> String? {
        (try? String(contentsOf: url, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
