import ArgumentParser
import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

/// `crossmate friends`: the players you have played with, their colours, pins and blocks.
struct Friends: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The players you have played with: colours, pins and blocks.",
        subcommands: [List.self, Pin.self, Unpin.self, Block.self, Unblock.self, Colour.self],
        defaultSubcommand: List.self)

    /// The palette's names as the help and the README give them: "brown, orange, …, purple or magenta".
    static var colourNames: String {
        let names = PlayerColors.palette.map(\.name)
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    static func colorIndex(_ text: String) throws -> Int? {
        let lowered = text.lowercased()
        if ["none", "auto", "automatic"].contains(lowered) { return nil }
        if let index = Int(lowered), PlayerColors.palette.indices.contains(index) { return index }
        if let index = PlayerColors.palette.firstIndex(where: { $0.name == lowered }) { return index }
        throw ClientFailure(
            "\"\(text)\" is not a colour: use one of \(PlayerColors.palette.map(\.name).joined(separator: ", ")) (or none)")
    }

    /// A friend by an unambiguous start of their name (or their authorID).
    static func friend(_ name: String, in response: FriendsResponse) throws -> FriendView {
        try uniqueMatch(
            name, in: response.friends, id: \.authorID, name: \.displayName,
            none: "you have not played with anyone called '\(TextRule.terminalSafe(name))' (see `crossmate friends`)")
    }

    /// Finds the friend `name` and sets (or, with a nil value, clears) a Decision about them.
    static func decide(_ kind: DecisionKind, about name: String, value: String?, profile: ProfileOption) async throws {
        let engine = try profile.engine()
        let friend = try Friends.friend(name, in: try await engine.friends())
        try Friends.show(try await engine.decide(kind: kind.rawValue, about: friend.authorID, value: value), json: false)
    }

    static func show(_ response: FriendsResponse, json: Bool) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(response.friends), as: UTF8.self))
            return
        }
        let mine = response.preferredColor.map { PlayerColors.palette[$0].name } ?? "automatic"
        print("Your colour: \(mine)")
        guard !response.friends.isEmpty else {
            print("Nobody yet: the people you play with appear here.")
            return
        }
        for friend in response.friends {
            var notes = ["\(friend.gamesTogether) \(friend.gamesTogether == 1 ? "game" : "games") together"]
            if friend.pinned != nil { notes.append("pinned") }
            if friend.blocked { notes.append("blocked") }
            print(
                "\(friend.symbol) \(TextRule.terminalSafe(friend.displayName))  \(PlayerColors.palette[friend.colorIndex].name)  — \(notes.joined(separator: ", "))"
            )
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List them.")
        @Flag(help: "Print a JSON list of objects.") var json = false
        @OptionGroup var profile: ProfileOption

        func run() async throws {
            try await reporting { try Friends.show(try await profile.engine().friends(), json: json) }
        }
    }

    struct Pin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Always show a friend in one colour (on all your devices).")
        @Argument(help: "The friend: the start of their name.") var name: String
        @Argument(help: ArgumentHelp("A colour: \(Friends.colourNames).")) var colour: String
        @OptionGroup var profile: ProfileOption

        func run() async throws {
            try await reporting {
                try await Friends.decide(.color, about: name, value: try Friends.colorIndex(colour).map(String.init), profile: profile)
            }
        }
    }

    struct Unpin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a friend's colour be chosen again.")
        @Argument(help: "The friend: the start of their name.") var name: String
        @OptionGroup var profile: ProfileOption

        func run() async throws {
            try await reporting { try await Friends.decide(.color, about: name, value: nil, profile: profile) }
        }
    }

    struct Block: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hide a player's nudges and invitations.")
        @Argument(help: "The player: the start of their name.") var name: String
        @OptionGroup var profile: ProfileOption

        func run() async throws {
            try await reporting { try await Friends.decide(.block, about: name, value: "1", profile: profile) }
        }
    }

    struct Unblock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a blocked player's nudges and invitations again.")
        @Argument(help: "The player: the start of their name.") var name: String
        @OptionGroup var profile: ProfileOption

        func run() async throws {
            try await reporting { try await Friends.decide(.block, about: name, value: nil, profile: profile) }
        }
    }

    struct Colour: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Your own colour, as you see yourself (none: automatic).")
        @Argument(help: ArgumentHelp("A colour (\(Friends.colourNames)), or none.")) var colour: String
        @OptionGroup var profile: ProfileOption

        func run() async throws {
            try await reporting {
                try Friends.show(try await profile.engine().setPreferredColor(try Friends.colorIndex(colour)), json: false)
            }
        }
    }
}

/// `crossmate nudge GAME [MESSAGE]`: ask the other players to come and help.
struct Nudge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Ask a game's other players to come and help.")
    @Argument(help: .game) var game: String
    @Argument(help: "A short message (optional).") var message: String?
    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            // Only the server is asked: it works while `play` holds the profile.
            let (engine, busy) = try profile.engine(readOnlyIfBusy: true)
            let gameID = try await engine.resolve(game, syncing: busy == nil)
            _ = try await engine.nudge(gameID, message: message)
            print("Nudged the other players of \(TextRule.terminalSafe(try engine.store.game(gameID)?.title ?? gameID)).")
        }
    }
}

struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Print a game's conversation, or send a message to its players.",
        discussion: """
            With a message, it is kept on this device and sent (offline: at the next sync or play). \
            Without one, the conversation is printed, oldest first, and counts as read on all your devices.
            """)
    @Argument(help: .game) var game: String
    @Argument(help: "The message to send (quote it, or give it as several words).") var message: [String] = []
    @Flag(help: "Print the conversation as JSON.") var json = false
    @OptionGroup var profile: ProfileOption

    struct Line: Encodable {
        var from: String
        var fromAuthor: String
        var text: String
        var at: Int64
        var sent: Bool
        var refusal: String?
        /// Each emoji with the names of who gave it.
        var reactions: [String: [String]]
    }

    func run() async throws {
        try await reporting {
            // Reading works while `play` holds the profile (what this device holds, not synced);
            // writing is play's there (^T), which keeps and sends this device's messages.
            let (engine, busy) = try profile.engine(readOnlyIfBusy: true)
            let gameID = try await engine.resolve(game, syncing: busy == nil)
            if !message.isEmpty, let busy {
                throw ClientFailure(
                    "profile '\(busy.profile)' is in use by \(busy.holder): write there with ^T, or use another profile with --profile NAME")
            }
            if !message.isEmpty {
                let written: ChatMessage
                do {
                    written = try await engine.send(message: message.joined(separator: " "), in: gameID)
                } catch {
                    throw ClientFailure("\(error)")
                }
                do {
                    _ = try await engine.syncOnce()
                } catch {
                    print("Kept on this device, sent at the next `crossmate sync` or `crossmate play`; offline: \(error).")
                    return
                }
                let line = await engine.conversation(gameID).first { $0.message.key == written.key }
                if let refusal = line?.refusal { throw ClientFailure("the server refused the message: \(refusal)") }
                guard line?.sent == true else {
                    print("Kept on this device: not sent yet; it is sent at the next `crossmate sync` or `crossmate play`.")
                    return
                }
                print("Sent to \(TextRule.terminalSafe(try engine.store.game(gameID)?.title ?? gameID)).")
                return
            }
            var offline: String?
            if let busy {
                printError(busy.readingOnly)
            } else {
                do { _ = try await engine.syncOnce() } catch { offline = "\(error)" }
            }
            let names = Dictionary(
                ((try? engine.store.participants(gameID: gameID)) ?? []).map { ($0.authorID, $0.displayName) },
                uniquingKeysWith: { first, _ in first })
            let lines = await engine.conversation(gameID).map { line in
                Line(
                    from: names[line.message.authorID] ?? PlayerColors.placeholderName(line.message.authorID), fromAuthor: line.message.authorID,
                    text: line.message.text, at: line.message.timestamp.wallMillis, sent: line.sent, refusal: line.refusal,
                    reactions: Dictionary(
                        line.reactions.map { ($0.emoji, $0.authors.map { names[$0] ?? PlayerColors.placeholderName($0) }) },
                        uniquingKeysWith: { first, _ in first }))
            }
            // Shown: read on every device of the account.
            if offline == nil, busy == nil { _ = await engine.presence(gameID, entering: false) }
            if let offline { printError("offline, showing what this device knows: \(offline)") }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(lines), as: UTF8.self))
                return
            }
            guard !lines.isEmpty else {
                print("No messages yet: send one with `crossmate chat \(gameID) \"MESSAGE\"`.")
                return
            }
            let me = engine.identity.authorID
            for (number, line) in lines.enumerated() {
                let note = line.refusal.map { "  (not sent: \($0))" } ?? (line.sent ? "" : "  (not sent yet)")
                let reactions = line.reactions.sorted { $0.key < $1.key }.map { "\($0.key)\($0.value.count)" }.joined(separator: " ")
                let who = line.fromAuthor == me ? "You" : line.from
                // Names and messages come from other people: shown, never obeyed.
                print(
                    TextRule.terminalSafe("\(String(number + 1).leftPadded(3)) \(SyncStatus.clock(line.at))  \(who): \(line.text)") + note
                        + (reactions.isEmpty ? "" : "  " + reactions))
            }
        }
    }
}

struct React: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "React to a chat message with an emoji (or take the reaction back).",
        discussion: "Messages are numbered as `crossmate chat GAME` prints them; without --to, the latest message by someone else.")
    @Argument(help: .game) var game: String
    @Argument(help: "One emoji, such as \(Chat.quickReactions.joined(separator: " ")).") var emoji: String
    @Option(help: "The message's number in `crossmate chat`.") var to: Int?
    @Flag(help: "Take the reaction back.") var remove = false
    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            let engine = try profile.engine()
            let gameID = try await engine.resolve(game)
            _ = try? await engine.syncOnce()
            let lines = await engine.conversation(gameID)
            let line: ChatLine
            if let to {
                guard lines.indices.contains(to - 1) else {
                    throw ClientFailure("there is no message \(to): `crossmate chat \(gameID)` numbers them 1 to \(lines.count)")
                }
                line = lines[to - 1]
            } else {
                guard let latest = lines.last(where: { $0.message.authorID != engine.identity.authorID }) else {
                    throw ClientFailure("no one else has written in this game's chat yet")
                }
                line = latest
            }
            do {
                try await engine.react(to: line.message.key, with: emoji, on: !remove, in: gameID)
            } catch {
                throw ClientFailure("\(error)")
            }
            do { _ = try await engine.syncOnce() } catch {
                print("Kept on this device, sent at the next `crossmate sync` or `crossmate play`; offline: \(error).")
                return
            }
            print(
                TextRule.terminalSafe("\(remove ? "Took back" : "Gave") \(emoji) \(remove ? "from" : "to") “\(line.message.text.prefix(bytes: 60))”.")
            )
        }
    }
}

extension String {
    /// At least `width` characters, spaces before.
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Your puzzles solved, times by grid size, help used, your streak, and each friend's games with you.",
        discussion: "Days are counted in this computer's time zone (TZ), from the games on the server.")
    @Flag(help: "Print the stats as JSON.") var json = false
    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            let (engine, _) = try profile.engine(readOnlyIfBusy: true)
            let answer: StatsResponse
            do { answer = try await engine.stats(timeZone: TimeZone.current.identifier) } catch {
                throw ClientFailure("the stats come from the server: \(error)")
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(answer), as: UTF8.self))
                return
            }
            let stats = answer.stats
            guard stats.finished > 0 else {
                print("No finished puzzles yet: your stats start with the first one.")
                return
            }
            let clock = SolvingTime.clock
            func days(_ n: Int) -> String { "\(n) day\(n == 1 ? "" : "s")" }
            let help = [(stats.withChecks, "checks"), (stats.withReveals, "reveals"), (stats.withAutocheck, "autocheck")].filter { $0.0 > 0 }
                .map { "\($0.1) in \($0.0)" }
            print(
                "Solved \(stats.solved) of \(stats.finished) finished puzzle\(stats.finished == 1 ? "" : "s") (\(stats.clean) without help"
                    + (help.isEmpty ? "" : "; " + help.joined(separator: ", ")) + ").")
            print(
                "Streak: \(days(stats.currentStreak)) (longest \(days(stats.longestStreak))); without help: \(days(stats.cleanCurrentStreak))"
                    + " (longest \(days(stats.cleanLongestStreak))), days in \(answer.timeZone).")
            for (index, size) in stats.bySize.enumerated() {
                print(
                    (index == 0 ? "Times:  " : "        ") + size.size.padding(toLength: 7, withPad: " ", startingAt: 0)
                        + " median \(clock(size.medianSeconds)), best \(clock(size.bestSeconds)) (\(size.solved) solved)")
            }
            let bars = Array("▁▂▃▄▅▆▇█")
            let most = max(1, stats.recent.map(\.solved).max() ?? 1)
            let line = stats.recent.map { $0.solved == 0 ? "·" : String(bars[min(bars.count - 1, ($0.solved * bars.count - 1) / most)]) }.joined()
            print("Last \(Stats.recentDays) days: \(line)  (\(answer.recentDates.first ?? "") to \(answer.recentDates.last ?? ""))")
            if !stats.together.isEmpty { print("With friends:") }
            for friend in stats.together.prefix(20) {
                let name = TextRule.terminalSafe(answer.names[friend.authorID] ?? PlayerColors.placeholderName(friend.authorID))
                print(
                    "  \(name): \(friend.solved) solved together, median \(clock(friend.medianSeconds)), streak \(days(friend.currentStreak))"
                        + " (longest \(days(friend.longestStreak)))")
            }
        }
    }
}
