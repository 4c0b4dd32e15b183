import Foundation

/// Where a device's local store lives. One machine can be several devices: each profile has its
/// own store (`--profile NAME` or `CROSSMATE_PROFILE`, default `default`), under
/// `$XDG_DATA_HOME/crossmate/profiles/NAME` (or `~/.local/share/crossmate/profiles/NAME`).
public struct Profile: Hashable, Sendable {
    public let name: String
    public let directory: String

    public enum Failure: Error, Hashable, CustomStringConvertible {
        case invalidName(String)

        public var description: String {
            switch self {
            case let .invalidName(name):
                "\"\(name.prefix(80))\" cannot name a profile: use 1 to 64 letters, digits, '-' or '_'"
            }
        }
    }

    /// The profile called `name` (or the environment's, or `default`), in `environment`'s data home.
    public init(name: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws(Failure) {
        let chosen = name ?? environment["CROSSMATE_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        guard (1...64).contains(chosen.utf8.count),
            chosen.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") })
        else { throw .invalidName(chosen) }
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? FileManager.default.currentDirectoryPath) + "/.local/share"
        self.name = chosen
        directory = dataHome + "/crossmate/profiles/" + chosen
    }

    /// The local store's database file.
    public var databasePath: String { directory + "/client.sqlite" }
}
