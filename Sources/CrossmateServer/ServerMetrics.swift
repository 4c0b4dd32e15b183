import CoreMetrics
import Prometheus

/// The server's metrics, through swift-metrics backed by this instance's Prometheus registry
/// (not the process-wide one, so several servers in one test process keep separate counts).
public final class ServerMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    let requests: CoreMetrics.Counter
    let movesIngested: CoreMetrics.Counter
    let connectedSockets: CoreMetrics.Gauge
    /// Browsers' replicas the server hosts (one per browser device and open game).
    let browserReplicas: CoreMetrics.Gauge
    /// Games whose merged grid this instance holds (read when the metrics are).
    let gameProjections: CoreMetrics.Gauge
    let pushLatency: CoreMetrics.Timer
    /// Group commits of moves: each transaction's duration and how many pushes it held.
    let commitDuration: CoreMetrics.Timer
    let commitBatches: CoreMetrics.Recorder
    /// Web Push: pushes answered 2xx, pushes dropped (a full queue, a resting or overused
    /// endpoint), and the time from a push's queueing to its answer.
    let webPushesSent: CoreMetrics.Counter
    let webPushesDropped: CoreMetrics.Counter
    let webPushDuration: CoreMetrics.Timer
    /// Replays assembled from a finished game's moves (a replay asked for again is kept).
    let replaysAssembled: CoreMetrics.Counter

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(20), .milliseconds(50), .milliseconds(100),
            .milliseconds(500), .seconds(1),
        ]
        requests = CoreMetrics.Counter(label: "crossmate_requests_total", factory: factory)
        movesIngested = CoreMetrics.Counter(label: "crossmate_moves_ingested_total", factory: factory)
        replaysAssembled = CoreMetrics.Counter(label: "crossmate_replays_assembled_total", factory: factory)
        webPushesSent = CoreMetrics.Counter(label: "crossmate_web_pushes_sent_total", factory: factory)
        webPushesDropped = CoreMetrics.Counter(label: "crossmate_web_pushes_dropped_total", factory: factory)
        connectedSockets = CoreMetrics.Gauge(label: "crossmate_connected_sockets", factory: factory)
        browserReplicas = CoreMetrics.Gauge(label: "crossmate_browser_replicas", factory: factory)
        gameProjections = CoreMetrics.Gauge(label: "crossmate_game_projections", factory: factory)
        factory.defaultValueHistogramBuckets = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
        pushLatency = CoreMetrics.Timer(label: "crossmate_push_latency_seconds", factory: factory)
        webPushDuration = CoreMetrics.Timer(label: "crossmate_web_push_seconds", factory: factory)
        commitDuration = CoreMetrics.Timer(label: "crossmate_commit_seconds", factory: factory)
        commitBatches = CoreMetrics.Recorder(label: "crossmate_commit_batches", factory: factory)
    }

    func recordCommit(batches: Int, duration: Duration) {
        commitDuration.record(duration: duration)
        commitBatches.record(batches)
    }

    /// The Prometheus text exposition.
    func render() -> String { registry.emitToString() }
}
