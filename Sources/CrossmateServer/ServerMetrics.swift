import CrossmateProtocol
import Foundation
import Prometheus
import Synchronization

/// The server's metrics, in this instance's Prometheus registry (not the process-wide one, so
/// several servers in one test process keep separate counts). Every metric carries its `# HELP`.
public final class ServerMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    let requests: Counter
    let movesIngested: Counter
    let connectedSockets: Gauge
    /// Browsers' replicas the server hosts (one per browser device and open game).
    let browserReplicas: Gauge
    /// Games whose merged grid this instance holds (read when the metrics are).
    let gameProjections: Gauge
    let pushLatency: DurationHistogram
    /// Group commits of moves: each transaction's duration and how many pushes it held.
    let commitDuration: DurationHistogram
    let commitBatches: ValueHistogram
    /// Web Push: pushes answered 2xx, pushes dropped (a full queue, a resting or overused
    /// endpoint), and the time from a push's queueing to its answer.
    let webPushesSent: Counter
    let webPushesDropped: Counter
    let webPushDuration: DurationHistogram
    /// Web Push: pushes waiting for their turn (read when the metrics are).
    let webPushesWaiting: Gauge
    /// Exports being written now (a game's file, or every game's zip).
    let exportsRunning: Gauge
    /// Replays assembled from a finished game's moves (a replay asked for again is kept).
    let replaysAssembled: Counter
    /// 1 while the database answered the last look (`/healthz`, `/metrics`), else 0.
    let databaseUp: Gauge
    private let process = ProcessMetrics()

    static let durations: [Duration] = [
        .microseconds(250), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
        .milliseconds(50), .milliseconds(100), .milliseconds(500), .seconds(1),
    ]

    init() {
        let r = registry
        requests = r.makeCounter(descriptor: .named("crossmate_requests_total", help: "Requests and socket messages handled, of every kind."))
        movesIngested = r.makeCounter(descriptor: .named("crossmate_moves_ingested_total", help: "Moves committed from devices and browsers."))
        replaysAssembled = r.makeCounter(
            descriptor: .named("crossmate_replays_assembled_total", help: "Replays assembled from a finished game's moves."))
        webPushesSent = r.makeCounter(descriptor: .named("crossmate_web_pushes_sent_total", help: "Web Pushes a push service accepted (2xx)."))
        webPushesDropped = r.makeCounter(
            descriptor: .named("crossmate_web_pushes_dropped_total", help: "Web Pushes dropped: a full queue, a resting or overused endpoint."))
        webPushesWaiting = r.makeGauge(descriptor: .named("crossmate_web_pushes_waiting", help: "Web Pushes queued and waiting for their turn."))
        exportsRunning = r.makeGauge(
            descriptor: .named("crossmate_exports_running", help: "Exports (one game's file or every game's zip) being written."))
        connectedSockets = r.makeGauge(descriptor: .named("crossmate_connected_sockets", help: "WebSockets open on this instance."))
        browserReplicas = r.makeGauge(
            descriptor: .named("crossmate_browser_replicas", help: "Browser replicas hosted (one per browser device and open game)."))
        gameProjections = r.makeGauge(
            descriptor: .named("crossmate_game_projections", help: "Games whose merged grid this instance holds in memory."))
        databaseUp = r.makeGauge(
            descriptor: .named("crossmate_database_up", help: "1 while the database answered the last look, 0 while it is away."))
        pushLatency = r.makeDurationHistogram(
            descriptor: .named("crossmate_push_latency_seconds", help: "From a push of moves arriving to its answer."), buckets: Self.durations)
        webPushDuration = r.makeDurationHistogram(
            descriptor: .named("crossmate_web_push_seconds", help: "From a Web Push queued to the push service's answer."), buckets: Self.durations)
        commitDuration = r.makeDurationHistogram(
            descriptor: .named("crossmate_commit_seconds", help: "Each group commit of moves, start to durable."), buckets: Self.durations)
        commitBatches = r.makeValueHistogram(
            descriptor: .named("crossmate_commit_batches", help: "Pushes of moves one group commit held."),
            buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
    }

    /// This build and its database, as a gauge of 1 whose labels say it (the Prometheus way to
    /// publish facts that are text).
    func recordBuild(version: String, commit: String, engine: String, schema: Int64) {
        registry.makeGauge(
            descriptor: .named("crossmate_build_info", help: "This build of Crossmate and its database: always 1, described by its labels."),
            labels: [("version", version), ("commit", commit), ("engine", engine), ("schema", String(schema))]
        ).set(1.0)
    }

    func recordCommit(batches: Int, duration: Duration) {
        commitDuration.record(duration)
        commitBatches.record(Double(batches))
    }

    /// A request answered: counted by route (its pattern, never its path: the number of series
    /// is bounded by the route table), method and status class. Errors are counted apart.
    func recordRequest(route: String, method: String, status: Int) {
        let statusClass = "\(status / 100)xx"
        registry.makeCounter(
            descriptor: .named("crossmate_http_requests_total", help: "HTTP requests answered, by route pattern, method and status class."),
            labels: [("route", route), ("method", method), ("status", statusClass)]
        ).increment()
        if status >= 500 {
            registry.makeCounter(
                descriptor: .named(
                    "crossmate_http_errors_total", help: "HTTP requests that failed on the server's side (5xx), by route pattern and method."),
                labels: [("route", route), ("method", method)]
            ).increment()
        }
    }

    /// The Prometheus text exposition, with the process's figures read now.
    func render() -> String {
        process.update(registry)
        return registry.emitToString()
    }
}

/// The process's own figures, read from `/proc` when the metrics are (the names every Prometheus
/// client uses: `process_cpu_seconds_total`, `process_resident_memory_bytes`, …). Elsewhere
/// than Linux they are left out.
final class ProcessMetrics: Sendable {
    /// The kernel's clock ticks per second and page size, which `/proc/self/stat` counts in.
    private let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    private let pageBytes = Double(sysconf(Int32(_SC_PAGESIZE)))
    /// The CPU time already counted: the counter is moved on by what was spent since.
    private let counted = Mutex(0.0)

    func update(_ registry: PrometheusCollectorRegistry) {
        #if os(Linux)
            guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return }
            // Fields after the command's name, which may hold spaces: state is field 3.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            func field(_ number: Int) -> Double? { fields.count > number - 3 ? Double(fields[number - 3]) : nil }
            if let user = field(14), let system = field(15), ticks > 0 {
                let spent = (user + system) / ticks
                let more = counted.withLock { counted in
                    defer { counted = max(counted, spent) }
                    return max(0, spent - counted)
                }
                registry.makeCounter(descriptor: .named("process_cpu_seconds_total", help: "User and system CPU time spent, in seconds.")).increment(
                    by: more)
            }
            if let virtual = field(23) {
                registry.makeGauge(descriptor: .named("process_virtual_memory_bytes", help: "Virtual memory size in bytes.")).set(virtual)
            }
            if let resident = field(24) {
                registry.makeGauge(descriptor: .named("process_resident_memory_bytes", help: "Resident memory size in bytes.")).set(
                    resident * pageBytes)
            }
            if let started = field(22), ticks > 0, let uptime = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
                let since = uptime.split(separator: " ").first.flatMap({ Double($0) })
            {
                let boot = Date().timeIntervalSince1970 - since
                registry.makeGauge(
                    descriptor: .named("process_start_time_seconds", help: "Start time of the process since the Unix epoch, in seconds.")
                )
                .set(boot + started / ticks)
            }
            if let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
                registry.makeGauge(descriptor: .named("process_open_fds", help: "Open file descriptors.")).set(Double(open.count))
            }
            var limit = rlimit()
            if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
                registry.makeGauge(descriptor: .named("process_max_fds", help: "The most file descriptors the process may open.")).set(
                    Double(limit.rlim_cur))
            }
        #endif
    }
}

extension MetricNameDescriptor {
    /// A metric's whole name and its `# HELP` text.
    static func named(_ name: String, help: String) -> Self { .init(metricName: name, unitName: "", helpText: help) }
}

extension Duration {
    var inNanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
    var inMilliseconds: Int64 { inNanoseconds / 1_000_000 }
}
