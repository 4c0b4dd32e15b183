import CrossmateCore
import CrossmateSync

// Between players: decisions (blocks, pins), friends, settings, nudges, chat, reactions, flags,
// the next game and stats.

/// One of the account's Decisions about another account: `kind` "block" (value "1") or "color"
/// (value the palette index, "0" to "8", a pin). Last writer wins by `writtenAt`.
public struct DecisionRecord: Codable, Hashable, Sendable {
    public var kind: String
    public var key: String
    public var value: String
    public var writtenAt: Int64

    public init(kind: String, key: String, value: String, writtenAt: Int64) {
        self.kind = kind
        self.key = key
        self.value = value
        self.writtenAt = writtenAt
    }
}

/// `POST /v1/decisions`: sets a Decision, or clears it with `deleted`. `writtenAt` (Unix ms,
/// default now) orders concurrent writes from the account's devices.
public struct DecisionRequest: Codable, Hashable, Sendable {
    public var kind: String
    public var key: String
    public var value: String?
    public var deleted: Bool?
    public var writtenAt: Int64?

    public init(kind: String, key: String, value: String? = nil, deleted: Bool? = nil, writtenAt: Int64? = nil) {
        self.kind = kind
        self.key = key
        self.value = value
        self.deleted = deleted
        self.writtenAt = writtenAt
    }
}

/// `PUT /v1/preferences`: the account's preferred colour (a palette index, or null to clear).
public struct PreferencesRequest: Codable, Hashable, Sendable {
    public var color: Int?

    public init(color: Int?) {
        self.color = color
    }
}

/// A player this account has played with, as `GET /v1/friends` lists them.
public struct FriendView: Codable, Hashable, Sendable {
    public var authorID: String
    public var displayName: String
    /// Their colour as this account sees them: the pin, else the stable colour beside this
    /// account's own.
    public var color: String
    public var colorIndex: Int
    public var symbol: String
    public var pinned: Int?
    public var blocked: Bool
    public var gamesTogether: Int
    public var lastPlayed: Int64

    public init(
        authorID: String, displayName: String, color: String, colorIndex: Int, symbol: String, pinned: Int?, blocked: Bool,
        gamesTogether: Int, lastPlayed: Int64
    ) {
        self.authorID = authorID
        self.displayName = displayName
        self.color = color
        self.colorIndex = colorIndex
        self.symbol = symbol
        self.pinned = pinned
        self.blocked = blocked
        self.gamesTogether = gamesTogether
        self.lastPlayed = lastPlayed
    }
}

public struct FriendsResponse: Codable, Hashable, Sendable {
    public var friends: [FriendView]
    public var decisions: [DecisionRecord]
    public var preferredColor: Int?
    public var serverTime: Int64

    public init(friends: [FriendView], decisions: [DecisionRecord], preferredColor: Int?, serverTime: Int64) {
        self.friends = friends
        self.decisions = decisions
        self.preferredColor = preferredColor
        self.serverTime = serverTime
    }
}

/// `PUT /v1/settings`: one of the account's settings (`SolverSettings`). `writtenAt` (Unix ms,
/// default now) orders writes from the account's devices; the later one wins.
public struct SettingRequest: Codable, Hashable, Sendable {
    public var name: String
    public var value: String
    public var writtenAt: Int64?

    public init(name: String, value: String, writtenAt: Int64? = nil) {
        self.name = name
        self.value = value
        self.writtenAt = writtenAt
    }
}

/// `GET` and `PUT /v1/settings`: the account's settings with defaults filled in, each setting's
/// choices (the first is the default), and what they make of the solving keys.
public struct SettingsResponse: Codable, Hashable, Sendable {
    public struct Choice: Codable, Hashable, Sendable {
        public var name: String
        public var choices: [String]
    }
    public struct KeyOptions: Codable, Hashable, Sendable {
        public var skipFilledSquares: Bool
        public var jumpAtWordEnd: Bool
        public var spaceClears: Bool
        public var backspaceAcrossWords: Bool
    }

    public var settings: [String: String]
    public var available: [Choice]
    public var keyOptions: KeyOptions
    public var autocheck: Bool
    public var serverTime: Int64

    public init(_ settings: SolverSettings, serverTime: Int64) {
        self.settings = settings.values
        self.available = SolverSettings.all.map { Choice(name: $0.name, choices: $0.choices) }
        let options = settings.options
        self.keyOptions = KeyOptions(
            skipFilledSquares: options.skipFilledSquares, jumpAtWordEnd: options.jumpAtWordEnd, spaceClears: options.spaceClears,
            backspaceAcrossWords: options.backspaceAcrossWords)
        self.autocheck = settings.autocheck
        self.serverTime = serverTime
    }
}

/// `POST /v1/games/{id}/nudges`: ask the other players to come and help.
public struct NudgeRequest: Codable, Hashable, Sendable {
    public var message: String?

    public init(message: String? = nil) {
        self.message = message
    }
}

public struct NudgeView: Codable, Hashable, Sendable {
    public var gameID: String
    public var nudgeID: String
    public var fromAuthor: String
    public var fromName: String
    public var message: String
    public var createdAt: Int64

    public init(gameID: String, nudgeID: String, fromAuthor: String, fromName: String, message: String, createdAt: Int64) {
        self.gameID = gameID
        self.nudgeID = nudgeID
        self.fromAuthor = fromAuthor
        self.fromName = fromName
        self.message = message
        self.createdAt = createdAt
    }
}

/// `PUT /v1/me`: a new display name, shown in every game the account is in.
public struct RenameRequest: Codable, Hashable, Sendable {
    public var displayName: String

    public init(displayName: String) {
        self.displayName = displayName
    }
}

/// `POST /v1/games/{id}/messages`: a chat message this device wrote (the server stamps the
/// author). Sending the same `messageID` again is harmless: the first is kept and answered.
public struct PostMessageRequest: Codable, Hashable, Sendable {
    /// Chosen by the device: letters, digits, "-" and "_", at most `Chat.maximumIDBytes`.
    public var messageID: String
    public var text: String
    public var timestamp: HLCTimestamp

    public init(messageID: String, text: String, timestamp: HLCTimestamp) {
        self.messageID = messageID
        self.text = text
        self.timestamp = timestamp
    }
}

/// The message as the zone keeps it, and its zone sequence.
public struct PostMessageResponse: Codable, Hashable, Sendable {
    public var message: ChatMessage
    public var sequence: Int64
    public var serverTime: Int64

    public init(message: ChatMessage, sequence: Int64, serverTime: Int64) {
        self.message = message
        self.sequence = sequence
        self.serverTime = serverTime
    }
}

/// `POST /v1/games/{id}/reactions`: this account gives (`on`) or takes back an emoji reaction to
/// a message. The latest by timestamp decides (`Reaction.wins`); an older one changes nothing.
public struct PostReactionRequest: Codable, Hashable, Sendable {
    /// The message's key (`ChatMessage.key`).
    public var messageKey: String
    public var emoji: String
    public var on: Bool
    public var timestamp: HLCTimestamp

    public init(messageKey: String, emoji: String, on: Bool, timestamp: HLCTimestamp) {
        self.messageKey = messageKey
        self.emoji = emoji
        self.on = on
        self.timestamp = timestamp
    }
}

/// The reaction that decides for this author, message and emoji, and its zone sequence.
public struct PostReactionResponse: Codable, Hashable, Sendable {
    public var reaction: Reaction
    public var sequence: Int64
    public var serverTime: Int64

    public init(reaction: Reaction, sequence: Int64, serverTime: Int64) {
        self.reaction = reaction
        self.sequence = sequence
        self.serverTime = serverTime
    }
}

/// Another player started the next puzzle with this account (`CreateGameRequest.with`): sent
/// to its sockets, so a device showing the finished game can go straight into the new one.
public struct NextGameView: Codable, Hashable, Sendable {
    /// The game it follows.
    public var fromGameID: String
    public var gameID: String
    public var title: String
    public var byAuthor: String
    public var byName: String

    public init(fromGameID: String, gameID: String, title: String, byAuthor: String, byName: String) {
        self.fromGameID = fromGameID
        self.gameID = gameID
        self.title = title
        self.byAuthor = byAuthor
        self.byName = byName
    }
}

/// `POST /v1/games/{id}/flags`: this account points the others at a clue (`on`), or takes its
/// flag down. The latest by timestamp decides (`ClueFlag.wins`).
public struct PostFlagRequest: Codable, Hashable, Sendable {
    public var number: Int
    public var direction: Direction
    public var on: Bool
    public var timestamp: HLCTimestamp

    public init(number: Int, direction: Direction, on: Bool, timestamp: HLCTimestamp) {
        self.number = number
        self.direction = direction
        self.on = on
        self.timestamp = timestamp
    }
}

/// The flag that decides for this author and clue, and its zone sequence.
public struct PostFlagResponse: Codable, Hashable, Sendable {
    public var flag: ClueFlag
    public var sequence: Int64
    public var serverTime: Int64

    public init(flag: ClueFlag, sequence: Int64, serverTime: Int64) {
        self.flag = flag
        self.sequence = sequence
        self.serverTime = serverTime
    }
}

/// `GET /v1/stats?timeZone=Europe/London`: the account's stats from its finished games, its days
/// counted in the time zone the device names.
public struct StatsResponse: Codable, Hashable, Sendable {
    public var stats: AccountStats
    /// `stats.recent`'s days as dates ("2026-11-24"), in order.
    public var recentDates: [String]
    /// The other players' names, by account.
    public var names: [String: String]
    public var timeZone: String
    /// How many of the latest finished games were read (at most `maximumGames`).
    public var gamesRead: Int
    public var serverTime: Int64

    public static let maximumGames = 500

    public init(stats: AccountStats, recentDates: [String], names: [String: String], timeZone: String, gamesRead: Int, serverTime: Int64) {
        self.stats = stats
        self.recentDates = recentDates
        self.names = names
        self.timeZone = timeZone
        self.gamesRead = gamesRead
        self.serverTime = serverTime
    }
}
