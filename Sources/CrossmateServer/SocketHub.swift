import CrossmateProtocol
import CrossmateStore
import Foundation
import Synchronization

/// A message encoded for the wire, with the time it was queued (for the push latency metric).
/// A poke is encoded once, however many sockets it goes to.
struct OutgoingMessage: Sendable {
    var text: String
    var queuedAt: ContinuousClock.Instant
}

/// Changes a poke carries so that an up-to-date device need not fetch them: every change after
/// `after`, as stored (`body` is the record's JSON).
struct InlineChanges: Codable, Sendable {
    struct Change: Codable, Sendable {
        var sequence: Int64
        var type: String
        var body: String
    }

    /// A poke carries at most this many changes; a bigger write is announced plainly.
    static let maximumCount = 32

    var after: Int64
    var changes: [Change]
}

/// This instance's live WebSockets: which device each is, which games it watches, and the
/// stream its writer drains. Pokes and cursors fan out from here. Every method is synchronous
/// under one lock, so a request hands a poke over without a hop to another executor.
final class SocketHub: Sendable {
    struct Connection {
        var deviceID: String
        var authorID: String
        var games: Set<String> = []
        var outbox: AsyncStream<OutgoingMessage>.Continuation
    }

    private struct State {
        var connections: [Int: Connection] = [:]
        var byGame: [String: Set<Int>] = [:]
        var nextID = 0
        /// The newest zone sequence poked per game, so a reconnecting listener can tell what it missed.
        var lastPoked: [String: Int64] = [:]
    }

    private let state = Mutex(State())

    var count: Int { state.withLock { $0.connections.count } }

    func register(deviceID: String, authorID: String, outbox: AsyncStream<OutgoingMessage>.Continuation) -> Int {
        state.withLock {
            $0.nextID += 1
            $0.connections[$0.nextID] = Connection(deviceID: deviceID, authorID: authorID, outbox: outbox)
            return $0.nextID
        }
    }

    func unregister(_ id: Int) {
        let removed = state.withLock { state -> Connection? in
            guard let connection = state.connections.removeValue(forKey: id) else { return nil }
            for game in connection.games { state.byGame[game]?.remove(id) }
            return connection
        }
        removed?.outbox.finish()
    }

    func subscribe(_ id: Int, to games: [String]) {
        state.withLock {
            for game in games where $0.connections[id] != nil {
                $0.connections[id]?.games.insert(game)
                $0.byGame[game, default: []].insert(id)
            }
        }
    }

    func unsubscribe(_ id: Int, from games: [String]) {
        state.withLock {
            for game in games {
                $0.connections[id]?.games.remove(game)
                $0.byGame[game]?.remove(id)
            }
        }
    }

    func isSubscribed(_ id: Int, to game: String) -> Bool {
        state.withLock { $0.connections[id]?.games.contains(game) ?? false }
    }

    /// Games some local socket watches.
    var watchedGames: [String] { state.withLock { $0.byGame.filter { !$0.value.isEmpty }.map(\.key) } }

    func lastPoked(_ game: String) -> Int64 { state.withLock { $0.lastPoked[game] ?? 0 } }

    func poke(game: String, sequence: Int64, exceptDevice: String? = nil, inline: InlineChanges? = nil) {
        let text = Self.pokeText(game: game, sequence: sequence, inline: inline)
        state.withLock {
            if sequence > $0.lastPoked[game, default: 0] { $0.lastPoked[game] = sequence }
        }
        send(text, toGame: game, exceptDevice: exceptDevice)
    }

    /// The poke as `ServerSocketMessage.poke` encodes it, spliced around the stored JSON of the
    /// inline changes (which are not decoded and re-encoded for every write).
    static func pokeText(game: String, sequence: Int64, inline: InlineChanges?) -> String {
        let token = ChangeToken(zone: game, sequence: sequence).encoded
        var text = "{"
        if let inline {
            text += #""after":"\#(ChangeToken(zone: game, sequence: inline.after).encoded)","changes":"#
            text += ChangeJSON.list(inline.changes) + ","
        }
        text += #""token":"\#(token)","type":"poke","zone":\#(ChangeJSON.quoted(game))}"#
        return text
    }

    func feed(authorID: String, sequence: Int64) {
        let message = OutgoingMessage(text: Self.encode(.feed(token: ChangeToken(zone: "feed", sequence: sequence))), queuedAt: .now)
        let outboxes = state.withLock { $0.connections.values.filter { $0.authorID == authorID }.map(\.outbox) }
        for outbox in outboxes { outbox.yield(message) }
    }

    func cursor(game: String, deviceID: String, authorID: String, cursor: CursorPosition) {
        send(Self.encode(.cursor(gameID: game, deviceID: deviceID, authorID: authorID, cursor: cursor)), toGame: game, exceptDevice: deviceID)
    }

    /// Tells one connection something directly (pong, errors).
    func reply(_ id: Int, _ message: ServerSocketMessage) {
        let outbox = state.withLock { $0.connections[id]?.outbox }
        outbox?.yield(OutgoingMessage(text: Self.encode(message), queuedAt: .now))
    }

    /// Stops pokes for an account's devices watching a game they lost access to.
    func dropSubscriptions(authorID: String, game: String) {
        state.withLock {
            for (id, connection) in $0.connections where connection.authorID == authorID && connection.games.contains(game) {
                $0.connections[id]?.games.remove(game)
                $0.byGame[game]?.remove(id)
            }
        }
    }

    /// Queues `text` for every socket watching `game`, but not the sockets of `deviceID`.
    private func send(_ text: String, toGame game: String, exceptDevice deviceID: String?) {
        let outgoing = OutgoingMessage(text: text, queuedAt: .now)
        let outboxes = state.withLock { state in
            (state.byGame[game] ?? []).compactMap { id -> AsyncStream<OutgoingMessage>.Continuation? in
                guard let connection = state.connections[id], deviceID == nil || connection.deviceID != deviceID else { return nil }
                return connection.outbox
            }
        }
        for outbox in outboxes { outbox.yield(outgoing) }
    }

    /// Socket messages are encoded here. The answer to a push that stored everything it sent
    /// (every push while people type) is spelled out by hand, as `ServerSocketMessage` encodes it;
    /// anything else goes through the JSON encoder.
    static func encode(_ message: ServerSocketMessage) -> String {
        if case let .pushed(id, gameID, response) = message, response.completion == nil,
           response.results.allSatisfy({ $0.error == nil }) {
            var text = #"{"gameID":"# + ChangeJSON.quoted(gameID) + #","id":\#(id),"response":{"results":["#
            for (index, result) in response.results.enumerated() {
                if index > 0 { text += "," }
                text += #"{"replicaID":"# + ChangeJSON.quoted(result.replicaID) + #","seq":\#(result.seq),"#
                if let sequence = result.sequence { text += #""sequence":\#(sequence),"# }
                text += #""status":"\#(result.status.rawValue)"}"#
            }
            text += #"],"serverTime":\#(response.serverTime),"token":"\#(response.token.encoded)"},"type":"pushed"}"#
            return text
        }
        guard let data = try? ServerState.encoder.encode(message) else { preconditionFailure("a socket message failed to encode") }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A change as stored: its place in the zone, its record type and the record's JSON.
protocol StoredChangeJSON {
    var sequence: Int64 { get }
    var type: String { get }
    var body: String { get }
}

extension StoredChange: StoredChangeJSON {}
extension InlineChanges.Change: StoredChangeJSON {}

/// Changes as the changes page and inline pokes spell them: an array in `ZoneChange`'s shape
/// around each record's stored JSON.
enum ChangeJSON {
    static func list<Changes: Sequence>(_ changes: Changes) -> String where Changes.Element: StoredChangeJSON {
        var text = "["
        for (index, change) in changes.enumerated() {
            if index > 0 { text += "," }
            text += #"{"record":"# + change.body + #","sequence":\#(change.sequence),"type":"# + quoted(change.type) + "}"
        }
        return text + "]"
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
