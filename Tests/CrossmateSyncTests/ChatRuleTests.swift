import CrossmateCore
import Testing

@testable import CrossmateSync

/// The chat's rules: what a message may hold, the conversation's one order, unread counts, and
/// reactions where the latest decides whatever order they arrive in.
@Suite struct ChatRuleTests {
    func message(_ id: String, by author: String, on replica: String, at millis: Int64, counter: UInt16 = 0) -> ChatMessage {
        ChatMessage(
            gameID: "g", authorID: author, replicaID: replica, messageID: id, text: id, timestamp: HLCTimestamp(wallMillis: millis, counter: counter))
    }

    @Test func aMessagesTextIsHeldToOneRule() throws {
        #expect(try Chat.text("  look at 17 Across \u{1F440}\t") == "look at 17 Across \u{1F440}")
        #expect(throws: TextRule.Violation.controlCharacter(field: "a message")) { try Chat.text("hi\u{1B}[2J") }
        #expect(throws: TextRule.Violation.controlCharacter(field: "a message")) { try Chat.text("two\nlines") }
        #expect(throws: TextRule.Violation.bidiControl(field: "a message")) { try Chat.text("abc\u{202E}def") }
        #expect(throws: TextRule.Violation.empty(field: "a message")) { try Chat.text("   ") }
        #expect(throws: TextRule.Violation.invisible(field: "a message")) { try Chat.text("\u{200B}") }
        #expect(try Chat.text(String(repeating: "é", count: 500)).utf8.count == 1_000)
        #expect(throws: TextRule.Violation.tooLong(field: "a message", maximumBytes: 1_000)) { try Chat.text(String(repeating: "é", count: 501)) }
        #expect(Chat.isValidID("lq3k-abc_9") && !Chat.isValidID("") && !Chat.isValidID("a/b") && !Chat.isValidID(String(repeating: "a", count: 65)))
    }

    /// Seeded shuffles of one conversation: every arrival order shows the same order; unread
    /// counts only others' messages after the horizon, without blocked accounts.
    @Test func theConversationHasOneOrderWhateverTheArrival() {
        let messages = [
            message("a", by: "ann", on: "d1", at: 10), message("b", by: "bob", on: "d2", at: 10),
            message("c", by: "ann", on: "d3", at: 10, counter: 1),
            message("d", by: "cy", on: "d4", at: 5), message("e", by: "bob", on: "d2", at: 30),
        ]
        let expected = Chat.ordered(messages)
        #expect(expected.map(\.messageID) == ["d", "a", "b", "c", "e"])
        var random = SeededRandomNumberGenerator(seed: 7)
        for _ in 0..<50 { #expect(Chat.ordered(messages.shuffled(using: &random)) == expected) }
        let sequenced = messages.enumerated().map { (sequence: Int64($0.offset + 1), message: $0.element) }
        #expect(Chat.unread(sequenced, horizon: 1, me: "ann") == 3)
        #expect(Chat.unread(sequenced, horizon: 1, me: "ann", hiding: ["bob"]) == 1)
        #expect(Chat.shown(expected, hiding: ["ann"]).map(\.messageID) == ["d", "b", "e"])
    }

    @Test func theLatestReactionDecidesInAnyOrder() {
        func reaction(_ author: String, _ emoji: String, on: Bool, at millis: Int64) -> Reaction {
            Reaction(gameID: "g", authorID: author, messageKey: "d1:a", emoji: emoji, on: on, timestamp: HLCTimestamp(wallMillis: millis))
        }
        let all = [
            reaction("ann", "👍", on: true, at: 1), reaction("ann", "👍", on: false, at: 2), reaction("bob", "👍", on: true, at: 3),
            reaction("bob", "❤️", on: true, at: 4), reaction("ann", "👍", on: true, at: 5), reaction("cy", "❤️", on: false, at: 6),
            reaction("cy", "❤️", on: true, at: 6),
        ]
        var random = SeededRandomNumberGenerator(seed: 11)
        let expected = Chat.tallies(all)
        #expect(expected["d1:a"] == [Chat.Tally(emoji: "👍", authors: ["bob", "ann"]), Chat.Tally(emoji: "❤️", authors: ["bob", "cy"])])
        for _ in 0..<50 { #expect(Chat.tallies(all.shuffled(using: &random)) == expected) }
        #expect(Chat.tallies(all, hiding: ["bob"])["d1:a"] == [Chat.Tally(emoji: "👍", authors: ["ann"]), Chat.Tally(emoji: "❤️", authors: ["cy"])])
        // Taken back on a device whose clock is 5 ms behind the one that gave it: the new word is
        // stamped after the held one, so it decides.
        let given = reaction("bob", "🎉", on: true, at: 100)
        let takenBack = Reaction(
            gameID: "g", authorID: "bob", messageKey: "d1:a", emoji: "🎉", on: false, timestamp: .after(given.timestamp, now: 95))
        #expect(takenBack.wins(over: given) && Chat.tallies([given, takenBack])["d1:a"]?.contains { $0.emoji == "🎉" } != true)
        #expect(HLCTimestamp.after(nil, now: 95) == HLCTimestamp(wallMillis: 95) && HLCTimestamp.after(given.timestamp, now: 120).wallMillis == 120)
        #expect(Chat.isReaction("👍") && Chat.isReaction("❤️") && Chat.isReaction("👍🏽") && Chat.isReaction("1️⃣"))
        #expect(!Chat.isReaction("1") && !Chat.isReaction("#") && !Chat.isReaction("ab") && !Chat.isReaction("👍👍") && !Chat.isReaction(""))
        // Emoji as emoji are spelled: flags, keycaps, joined families, subdivision flags.
        for good in Chat.quickReactions + ["🇫🇷", "#️⃣", "👩‍👩‍👧", "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}", "🤷🏽‍♀️", "☺️"] {
            #expect(Chat.isReaction(good), "\(good) was refused")
        }
        // Nothing stacked on or hidden after one: an accented #, 14 combining marks, tag
        // characters, a lone skin tone or variation selector, text-style symbols.
        let stacked = "👍" + String(repeating: "\u{301}", count: 14)
        for bad in ["#\u{301}", stacked, "👍\u{E0041}\u{E0042}", "🏽", "\u{FE0F}", "☺", "©", "👍\u{200D}", "\u{200D}👍", "🇫"] {
            #expect(!Chat.isReaction(bad), "\(bad.unicodeScalars.map { String($0.value, radix: 16) }) was taken")
        }
    }
}

/// Clue flags: the latest per author and clue decides, and a full word takes every flag on it
/// down on every device alike.
@Suite struct FlagRuleTests {
    @Test func aFlagShowsUntilItsWordIsFullOrItsAuthorTakesItDown() throws {
        let puzzle = try Puzzle(
            title: "T", width: 2, height: 2, cells: [.letter("A"), .letter("B"), .letter("C"), .letter("D")],
            across: [
                Clue(direction: .across, number: 1, text: "AB", cells: [GridPosition(row: 0, col: 0), GridPosition(row: 0, col: 1)]),
                Clue(direction: .across, number: 3, text: "CD", cells: [GridPosition(row: 1, col: 0), GridPosition(row: 1, col: 1)]),
            ],
            down: [
                Clue(direction: .down, number: 1, text: "AC", cells: [GridPosition(row: 0, col: 0), GridPosition(row: 1, col: 0)]),
                Clue(direction: .down, number: 2, text: "BD", cells: [GridPosition(row: 0, col: 1), GridPosition(row: 1, col: 1)]),
            ])
        func flag(_ author: String, _ number: Int, _ direction: Direction, on: Bool, at millis: Int64) -> ClueFlag {
            ClueFlag(gameID: "g", authorID: author, number: number, direction: direction, on: on, timestamp: HLCTimestamp(wallMillis: millis))
        }
        let flags = [
            flag("ann", 1, .across, on: true, at: 1), flag("bob", 1, .across, on: true, at: 2), flag("ann", 1, .across, on: false, at: 3),
            flag("bob", 2, .down, on: true, at: 4), flag("cy", 9, .down, on: true, at: 5),
        ]
        var replica = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "d", authorID: "ann")
        var random = SeededRandomNumberGenerator(seed: 3)
        let expected = Flags.shown(flags, puzzle: puzzle, grid: replica.grid)
        #expect(expected.map(\.key) == ["bob|1A", "bob|2D"])
        for _ in 0..<30 { #expect(Flags.shown(flags.shuffled(using: &random), puzzle: puzzle, grid: replica.grid) == expected) }
        // 1 Across filled: its flags go; 2 Down keeps its one (D is empty).
        _ = try replica.perform(.setLetter(GridPosition(row: 0, col: 0), "A"), wallMillis: 10)
        _ = try replica.perform(.setLetter(GridPosition(row: 0, col: 1), "B"), wallMillis: 11)
        #expect(Flags.shown(flags, puzzle: puzzle, grid: replica.grid).map(\.key) == ["bob|2D"])
        #expect(Flags.name(17, .across) == "17 Across")
    }
}
