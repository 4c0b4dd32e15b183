import ArgumentParser
import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import Foundation

/// `crossmate friends`: the players you have played with, their colours, pins and blocks.
struct Friends: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The players you have played with: colours, pins and blocks.",
        subcommands: [List.self, Pin.self, Unpin.self, Block.self, Unblock.self, Colour.self],
        defaultSubcommand: List.self)

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
        @Argument(help: "A colour: brown, orange, olive, green, teal, blue, indigo, purple or magenta.") var colour: String
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
        @Argument(help: "A colour name, or none.") var colour: String
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
    @Argument(help: "The game: its id or the start of its title.") var game: String
    @Argument(help: "A short message (optional).") var message: String?
    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            let engine = try profile.engine()
            let gameID = try await engine.resolve(game)
            _ = try await engine.nudge(gameID, message: message)
            print("Nudged the other players of \(TextRule.terminalSafe(try engine.store.game(gameID)?.title ?? gameID)).")
        }
    }
}
