import CrossmateProtocol

/// A message on its way to one device's socket, with the time it was queued (for the push
/// latency metric).
struct OutgoingMessage: Sendable {
    var message: ServerSocketMessage
    var queuedAt: ContinuousClock.Instant
}

/// This instance's live WebSockets: which device each is, which games it watches, and the
/// stream its writer drains. Pokes and cursors fan out from here.
actor SocketHub {
    struct Connection {
        var deviceID: String
        var authorID: String
        var games: Set<String> = []
        var outbox: AsyncStream<OutgoingMessage>.Continuation
    }

    private var connections: [Int: Connection] = [:]
    private var byGame: [String: Set<Int>] = [:]
    private var nextID = 0
    /// The newest zone sequence poked per game, so a reconnecting listener can tell what it missed.
    private(set) var lastPoked: [String: Int64] = [:]

    var count: Int { connections.count }

    func register(deviceID: String, authorID: String, outbox: AsyncStream<OutgoingMessage>.Continuation) -> Int {
        nextID += 1
        connections[nextID] = Connection(deviceID: deviceID, authorID: authorID, outbox: outbox)
        return nextID
    }

    func unregister(_ id: Int) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        for game in connection.games { byGame[game]?.remove(id) }
        connection.outbox.finish()
    }

    func subscribe(_ id: Int, to games: [String]) {
        for game in games {
            connections[id]?.games.insert(game)
            byGame[game, default: []].insert(id)
        }
    }

    func unsubscribe(_ id: Int, from games: [String]) {
        for game in games {
            connections[id]?.games.remove(game)
            byGame[game]?.remove(id)
        }
    }

    func isSubscribed(_ id: Int, to game: String) -> Bool {
        connections[id]?.games.contains(game) ?? false
    }

    /// Games some local socket watches.
    var watchedGames: [String] { byGame.filter { !$0.value.isEmpty }.map(\.key) }

    func poke(game: String, sequence: Int64, exceptDevice: String? = nil) {
        if sequence > lastPoked[game, default: 0] { lastPoked[game] = sequence }
        send(.poke(zone: game, token: ChangeToken(zone: game, sequence: sequence)), toGame: game, exceptDevice: exceptDevice)
    }

    func feed(authorID: String, sequence: Int64) {
        let message = OutgoingMessage(message: .feed(token: ChangeToken(zone: "feed", sequence: sequence)), queuedAt: .now)
        for connection in connections.values where connection.authorID == authorID {
            connection.outbox.yield(message)
        }
    }

    func cursor(game: String, deviceID: String, authorID: String, cursor: CursorPosition) {
        send(.cursor(gameID: game, deviceID: deviceID, authorID: authorID, cursor: cursor), toGame: game, exceptDevice: deviceID)
    }

    /// Tells one connection something directly (pong, errors).
    func reply(_ id: Int, _ message: ServerSocketMessage) {
        connections[id]?.outbox.yield(OutgoingMessage(message: message, queuedAt: .now))
    }

    /// Ends the sockets of an account's devices watching a game they lost access to.
    func dropSubscriptions(authorID: String, game: String) {
        for (id, connection) in connections where connection.authorID == authorID && connection.games.contains(game) {
            connections[id]?.games.remove(game)
            byGame[game]?.remove(id)
        }
    }

    /// Queues `message` for every socket watching `game`, but not the sockets of `deviceID`.
    private func send(_ message: ServerSocketMessage, toGame game: String, exceptDevice deviceID: String?) {
        let outgoing = OutgoingMessage(message: message, queuedAt: .now)
        for id in byGame[game] ?? [] where deviceID == nil || connections[id]?.deviceID != deviceID {
            connections[id]?.outbox.yield(outgoing)
        }
    }
}
