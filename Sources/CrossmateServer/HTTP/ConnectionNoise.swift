import Logging

/// Keeps what a client's network does out of the server's error log. A connection reset before
/// its first request (a phone losing its signal, a load balancer's probe, anyone with a socket)
/// made HummingbirdWebSocket log "Error handling upgrade result" at `error`, one line per
/// connection: a flood anyone could write, with nothing for an operator to do. Such lines are
/// `debug` here; everything else passes through unchanged.
struct ConnectionNoiseLogHandler: LogHandler {
    var inner: any LogHandler

    /// The library and message of a connection that ended before it said anything.
    static let droppedBeforeRequest = (source: "HummingbirdWebSocket", message: "Error handling upgrade result")

    static func isConnectionNoise(_ event: LogEvent) -> Bool {
        event.source == droppedBeforeRequest.source && event.message.description == droppedBeforeRequest.message
    }

    func log(event: LogEvent) {
        guard event.level > .debug, Self.isConnectionNoise(event) else { return inner.log(event: event) }
        guard inner.logLevel <= .debug else { return }
        var quieter = event
        quieter.level = .debug
        inner.log(event: quieter)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }
}

extension Logger {
    /// This logger, with connection noise at `debug` (see `ConnectionNoiseLogHandler`).
    var quietingConnectionNoise: Logger {
        var logger = self
        logger.handler = ConnectionNoiseLogHandler(inner: handler)
        return logger
    }
}
