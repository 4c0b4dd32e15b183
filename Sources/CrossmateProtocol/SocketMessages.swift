import CrossmateCore

/// A cursor as players see each other's: the square and the direction being typed.
public struct CursorPosition: Codable, Hashable, Sendable {
    public var row: Int
    public var col: Int
    /// "across" or "down" on the wire; anything else does not decode.
    public var direction: Direction

    public init(row: Int, col: Int, direction: Direction) {
        self.row = row
        self.col = col
        self.direction = direction
    }
}

/// What a device sends on its WebSocket. JSON objects with a `type`.
public enum ClientSocketMessage: Codable, Hashable, Sendable {
    /// Receive pokes (and cursors) for these games.
    case subscribe(games: [String])
    case unsubscribe(games: [String])
    /// Relay this device's cursor to the game's other devices (not stored).
    case cursor(gameID: String, cursor: CursorPosition)
    /// A batch of moves, as `POST /v1/games/{id}/moves` takes it, over the socket the device
    /// already has open; answered by `pushed` or `pushFailed` with the same `id`.
    case push(gameID: String, id: Int, moves: [MoveRecord])
    case ping
    /// A browser opens a game: the server hosts this device's replica of it and answers
    /// `opened`, then sends `update`s as other devices change it.
    case open(gameID: String)
    /// A browser leaves a game it opened.
    case close(gameID: String)
    /// A browser's command in an open game, answered by `applied` or `refused` with its id.
    case command(CommandRequest)
    /// A browser asks for an open, finished game's replay, the page of steps starting at step
    /// `from`; answered by `replay` (`ReplayView.pageSteps` steps at most, and the total).
    case replay(gameID: String, from: Int = 0)
    /// A native device shows a game on screen (or stops): the other players see it is here.
    case viewing(gameID: String, viewing: Bool)
    /// Send this socket other devices' moves as soon as they are ordered (`relay`), a commit's
    /// fsync sooner, in place of the poke after their commit.
    case relays

    enum CodingKeys: String, CodingKey { case type, games, gameID, cursor, id, moves, command, typedAt, viewing, from }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "subscribe": self = .subscribe(games: try container.decode([String].self, forKey: .games))
        case "unsubscribe": self = .unsubscribe(games: try container.decode([String].self, forKey: .games))
        case "cursor":
            self = .cursor(
                gameID: try container.decode(String.self, forKey: .gameID),
                cursor: try container.decode(CursorPosition.self, forKey: .cursor))
        case "push":
            self = .push(
                gameID: try container.decode(String.self, forKey: .gameID),
                id: try container.decode(Int.self, forKey: .id),
                moves: try container.decode([MoveRecord].self, forKey: .moves))
        case "ping": self = .ping
        case "relays": self = .relays
        case "open": self = .open(gameID: try container.decode(String.self, forKey: .gameID))
        case "close": self = .close(gameID: try container.decode(String.self, forKey: .gameID))
        case "replay":
            self = .replay(
                gameID: try container.decode(String.self, forKey: .gameID), from: try container.decodeIfPresent(Int.self, forKey: .from) ?? 0)
        case "viewing":
            self = .viewing(gameID: try container.decode(String.self, forKey: .gameID), viewing: try container.decode(Bool.self, forKey: .viewing))
        case "command":
            self = .command(
                CommandRequest(
                    gameID: try container.decode(String.self, forKey: .gameID), id: try container.decode(Int.self, forKey: .id),
                    command: try container.decode(BrowserCommand.self, forKey: .command),
                    typedAt: try container.decodeIfPresent(Int64.self, forKey: .typedAt)))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown message type \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case let .open(gameID):
            try container.encode("open", forKey: .type)
            try container.encode(gameID, forKey: .gameID)
        case let .close(gameID):
            try container.encode("close", forKey: .type)
            try container.encode(gameID, forKey: .gameID)
        case let .replay(gameID, from):
            try container.encode("replay", forKey: .type)
            try container.encode(gameID, forKey: .gameID)
            if from != 0 { try container.encode(from, forKey: .from) }
        case let .viewing(gameID, viewing):
            try container.encode("viewing", forKey: .type)
            try container.encode(gameID, forKey: .gameID)
            try container.encode(viewing, forKey: .viewing)
        case let .command(request):
            try container.encode("command", forKey: .type)
            try container.encode(request.gameID, forKey: .gameID)
            try container.encode(request.id, forKey: .id)
            try container.encode(request.command, forKey: .command)
            try container.encodeIfPresent(request.typedAt, forKey: .typedAt)
        case let .subscribe(games):
            try container.encode("subscribe", forKey: .type)
            try container.encode(games, forKey: .games)
        case let .unsubscribe(games):
            try container.encode("unsubscribe", forKey: .type)
            try container.encode(games, forKey: .games)
        case let .cursor(gameID, cursor):
            try container.encode("cursor", forKey: .type)
            try container.encode(gameID, forKey: .gameID)
            try container.encode(cursor, forKey: .cursor)
        case let .push(gameID, id, moves):
            try container.encode("push", forKey: .type)
            try container.encode(gameID, forKey: .gameID)
            try container.encode(id, forKey: .id)
            try container.encode(moves, forKey: .moves)
        case .ping:
            try container.encode("ping", forKey: .type)
        case .relays:
            try container.encode("relays", forKey: .type)
        }
    }
}

/// What the server sends on a device's WebSocket.
public enum ServerSocketMessage: Codable, Hashable, Sendable {
    /// A zone changed and now ends at `token` (sent after commit): fetch its changes after your
    /// token. When the poke carries `changes`, they are every change after `after` through
    /// `token`, so a device whose token is `after` applies them and takes `token` instead of
    /// fetching. A device behind `after` fetches; a lost or reordered poke costs only a fetch.
    case poke(zone: String, token: ChangeToken, after: ChangeToken? = nil, changes: [ZoneChange]? = nil)
    /// To a socket that asked for `relays`: other devices' moves, every change after `after`,
    /// checked and ordered but not yet on disk (a crash before their commit loses them here;
    /// their sender still holds them and sends them again). Show them; keep them out of the
    /// store, and keep the change token, until a relay's `committed` (the zone as it is on disk)
    /// reaches them. A socket that closes drops what it holds uncommitted.
    case relay(zone: String, after: ChangeToken, changes: [ZoneChange], committed: ChangeToken)
    /// Another device's cursor moved.
    case cursor(gameID: String, deviceID: String, authorID: String, cursor: CursorPosition)
    /// The account's database feed changed (a game added, made read-only or removed).
    case feed(token: ChangeToken)
    case pong(serverTime: Int64)
    /// The answer to the socket push `id`: exactly what the HTTP push answers.
    case pushed(id: Int, gameID: String, response: PushMovesResponse)
    /// The socket push `id` was refused as a whole, as the HTTP push would be with this error
    /// (`rateLimited` comes with the seconds to wait).
    case pushFailed(id: Int, gameID: String, error: ErrorBody, retryAfterSeconds: Int?)
    case error(ErrorBody)
    /// A game a browser opened, whole.
    case opened(GameOpened)
    /// What changed in a game a browser has open.
    case update(GameUpdate)
    /// A browser's command, performed.
    case applied(CommandApplied)
    /// A browser's command, not performed, and why.
    case refused(CommandRefusal)
    /// A finished game's replay, or how many devices it waits for.
    case replay(ReplayView)
    /// Another player asks this account to come and help.
    case nudge(NudgeView)
    /// Who is in a game now (every device showing it, and where its cursor last was): sent to
    /// the game's sockets when a device arrives or leaves, so a device that just opened the
    /// game sees who is here, and one that left is dropped at once.
    case here(gameID: String, devices: [PresentDevice])
    /// Another player started the next puzzle with this account.
    case nextGame(NextGameView)
    /// A game a browser had open is closed on this socket, and why (the player left it from
    /// another device): it hears nothing more of the game.
    case closed(gameID: String, reason: String)

    enum CodingKeys: String, CodingKey {
        case type, zone, token, after, changes, committed, gameID, deviceID, authorID, cursor, serverTime, error, id, response, retryAfterSeconds
        case game, answer, refusal, replay, nudge, devices, next, reason
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "relay":
            self = .relay(
                zone: try container.decode(String.self, forKey: .zone),
                after: try container.decode(ChangeToken.self, forKey: .after),
                changes: try container.decode([ZoneChange].self, forKey: .changes),
                committed: try container.decode(ChangeToken.self, forKey: .committed))
        case "poke":
            self = .poke(
                zone: try container.decode(String.self, forKey: .zone),
                token: try container.decode(ChangeToken.self, forKey: .token),
                after: try container.decodeIfPresent(ChangeToken.self, forKey: .after),
                changes: try container.decodeIfPresent([ZoneChange].self, forKey: .changes))
        case "cursor":
            self = .cursor(
                gameID: try container.decode(String.self, forKey: .gameID),
                deviceID: try container.decode(String.self, forKey: .deviceID),
                authorID: try container.decode(String.self, forKey: .authorID),
                cursor: try container.decode(CursorPosition.self, forKey: .cursor))
        case "feed": self = .feed(token: try container.decode(ChangeToken.self, forKey: .token))
        case "pong": self = .pong(serverTime: try container.decode(Int64.self, forKey: .serverTime))
        case "pushed":
            self = .pushed(
                id: try container.decode(Int.self, forKey: .id),
                gameID: try container.decode(String.self, forKey: .gameID),
                response: try container.decode(PushMovesResponse.self, forKey: .response))
        case "pushFailed":
            self = .pushFailed(
                id: try container.decode(Int.self, forKey: .id),
                gameID: try container.decode(String.self, forKey: .gameID),
                error: try container.decode(ErrorBody.self, forKey: .error),
                retryAfterSeconds: try container.decodeIfPresent(Int.self, forKey: .retryAfterSeconds))
        case "error": self = .error(try container.decode(ErrorBody.self, forKey: .error))
        case "opened": self = .opened(try container.decode(GameOpened.self, forKey: .game))
        case "update": self = .update(try container.decode(GameUpdate.self, forKey: .game))
        case "applied": self = .applied(try container.decode(CommandApplied.self, forKey: .answer))
        case "refused": self = .refused(try container.decode(CommandRefusal.self, forKey: .refusal))
        case "replay": self = .replay(try container.decode(ReplayView.self, forKey: .replay))
        case "nudge": self = .nudge(try container.decode(NudgeView.self, forKey: .nudge))
        case "nextGame": self = .nextGame(try container.decode(NextGameView.self, forKey: .next))
        case "closed":
            self = .closed(gameID: try container.decode(String.self, forKey: .gameID), reason: try container.decode(String.self, forKey: .reason))
        case "here":
            self = .here(
                gameID: try container.decode(String.self, forKey: .gameID),
                devices: try container.decode([PresentDevice].self, forKey: .devices))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown message type \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case let .relay(zone, after, changes, committed):
            try container.encode("relay", forKey: .type)
            try container.encode(zone, forKey: .zone)
            try container.encode(after, forKey: .after)
            try container.encode(changes, forKey: .changes)
            try container.encode(committed, forKey: .committed)
        case let .poke(zone, token, after, changes):
            try container.encode("poke", forKey: .type)
            try container.encode(zone, forKey: .zone)
            try container.encode(token, forKey: .token)
            try container.encodeIfPresent(after, forKey: .after)
            try container.encodeIfPresent(changes, forKey: .changes)
        case let .cursor(gameID, deviceID, authorID, cursor):
            try container.encode("cursor", forKey: .type)
            try container.encode(gameID, forKey: .gameID)
            try container.encode(deviceID, forKey: .deviceID)
            try container.encode(authorID, forKey: .authorID)
            try container.encode(cursor, forKey: .cursor)
        case let .feed(token):
            try container.encode("feed", forKey: .type)
            try container.encode(token, forKey: .token)
        case let .pong(serverTime):
            try container.encode("pong", forKey: .type)
            try container.encode(serverTime, forKey: .serverTime)
        case let .pushed(id, gameID, response):
            try container.encode("pushed", forKey: .type)
            try container.encode(id, forKey: .id)
            try container.encode(gameID, forKey: .gameID)
            try container.encode(response, forKey: .response)
        case let .pushFailed(id, gameID, error, retryAfterSeconds):
            try container.encode("pushFailed", forKey: .type)
            try container.encode(id, forKey: .id)
            try container.encode(gameID, forKey: .gameID)
            try container.encode(error, forKey: .error)
            try container.encodeIfPresent(retryAfterSeconds, forKey: .retryAfterSeconds)
        case let .error(body):
            try container.encode("error", forKey: .type)
            try container.encode(body, forKey: .error)
        case let .opened(game):
            try container.encode("opened", forKey: .type)
            try container.encode(game, forKey: .game)
        case let .update(game):
            try container.encode("update", forKey: .type)
            try container.encode(game, forKey: .game)
        case let .applied(answer):
            try container.encode("applied", forKey: .type)
            try container.encode(answer, forKey: .answer)
        case let .refused(refusal):
            try container.encode("refused", forKey: .type)
            try container.encode(refusal, forKey: .refusal)
        case let .replay(replay):
            try container.encode("replay", forKey: .type)
            try container.encode(replay, forKey: .replay)
        case let .nudge(nudge):
            try container.encode("nudge", forKey: .type)
            try container.encode(nudge, forKey: .nudge)
        case let .here(gameID, devices):
            try container.encode("here", forKey: .type)
            try container.encode(gameID, forKey: .gameID)
            try container.encode(devices, forKey: .devices)
        case let .nextGame(next):
            try container.encode("nextGame", forKey: .type)
            try container.encode(next, forKey: .next)
        case let .closed(gameID, reason):
            try container.encode("closed", forKey: .type)
            try container.encode(gameID, forKey: .gameID)
            try container.encode(reason, forKey: .reason)
        }
    }
}

/// A device showing a game now, and where its cursor last was (none before it moved).
public struct PresentDevice: Codable, Hashable, Sendable {
    public var deviceID: String
    public var authorID: String
    public var cursor: CursorPosition?

    public init(deviceID: String, authorID: String, cursor: CursorPosition? = nil) {
        self.deviceID = deviceID
        self.authorID = authorID
        self.cursor = cursor
    }
}
