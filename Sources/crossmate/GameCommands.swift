import ArgumentParser
import CrossmateClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import CrossmateTerminal
import Foundation
import Synchronization

// The commands about games: listing them, starting one, inviting, exporting, removing, leaving,
// joining and syncing.

struct Games: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List your games: title, progress, players, state.")

    @Flag(help: "Print a JSON list of objects.")
    var json = false

    @OptionGroup var profile: ProfileOption

    struct Entry: Encodable {
        var gameID: String
        var title: String
        var filled: Int
        var total: Int
        var completed: Bool
        var readOnly: Bool
        var players: [String]
        var unsent: Int
        /// Another player moved since this account last looked (as the server last said).
        var unread: Bool
        /// Recent nudges: who, what they said (maybe nothing) and when (Unix ms).
        var nudges: [NudgeEntry]
        /// Chat messages others wrote since this account last looked (as the server last said).
        var unreadMessages: Int
        /// The last move this device knows of, or when the game was made (Unix ms): the list's order.
        var lastActivity: Int64
        /// What would have called this account back to the game (`CallBack`): "nudge", "chat",
        /// "moves"; empty for none.
        var callsBack: [String]
    }

    struct NudgeEntry: Encodable {
        var from: String
        var fromAuthor: String
        var message: String
        var at: Int64

        /// "Ben nudged you" or "Ben nudged you: come and help with 17-Across".
        var sentence: String { from + " nudged you" + (message.isEmpty ? "" : ": " + message) }
    }

    func run() async throws {
        try await reporting {
            // Listing only reads: a profile another process is playing on is shown as this device
            // knows it, without syncing (which would write).
            let (engine, busy) = try profile.engine(readOnlyIfBusy: true)
            var offline: String?
            if let busy {
                printError(busy.readingOnly)
            } else {
                do { _ = try await engine.syncOnce() } catch { offline = "\(error)" }
            }
            var entries: [Entry] = []
            let lastMoves = try engine.store.lastMoveTimes()
            // The call-back rule's facts this device has: the account's settings and blocks
            // (from the server when it answers), the server's unread marks, the nudges.
            let settings = busy == nil && offline == nil ? (try? await engine.settings()).map { SolverSettings(stored: $0.settings) } : nil
            let blocked = busy == nil && offline == nil ? Set(((try? await engine.friends())?.friends ?? []).filter(\.blocked).map(\.authorID)) : []
            let me = engine.identity.authorID
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            for local in try engine.store.games() {
                let view = try await engine.view(local.game.gameID)
                let progress = view.progress
                entries.append(
                    Entry(
                        gameID: local.game.gameID, title: local.title, filled: progress.filled, total: progress.total,
                        completed: view.completion != nil, readOnly: view.readOnly,
                        players: view.players.filter { !$0.revoked }.sorted { ($0.role == .owner ? 0 : 1) < ($1.role == .owner ? 0 : 1) }
                            .map(\.displayName),
                        unsent: try engine.store.unsentCount(gameID: local.game.gameID),
                        unread: await engine.unread[local.game.gameID] ?? false,
                        nudges: (await engine.nudges[local.game.gameID] ?? []).map {
                            NudgeEntry(from: $0.fromName, fromAuthor: $0.fromAuthor, message: $0.message, at: $0.createdAt)
                        },
                        unreadMessages: await engine.unreadMessages[local.game.gameID] ?? 0,
                        lastActivity: max(lastMoves[local.game.gameID] ?? 0, local.game.createdAt), callsBack: []))
                entries[entries.count - 1].callsBack = Self.callsBack(
                    entries[entries.count - 1], me: me, blocked: blocked, settings: CallBack.Settings(settings ?? SolverSettings()), now: now)
            }
            // The game with news first: by last activity, newest first.
            entries.sort { ($0.lastActivity, $0.gameID) > ($1.lastActivity, $1.gameID) }
            if let offline { printError("offline, showing what this device knows: \(offline)") }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(entries), as: UTF8.self))
                return
            }
            guard !entries.isEmpty else {
                print("No games yet: start one with `crossmate new --bundled daybreak`, or join a link with `crossmate join LINK`.")
                return
            }
            let columns = RawTerminal.outputColumns
            for entry in entries {
                var state: [String] = []
                if entry.unread { state.append("new moves") }
                if entry.unreadMessages > 0 { state.append("\(entry.unreadMessages) new message\(entry.unreadMessages == 1 ? "" : "s")") }
                if entry.completed { state.append("completed") }
                if entry.readOnly { state.append("read-only") }
                if entry.unsent > 0 { state.append("\(entry.unsent) unsent") }
                if !entry.callsBack.isEmpty { state.append("calls you back (\(entry.callsBack.joined(separator: ", ")))") }
                let percent = entry.total == 0 ? 0 : entry.filled * 100 / entry.total
                // Titles, names and nudges come from other people: shown, never obeyed.
                let facts = "  [\(entry.gameID)]  \(entry.filled)/\(entry.total) (\(percent)%)  \(entry.players.joined(separator: ", "))"
                let states = state.isEmpty ? "" : "  — " + state.joined(separator: ", ")
                for line in Self.lines(title: entry.title, facts: facts, state: states, columns: columns) {
                    print(TextRule.terminalSafe(line))
                }
                for nudge in entry.nudges { print(TextRule.terminalSafe(Self.fit("    " + nudge.sentence, columns))) }
            }
        }
    }
}

extension Games {
    /// A game's listing in a terminal `columns` wide (nil: a pipe, whole lines): the title cut
    /// with "…" so its id, progress and players stay on its line, and what is new on the next
    /// line when it does not fit beside them.
    static func lines(title: String, facts: String, state: String, columns: Int?) -> [String] {
        guard let columns, title.count + facts.count + state.count > columns else { return [title + facts + state] }
        let room = max(12, columns - facts.count)
        let first = fit(PlayScreen.clip(title, to: room) + facts, columns)
        guard !state.isEmpty else { return [first] }
        if first.count + state.count <= columns { return [first + state] }
        return [first, fit("   " + state.dropFirst(1), columns)]
    }

    /// `text` cut with "…" to `columns` characters (nil: whole).
    static func fit(_ text: String, _ columns: Int?) -> String {
        columns.map { PlayScreen.clip(text, to: $0) } ?? text
    }

    /// The events in `entry` that would have called `me` back by push (`CallBack.calls`, the
    /// rule the server's notifier applies): a nudge, chat and moves since the account last
    /// looked. Listing, none of this device's is in the game.
    static func callsBack(_ entry: Entry, me: String, blocked: Set<String>, settings: CallBack.Settings, now: Int64) -> [String] {
        guard !entry.completed else { return [] }
        var events: [CallBack.Event] = []
        let nudgers = entry.nudges.map(\.fromAuthor).filter { !blocked.contains($0) }
        if let from = nudgers.first,
            CallBack.calls(CallBack.Facts(event: .nudge, sender: from, recipient: me, blocked: blocked, settings: settings), now: now)
        {
            events.append(.nudge)
        }
        // The server's unread marks stand for "another player, after this account's horizon".
        let others = "another player"
        if entry.unreadMessages > 0,
            CallBack.calls(CallBack.Facts(event: .chat, sender: others, recipient: me, settings: settings, sequence: 1), now: now)
        {
            events.append(.chat)
        }
        if entry.unread, CallBack.calls(CallBack.Facts(event: .moves, sender: others, recipient: me, settings: settings, sequence: 1), now: now) {
            events.append(.moves)
        }
        return events.map(\.rawValue)
    }
}

struct New: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start a game from a puzzle file or a bundled puzzle.",
        discussion: "Bundled puzzles: \(BundledPuzzles.identifiers.joined(separator: ", "))."
    )

    @Argument(help: "A .puz, .ipuz, .jpz or .xd file.")
    var file: String?

    @Option(help: "A bundled puzzle's name instead of a file.")
    var bundled: String?

    @Option(help: ArgumentHelp("The 4-digit key of a locked (scrambled) .puz solution.", valueName: "NNNN"))
    var key: UnlockKey?

    @Option(help: ArgumentHelp("The next puzzle together: everyone playing GAME (its id or title) joins the new one.", valueName: "GAME"))
    var with: String?

    @OptionGroup var profile: ProfileOption

    func validate() throws {
        guard (file == nil) != (bundled == nil) else { throw ValidationError("give a puzzle FILE or --bundled NAME (one of them)") }
    }

    func run() async throws {
        try await reporting {
            let engine = try profile.engine()
            var request = CreateGameRequest(bundled: bundled)
            var locked = false
            if let file { (request, locked) = try PuzzleInput.upload(file, shown: file, unlockKey: key?.value) }
            if let with { request.with = try await engine.resolve(with) }
            let gameID = try await engine.createGame(request)
            let title = try engine.store.game(gameID)?.title ?? gameID
            let others = (try? engine.store.participants(gameID: gameID))?.filter { $0.authorID != engine.identity.authorID }.map(\.displayName) ?? []
            if locked && key == nil {
                printError(
                    "note: \(file ?? "the puzzle") is locked (its answers are scrambled) and no --key was given, so this game cannot be checked or revealed"
                )
            }
            if with != nil {
                let names = others.isEmpty ? "no one else (no other player is still in that game)" : others.joined(separator: ", ")
                print(TextRule.terminalSafe("Started \(title) [\(gameID)] with \(names). Play with `crossmate play \(gameID)`."))
                return
            }
            print(
                "Started \(TextRule.terminalSafe(title)) [\(gameID)]. Invite friends with `crossmate invite \(gameID)`; play with `crossmate play \(gameID)`."
            )
        }
    }
}

struct Invite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a link that invites a friend to a game (any player can; the owner can revoke it).",
        discussion: "`crossmate uninvite LINK` makes a link stop working.")

    @Argument(help: .game)
    var game: String

    @Option(help: "Hours until the link stops working (default: it does not).")
    var expiresIn: Int?

    @OptionGroup var profile: ProfileOption

    func validate() throws {
        if let expiresIn, !(1...(366 * 24)).contains(expiresIn) { throw ValidationError("--expires-in is 1 to 8784 hours (a year)") }
    }

    func run() async throws {
        try await reporting {
            // Only the server is asked: it works while `play` holds the profile.
            let (engine, busy) = try profile.engine(readOnlyIfBusy: true)
            print(try await engine.invite(try await engine.resolve(game, syncing: busy == nil), expiresInSeconds: expiresIn.map { $0 * 3_600 }))
        }
    }
}

/// `crossmate export GAME`: the game as a puzzle file, to take it to another app.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save a game as a puzzle file (.ipuz, .puz, .jpz or .xd), with its letters if asked.",
        discussion: "Only a player of the game can export it. `crossmate export --all` saves your latest games in one zip.")

    @Argument(help: "The game: the start of its id or of its title (leave out with --all).")
    var game: String?

    @Flag(help: "All your latest games, in one zip.")
    var all = false

    @Option(help: "puz, ipuz, jpz or xd.")
    var format = "ipuz"

    @Flag(help: "With the grid's letters as they stand (not for xd, which keeps none).")
    var withFill = false

    @Option(name: .shortAndLong, help: "The file to write (default: the game's title and the format's extension, here).")
    var output: String?

    @OptionGroup var profile: ProfileOption

    func validate() throws {
        guard let written = PuzzleFormat(rawValue: format.lowercased()) else {
            throw ValidationError("--format is puz, ipuz, jpz or xd, not \(format)")
        }
        guard (game == nil) == all else { throw ValidationError(all ? "name no game with --all" : "name a game, or export them all with --all") }
        if withFill, !written.keepsFill {
            throw ValidationError("an .xd file keeps no player's letters; use --format puz, ipuz or jpz with --with-fill")
        }
    }

    func run() async throws {
        try await reporting {
            // Only the server is asked: it works while `play` holds the profile.
            let (engine, busy) = try profile.engine(readOnlyIfBusy: true)
            let gameID = try await game.asyncMap { try await engine.resolve($0, syncing: busy == nil) }
            var name: String?
            var bytes: [UInt8] = []
            var offline: String?
            do {
                (name, bytes) = try await engine.export(gameID, format: format.lowercased(), fill: withFill)
            } catch {
                guard let gameID, case let .unreachable(reason)? = error as? ServerFailure else { throw error }
                offline = reason
                // Offline: a game this device holds is written from what it holds, by the same
                // rule the server uses (`GameExport`).
                let view = try await engine.view(gameID)
                let written = PuzzleFormat(rawValue: format.lowercased())!
                let puzzle = GameExport.puzzle(view.puzzle, grid: view.grid, withFill: withFill)
                do { bytes = try written.write(puzzle) } catch {
                    throw ClientFailure("this game cannot be written as .\(written.rawValue): \(error)")
                }
                name = GameExport.fileName(title: puzzle.title, extension: written.rawValue)
            }
            if let offline { printError("offline, so written from what this device holds: \(offline)") }
            let path = output ?? name ?? (all ? "crossmate-games.zip" : "crossword.\(format.lowercased())")
            guard output != nil || !FileManager.default.fileExists(atPath: path) else {
                throw ClientFailure("\(path) already exists; name another file with --output")
            }
            do {
                try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw ClientFailure("\(path) cannot be written (\(error.localizedDescription))")
            }
            print("Saved \(path) (\(bytes.count) bytes).")
        }
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

struct Uninvite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Make an invitation link stop working.")

    @Argument(help: "The link (http://…/join/TOKEN) or its token.")
    var link: String

    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            try await profile.engine().revokeInvitation(link)
            print("That link no longer lets anyone join; players who joined with it stay.")
        }
    }
}

struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove a player from a game you own: their letters stay, they change nothing more.")

    @Argument(help: .game)
    var game: String

    @Argument(help: "The player's name (or the start of it).")
    var player: String

    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            let engine = try profile.engine()
            let gameID = try await engine.resolve(game)
            _ = try await engine.fetch(gameID)  // the players as the server has them now
            let view = try await engine.view(gameID)
            let target = try uniqueMatch(
                player, in: view.players.filter { $0.authorID != view.me && !$0.revoked }, id: \.authorID, name: \.displayName,
                none: "no player of this game is called '\(TextRule.terminalSafe(player))'")
            try await engine.remove(target.authorID, from: gameID)
            print("Removed \(TextRule.terminalSafe(target.displayName)): their letters stay; they can look but not change the grid.")
        }
    }
}

struct Leave: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Leave a game someone else owns (your letters stay).")

    @Argument(help: .game)
    var game: String

    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            let engine = try profile.engine()
            let gameID = try await engine.resolve(game)
            try await engine.leave(gameID)
            print("You left the game: your letters stay in it, and this device keeps it to look at, read-only.")
        }
    }
}

struct Join: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Join a game from an invitation link.")

    @Argument(help: "The link (http://…/join/TOKEN) or its token.")
    var link: String

    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            let engine = try profile.engine()
            // A link is good on the server that made it: one naming another server than this
            // profile's would be refused there as unknown, so say what is wrong instead.
            if let range = link.range(of: "/join/"), link.contains("://") {
                let linkServer = ServerAPI(baseURL: String(link[..<range.lowerBound])).baseURL
                let mine = engine.identity.serverURL
                // localhost, 127.0.0.1 and [::1] are one machine's one server.
                func same(_ url: String) -> String {
                    url.lowercased().replacingOccurrences(of: "localhost", with: "127.0.0.1").replacingOccurrences(of: "[::1]", with: "127.0.0.1")
                }
                guard same(linkServer) == same(mine) else {
                    throw ClientFailure(
                        "this link is for the server at \(linkServer), but this profile is signed in at \(mine); "
                            + "use a profile signed in there (--profile NAME, after `crossmate login --server \(linkServer) --name NAME`)")
                }
            }
            let gameID = try await engine.join(link)
            let title = try engine.store.game(gameID)?.title ?? gameID
            print("Joined \(TextRule.terminalSafe(title)) [\(gameID)]. Play with `crossmate play \(gameID)`.")
        }
    }
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Push and fetch everything once, and say what moved.")

    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            let engine = try profile.engine()
            do {
                let report = try await engine.syncOnce()
                func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
                let sent = [count(report.sent, "move")] + (report.sentMessages > 0 ? [count(report.sentMessages, "chat message")] : [])
                print(
                    "Sent \(sent.joined(separator: " and ")), received \(report.received)"
                        + (report.newGames.isEmpty ? "" : ", \(count(report.newGames.count, "new game"))") + ".")
            } catch {
                let unsent = try engine.store.unsentCount()
                throw ClientFailure("offline: \(unsent) move\(unsent == 1 ? "" : "s") kept on this device, sent at the next sync; \(error)")
            }
        }
    }
}
