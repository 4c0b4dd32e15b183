import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Logging

/// Everything `crossmate serve` can be told, by flags or environment variables.
public struct ServerConfiguration: Sendable {
    public enum Storage: Sendable {
        /// An SQLite file at this path.
        case sqlite(path: String)
        /// A PostgreSQL database shared by several instances.
        case postgres(url: String)

        /// The engine's name, for the metrics' build information.
        public var engineName: String {
            switch self {
            case .sqlite: "sqlite"
            case .postgres: "postgresql"
            }
        }
    }

    public var host = "127.0.0.1"
    /// With PostgreSQL, how often each instance tells the others who shows its games; what it
    /// told holds three times as long (a dead instance's players drop out after that).
    public var viewersEvery = Duration.seconds(10)
    /// Who may make an account (`Signups`): anyone (the default), only through an invitation,
    /// or no one new.
    public var signups = Signups.open
    /// 0 picks a free port (tests).
    public var port = 8080
    public var storage: Storage
    /// How far ahead of the server's clock a move may be stamped.
    public var maximumSkewMillis: Int64 = 60_000
    /// A snapshot is written after this many moves, and at completion (tests shorten it with
    /// `CROSSMATE_TEST_SNAPSHOT_EVERY`).
    public var snapshotInterval = 200
    /// Per-device token bucket: burst size and refill per second.
    public var rateLimitBurst = Limits.request.burst
    public var rateLimitPerSecond = Limits.request.perSecond
    /// Per-device token bucket for socket messages other than pushes (cursors, pings,
    /// subscribes): a player moves their cursor a few times a second.
    public var socketRateLimitBurst = Limits.socketMessage.burst
    public var socketRateLimitPerSecond = Limits.socketMessage.perSecond
    /// Per-address token bucket for creating accounts.
    public var accountRateLimitBurst = 10.0
    public var accountRateLimitPerSecond = 0.1
    /// How much may wait to be sent on one WebSocket. A device that stops reading (or reads
    /// slower than its games change) is disconnected at this point rather than buffered for
    /// without bound; it fetches what it missed when it reconnects.
    public var socketBufferBytes = 1 << 20
    /// How long a browser's hosted replica outlives its last socket: a browser that reconnects
    /// within it finds the commands it already sent answered (and not performed twice).
    public var browserReplicaGraceMillis: Int64 = 300_000
    /// How long a page with a game open may be hidden (a phone in a pocket, another tab in
    /// front) before its device counts as away from the game: no lease, not "here", called back
    /// as any device that left. Shown again, it is back. Tests shorten it
    /// (`CROSSMATE_TEST_BROWSER_HIDDEN_GRACE_MS`).
    public var browserHiddenGraceMillis: Int64 = Presence.awayGraceMillis
    /// How often changed games' list summaries are stored and idle browser replicas (older than
    /// the grace above) are freed.
    public var housekeepingInterval = Duration.seconds(2)
    /// The least time between the starts of two group commits of moves: zero commits as soon as
    /// the writer is free (the lowest latency); a millisecond or two gathers more pushes into each
    /// transaction and fsync, for less CPU per move (see BENCHMARKS.md).
    public var commitInterval = Duration.zero
    /// How long a group commit's transaction gathers pushes (`Store.init`; SQLite only): only
    /// while more are on their way, and ten milliseconds at most. A lone keystroke on a quiet
    /// server commits at once; under load each fsync is shared among up to
    /// `Store.commitWindowBatches` pushes (BENCHMARKS.md). A push someone hears before its commit
    /// is relayed the moment it arrives whatever the window; every push is acknowledged at the
    /// COMMIT.
    public var commitWindow = CommitWindow.adaptive(maximum: .milliseconds(10))
    /// For crash tests only: the group commit of moves with this number (1 is the first) stops
    /// just before its COMMIT, after its moves were relayed to hosted browser replicas, and never
    /// goes on; the test then kills the process. Nil (always, in use) holds nothing.
    public var holdGroupCommit: Int?
    /// For crash tests only: false stands for a server that dies between a commit and telling
    /// the sockets that took its moves as relays that they are on disk (`SocketHub.poke`).
    public var commitNotices = true
    /// Whether Web Push subscriptions may name `http://127.0.0.1` endpoints: for tests, where a
    /// local endpoint stands in for a push service (`CROSSMATE_PUSH_ALLOW_LOOPBACK=1`).
    public var pushAllowLoopback = false
    /// How long after a game's moves were weighed for call-backs its next moves wait to be
    /// weighed (they are looked at again when it ends). Tests shorten it
    /// (`CROSSMATE_TEST_PUSH_MOVES_WINDOW_MS`).
    public var pushMovesWindowMillis: Int64 = 30_000
    /// Uploaded puzzle files parsed or waiting to be parsed at once; more are refused as busy.
    public var maximumConcurrentUploads = 8
    /// Timeouts and sizes for HTTP requests (`HTTPGuard`).
    public var httpLimits = HTTPLimits()
    public var linkCodeLifetimeMillis: Int64 = 10 * 60 * 1000
    /// Where players reach this server (`--public-url`, e.g. `https://crossmate.example.org`):
    /// invitation links carry it, and the start-up line names it. Nil: links are paths, which
    /// each client joins to the address it reached the server at.
    public var publicURL: String?
    /// Reverse proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`); every
    /// other peer is taken as the client itself.
    public var trustedProxies: Set<String> = []
    public var logLevel: Logger.Level = .info
    /// The server's clock in Unix milliseconds; tests inject their own.
    public var clock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }

    public init(storage: Storage) {
        self.storage = storage
    }

    /// A public URL as `--public-url` takes it: http or https, a host, no path beyond `/`, no
    /// query, user or fragment; returned without its trailing slash.
    public static func validatedPublicURL(_ text: String) throws(ConfigurationError) -> String {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil, url.password == nil,
            url.path.isEmpty || url.path == "/"
        else {
            throw ConfigurationError(
                "the public URL must be http:// or https:// and a host (and port), with no path, such as https://crossmate.example.org, not \(text)")
        }
        return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
    }

    /// The SQLite database a data directory holds: `--data`, else `CROSSMATE_DATA`, else the
    /// default directory, and `crossmate.sqlite` in it (`serve`, `backup` and `restore` alike).
    public static func sqlitePath(dataDirectory given: String?) -> String {
        (given ?? ProcessInfo.processInfo.environment["CROSSMATE_DATA"] ?? defaultDataDirectory) + "/crossmate.sqlite"
    }

    /// The default data directory: `$XDG_DATA_HOME/crossmate`, else `~/.local/share/crossmate`.
    public static var defaultDataDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/crossmate" }
        return (environment["HOME"] ?? FileManager.default.currentDirectoryPath) + "/.local/share/crossmate"
    }
}

/// A setting `crossmate serve` cannot start with, in words.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
