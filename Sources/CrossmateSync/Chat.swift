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
