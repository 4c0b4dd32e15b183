import CrossmateCore

/// A chat message in a game's zone. Written once by one device: the device names it
/// (`messageID`), so a message written offline and sent again after a lost answer is the same
/// record, kept once. Its HLC timestamp orders the conversation the same way on every device.
public struct ChatMessage: Hashable, Sendable, Codable {
    public var gameID: GameID
    /// Stamped by the server from the writing device's token.
    public var authorID: AuthorID
    public var replicaID: ReplicaID
    public var messageID: String
    public var text: String
    public var timestamp: HLCTimestamp

    public init(gameID: GameID, authorID: AuthorID, replicaID: ReplicaID, messageID: String, text: String, timestamp: HLCTimestamp) {
        self.gameID = gameID
        self.authorID = authorID
        self.replicaID = replicaID
        self.messageID = messageID
        self.text = text
        self.timestamp = timestamp
    }

    /// Its key in the game's zone: one record per device and message id.
    public var key: String { "\(replicaID):\(messageID)" }
}

/// The rules of a game's chat, in one place for the server, the native engine and the views.
public enum Chat {
    /// A message's text is at most this many bytes of UTF-8.
    public static let maximumBytes = 1_000
    /// A message id is at most this many bytes, of letters, digits, "-" and "_".
    public static let maximumIDBytes = 64
    /// A game keeps at most this many messages, and reactions (each author, message and emoji
    /// one), so neither its zone nor anything holding its conversation grows without bound.
    public static let maximumMessagesPerGame = 5_000
    public static let maximumReactionsPerGame = 20_000
    /// Messages each account may send at once, then how many a second.
    public static let burst = 20.0
    public static let perSecond = 0.5

    /// A player's text as a message keeps it: trimmed, at most `maximumBytes` bytes of UTF-8,
    /// no control characters (line breaks among them) or direction overrides, and something
    /// visible. The violation says why, in words for the person who typed it.
    public static func text(_ raw: String) throws(TextRule.Violation) -> String {
        try TextRule.check(raw, field: "a message", maximumBytes: maximumBytes, required: true)
    }

    /// Whether `id` can name a message: 1 to `maximumIDBytes` letters, digits, "-" or "_".
    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maximumIDBytes
            && id.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F
            }
    }

    /// The conversation as every device shows it: by timestamp, then by device and id (two
    /// messages never tie), whatever order they arrived in.
    public static func ordered(_ messages: some Sequence<ChatMessage>) -> [ChatMessage] {
        messages.sorted { ($0.timestamp, $0.replicaID, $0.messageID) < ($1.timestamp, $1.replicaID, $1.messageID) }
    }

    /// The conversation without the messages of accounts `me` blocked (their records stay in
    /// the zone; this account does not see them).
    public static func shown(_ messages: [ChatMessage], hiding blocked: Set<AuthorID>) -> [ChatMessage] {
        blocked.isEmpty ? messages : messages.filter { !blocked.contains($0.authorID) }
    }

    /// How many messages others wrote after the account's read horizon (`sequence` is each
    /// message's zone sequence), leaving out accounts it blocked.
    public static func unread(
        _ messages: some Sequence<(sequence: Int64, message: ChatMessage)>, horizon: Int64, me: AuthorID, hiding blocked: Set<AuthorID> = []
    ) -> Int {
        messages.count { $0.sequence > horizon && $0.message.authorID != me && !blocked.contains($0.message.authorID) }
    }
}

/// A player's emoji reaction to a chat message: one record per author, message and emoji, the
/// latest (by HLC timestamp) deciding whether it stands, so a reaction taken back on one device
/// and given again on another ends the same everywhere.
public struct Reaction: Hashable, Sendable, Codable, DecidedByLatest {
    public var gameID: GameID
    /// Stamped by the server from the writing device's token.
    public var authorID: AuthorID
    /// The message's key (`ChatMessage.key`).
    public var messageKey: String
    public var emoji: String
    /// Whether it stands (false: taken back).
    public var on: Bool
    public var timestamp: HLCTimestamp

    public init(gameID: GameID, authorID: AuthorID, messageKey: String, emoji: String, on: Bool, timestamp: HLCTimestamp) {
        self.gameID = gameID
        self.authorID = authorID
        self.messageKey = messageKey
        self.emoji = emoji
        self.on = on
        self.timestamp = timestamp
    }

    /// Its key in the game's zone: one per author, message and emoji.
    public var key: String { "\(authorID)|\(messageKey)|\(emoji)" }

    /// Whether this one decides over `other` (same key): the later timestamp, and at a tie the
    /// one that stands, so every device keeps the same one whatever order they arrive in.
    public func wins(over other: Reaction) -> Bool {
        (timestamp, on ? 1 : 0) > (other.timestamp, other.on ? 1 : 0)
    }
}

extension Chat {
    /// The reactions the pickers offer.
    public static let quickReactions = ["👍", "❤️", "😂", "😮", "🎉", "🤔"]

    /// Whether `emoji` can be a reaction: one emoji as emoji are spelled, at most 32 bytes and
    /// eight scalars. An emoji (one with emoji presentation, or any emoji followed by U+FE0F),
    /// optionally a skin tone, and more such joined by U+200D; a keycap (`#`, `*` or a digit,
    /// U+FE0F, U+20E3); a flag (two regional indicators); a subdivision flag (🏴, tag letters,
    /// the cancel tag). Nothing else: no combining marks stacked on it, no tag characters
    /// hidden after it, no `#` with an accent.
    public static func isReaction(_ emoji: String) -> Bool {
        guard emoji.count == 1, emoji.utf8.count <= 32 else { return false }
        let scalars = Array(emoji.unicodeScalars)
        guard (1...8).contains(scalars.count) else { return false }
        let values = scalars.map(\.value)
        // A keycap.
        if scalars.count == 3, "#*0123456789".unicodeScalars.contains(scalars[0]), values[1] == 0xFE0F, values[2] == 0x20E3 { return true }
        // A flag of two regional indicators.
        let regional: ClosedRange<UInt32> = 0x1F1E6...0x1F1FF
        if scalars.count == 2, regional.contains(values[0]), regional.contains(values[1]) { return true }
        // A subdivision flag: the black flag, tag letters and digits, the cancel tag.
        if values[0] == 0x1F3F4, scalars.count > 2, values.last == 0xE007F {
            return values.dropFirst().dropLast().allSatisfy { (0xE0030...0xE0039).contains($0) || (0xE0061...0xE007A).contains($0) }
        }
        // Emoji joined by U+200D, each with emoji presentation or U+FE0F, and a skin tone.
        var index = 0
        while true {
            guard index < scalars.count else { return false }
            let base = scalars[index]
            guard base.properties.isEmoji, base.value > 0xFF, !base.properties.isEmojiModifier, !regional.contains(base.value) else {
                return false
            }
            index += 1
            if index < scalars.count, values[index] == 0xFE0F {
                index += 1
            } else if !base.properties.isEmojiPresentation {
                return false
            }
            if index < scalars.count, scalars[index].properties.isEmojiModifier { index += 1 }
            if index == scalars.count { return true }
            guard values[index] == 0x200D else { return false }
            index += 1
        }
    }

    /// The reactions that stand: of each author, message and emoji the deciding one, if it is on.
    public static func standing(_ reactions: some Sequence<Reaction>) -> [Reaction] {
        [String: Reaction](deciding: reactions).values.filter(\.on).sorted {
            ($0.messageKey, $0.emoji, $0.authorID) < ($1.messageKey, $1.emoji, $1.authorID)
        }
    }

    /// One emoji's reactions to a message: who gave it (in a stable order).
    public struct Tally: Hashable, Sendable {
        public var emoji: String
        public var authors: [AuthorID]

        public init(emoji: String, authors: [AuthorID]) {
            self.emoji = emoji
            self.authors = authors
        }
    }

    /// Each message's standing reactions, by message key: emoji in the order they were first
    /// given, without accounts `blocked`.
    public static func tallies(_ reactions: some Sequence<Reaction>, hiding blocked: Set<AuthorID> = []) -> [String: [Tally]] {
        var tallies: [String: [Tally]] = [:]
        let shown = standing(reactions).filter { !blocked.contains($0.authorID) }.sorted { ($0.timestamp, $0.key) < ($1.timestamp, $1.key) }
        for reaction in shown {
            if let index = tallies[reaction.messageKey]?.firstIndex(where: { $0.emoji == reaction.emoji }) {
                tallies[reaction.messageKey]![index].authors.append(reaction.authorID)
            } else {
                tallies[reaction.messageKey, default: []].append(Tally(emoji: reaction.emoji, authors: [reaction.authorID]))
            }
        }
        return tallies
    }
}
