import CrossmateCore
import CrossmateProtocol
import CrossmateSync

/// A hosted browser's social view of its game: the conversation it holds, the reactions and
/// clue flags that stand, as this account sees them (without accounts it blocked), and what the
/// browser has not been sent yet. Pure state: the replica feeds it what it reads, and takes
/// from it what each frame carries.
struct BrowserConversation {
    /// The conversation this browser holds, in `Chat.ordered` order, without the messages of
    /// accounts this one blocked (as of opening); the keys of every message read; and the
    /// messages the browser has not been sent yet.
    private(set) var conversation: [ChatMessage]
    private var messageKeys: Set<String>
    /// Each message's zone sequence (the catch-up counts those after the account's horizon).
    private(set) var messageSequences: [(sequence: Int64, message: ChatMessage)]
    private var news: [MessageView] = []
    /// The deciding reaction of each author, message and emoji (`Chat.tallies` says which
    /// stand), and the messages whose reactions the browser has not been sent yet.
    private(set) var reactions: [String: Reaction]
    private var reactionNews: Set<String> = []
    /// The deciding flag of each author and clue, and the flags that show as the browser was
    /// last sent them.
    private(set) var flags: [String: ClueFlag]
    private var flagsSent: [FlagView]?
    /// Accounts this one blocked: their messages, reactions and flags are not shown.
    var blocked: Set<String> = []

    init(messages: [(sequence: Int64, message: ChatMessage)], reactions: [Reaction], flags: [ClueFlag]) {
        self.flags = [String: ClueFlag](deciding: flags)
        self.reactions = [String: Reaction](deciding: reactions)
        messageKeys = Set(messages.map(\.message.key))
        messageSequences = messages
        conversation = Chat.ordered(messages.map(\.message))
    }

    /// Whether anything is waiting to be sent (a message, or reactions that changed).
    var hasNews: Bool { !news.isEmpty || !reactionNews.isEmpty }

    /// Messages read from the zone (with their sequences) or just written: each new one takes
    /// its place in the conversation, and the browser is sent it with its index there.
    mutating func hear(_ messages: [(sequence: Int64, message: ChatMessage)]) {
        messageSequences += messages
        hear(messages.map(\.message))
    }

    mutating func hear(_ messages: [ChatMessage]) {
        for message in Chat.ordered(messages) where messageKeys.insert(message.key).inserted && !blocked.contains(message.authorID) {
            let index = conversation.firstIndex { Chat.ordered([$0, message]).first == message } ?? conversation.count
            conversation.insert(message, at: index)
            news.append(MessageView(message, index: index))
        }
    }

    /// Reactions read from the zone or just given: the messages they are on are sent again.
    mutating func hear(_ fresh: [Reaction]) {
        for reaction in fresh where reactions.keepDeciding(reaction) { reactionNews.insert(reaction.messageKey) }
    }

    /// Flags read from the zone or just raised: each key keeps its deciding one.
    mutating func keep(_ fresh: [ClueFlag]) {
        for flag in fresh { flags.keepDeciding(flag) }
    }

    /// The messages not yet sent to the browser (each sent once, with the next frame).
    mutating func takeNews() -> [MessageView]? {
        defer { news = [] }
        return news.isEmpty ? nil : news
    }

    /// The standing reactions of messages whose reactions changed since the last frame, each
    /// message's within its share of the frame's budget for the conversation.
    mutating func takeReactionNews() -> [MessageReactions]? {
        guard !reactionNews.isEmpty else { return nil }
        defer { reactionNews = [] }
        let tallies = Chat.tallies(reactions.values, hiding: blocked)
        let share = FrameBudget.conversationBytes / reactionNews.count
        return reactionNews.sorted().map { key in
            MessageReactions(key: key, tallies: FrameBudget.fitTallies(tallies[key] ?? [], key: key, bytes: share).tallies)
        }
    }

    /// The flags that show, when they differ from what the browser was last sent (a word just
    /// filled takes its flags down).
    mutating func takeFlagNews(puzzle: Puzzle, grid: GameGrid) -> [FlagView]? {
        let shown = Flags.shown(flags.values, puzzle: puzzle, grid: grid, hiding: blocked).map { FlagView($0, puzzle: puzzle) }
        guard shown != flagsSent else { return nil }
        flagsSent = shown
        return shown
    }

    /// A browser opens the game: nothing it was owed is owed any more, and the conversation it
    /// holds from now on is the newest messages that fit the frame's budget, with their
    /// reactions (`FrameBudget.fitConversation`).
    mutating func opening() -> (messages: [MessageView], reactions: [MessageReactions]) {
        news = []
        reactionNews = []
        flagsSent = nil
        let (shown, tallies) = FrameBudget.fitConversation(
            Array(Chat.shown(conversation, hiding: blocked).suffix(MessageView.maximumOpened)),
            tallies: Chat.tallies(reactions.values, hiding: blocked))
        conversation = shown
        return (
            conversation.enumerated().map { MessageView($0.element, index: $0.offset) },
            conversation.compactMap { message in tallies[message.key].map { MessageReactions(key: message.key, tallies: $0) } }
        )
    }
}
