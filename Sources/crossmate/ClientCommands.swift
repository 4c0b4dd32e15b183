import ArgumentParser
import CrossmateClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import CrossmateTerminal
import Foundation
import Synchronization

/// `--profile NAME`, on every client command: which local store (which device) to use.
struct ProfileOption: ParsableArguments {
    @Option(help: "The device profile: a separate local store (env CROSSMATE_PROFILE; default 'default').")
    var profile: String?

    /// The profile's store, created on first use, with this process as the profile's one
    /// writer (`ProfileLock`). With `readOnlyIfBusy`, a profile another process writes is opened
    /// anyway, and the holder is returned: the command then only reads.
    func store(readOnlyIfBusy: Bool = false) throws -> (Profile, ClientStore, busy: ProfileLock.Held?) {
        let profile: Profile
        do { profile = try Profile(name: self.profile) } catch { throw ClientFailure(error.description) }
        var busy: ProfileLock.Held?
        do {
            try Self.holdLock(of: profile)
        } catch let held as ProfileLock.Held {
            guard readOnlyIfBusy else { throw ClientFailure(held.description) }
            busy = held
        } catch {
            throw ClientFailure("the profile folder \(profile.directory) cannot be used: \(error)")
        }
        do {
            return (profile, try ClientStore(path: profile.databasePath), busy)
        } catch {
            throw ClientFailure("the local store at \(profile.databasePath) cannot be opened: \(error)")
        }
    }

    /// The profile lock this process holds until it exits.
    private static let held = Mutex<ProfileLock?>(nil)

    private static func holdLock(of profile: Profile) throws {
        try held.withLock { held in
            guard held == nil else { return }
            let command = CommandLine.arguments.dropFirst().first ?? "crossmate"
            held = try ProfileLock(profile, command: command)
        }
    }

    /// The logged-in device's engine (not started: commands start it when they need it live).
    func engine() throws -> SyncEngine {
        try engine(readOnlyIfBusy: false).engine
    }

    /// The engine, and who else writes the profile when `readOnlyIfBusy` let it open anyway.
    func engine(readOnlyIfBusy: Bool) throws -> (engine: SyncEngine, busy: ProfileLock.Held?) {
        let (profile, store, busy) = try store(readOnlyIfBusy: readOnlyIfBusy)
        guard let identity = try? store.identity() else {
            throw ClientFailure(
                "profile '\(profile.name)' is not signed in: run `crossmate login --server URL --name NAME`"
                    + " (or `crossmate link CODE --server URL` to join an account you have)")
        }
        return (try SyncEngine(store: store, identity: identity), busy)
    }
}

/// A client command's failure: one line on standard error, exit status 1.
struct ClientFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension AsyncParsableCommand {
    /// Runs `body`, printing any failure as `crossmate: message`.
    func reporting(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let failure as ExitCode {
            throw failure
        } catch {
            FileHandle.standardError.write(Data("crossmate: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// The one of `items` whose id is `query`, or whose name starts with it (any case); otherwise a
/// failure that says there is none (`none`) or whom `query` could be.
func uniqueMatch<Item>(_ query: String, in items: [Item], id: (Item) -> String, name: (Item) -> String, none: String) throws -> Item {
    if let exact = items.first(where: { id($0) == query }) { return exact }
    let lowered = query.lowercased()
    let found = items.filter { name($0).lowercased().hasPrefix(lowered) }
    guard found.count == 1 else {
        if found.isEmpty { throw ClientFailure(none) }
        throw ClientFailure(
            "'\(TextRule.terminalSafe(query))' could be \(found.map { TextRule.terminalSafe(name($0)) }.joined(separator: " or ")); give more of the name"
        )
    }
    return found[0]
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

extension SyncEngine {
    /// Finds a game by id or an unambiguous title prefix, among the games this device has
    /// (syncing the list once if nothing local matches).
    /// (`syncing`: false where another process holds the profile, which only it may write.)
    func resolve(_ name: String, syncing: Bool = true) async throws -> String {
        func matches() throws -> [LocalGame] {
            let games = try store.games()
            if let exact = games.first(where: { $0.game.gameID == name }) { return [exact] }
            let lowered = name.lowercased()
            // A unique start of an id ("game-6t3x") or of a title ("Day").
            return games.filter { $0.title.lowercased().hasPrefix(lowered) || $0.game.gameID.hasPrefix(lowered) }
        }
        var found = try matches()
        if found.isEmpty, syncing {
            _ = try? await syncOnce()
            found = try matches()
        }
        switch found.count {
        case 0: throw ClientFailure("no game called '\(name)' on this device: `crossmate games` lists them")
        case 1: return found[0].game.gameID
        default:
            throw ClientFailure(
                "'\(name)' matches \(found.count) games (\(found.map { "\($0.title) [\($0.game.gameID)]" }.joined(separator: ", "))): give more of the title or the id"
            )
        }
    }
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Make an account on a server, with this device as its first.")

    @Option(help: "The server's address, e.g. http://127.0.0.1:8080.")
    var server: String

    @Option(help: "Your name as other players see it.")
    var name: String

    @Flag(help: "On a profile already signed in: forget it (its games stay with that account) and make a new account.")
    var newAccount = false

    @Option(
        help: ArgumentHelp(
            "An invitation link you were sent: the account is made with it (a server may take new accounts only so) and joins its game.",
            valueName: "link"))
    var invitation: String?

    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            let (profile, store, _) = try profile.store()
            // A second login on a signed-in profile made a new account silently, and the games of
            // the first turned read-only here: say who is signed in, and how to change it.
            if let current = try? store.identity() {
                guard newAccount else {
                    throw ClientFailure(
                        "profile '\(profile.name)' is signed in as \(TextRule.terminalSafe(current.displayName)) on \(current.serverURL); "
                            + "sign out first with `crossmate logout`, use another profile with --profile NAME, "
                            + "or make a new account here with --new-account")
                }
                try Logout.requireNothingUnsent(store)
                try store.erase()
            }
            let identity = try await DeviceSetup.login(store: store, serverURL: server, name: name, invitation: invitation)
            print("Signed in as \(identity.displayName) on \(identity.serverURL) (profile '\(profile.name)', device \(identity.deviceID)).")
            if let invitation {
                let engine = try self.profile.engine()
                let gameID = try await engine.join(invitation)
                let title = try engine.store.game(gameID)?.title ?? gameID
                print("Joined \(TextRule.terminalSafe(title)) [\(gameID)]. Play with `crossmate play \(gameID)`.")
            }
        }
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign this device out: the server revokes it and this profile forgets the account.",
        discussion: "Refused while moves typed here have not reached the server (run `crossmate sync` first), so none is lost.")

    @OptionGroup var profile: ProfileOption

    /// Signing out forgets the outbox: refuse while it holds anything.
    static func requireNothingUnsent(_ store: ClientStore) throws {
        let unsent = try store.unsentCount()
        guard unsent == 0 else {
            throw ClientFailure(
                "\(unsent) move\(unsent == 1 ? " has" : "s have") not reached the server yet; run `crossmate sync` (online) first, so none is lost")
        }
    }

    func run() async throws {
        try await reporting {
            let (profile, store, _) = try profile.store()
            guard let identity = try store.identity() else {
                print("Profile '\(profile.name)' is not signed in.")
                return
            }
            try Self.requireNothingUnsent(store)
            do {
                _ = try await ServerAPI(baseURL: identity.serverURL, token: identity.token).revokeDevice(identity.deviceID)
            } catch let failure {
                // Already revoked (from another device) is as good as signed out.
                guard (failure as? ServerFailure)?.errorBody?.error == .unauthorized else {
                    throw ClientFailure("could not sign out at \(identity.serverURL): \(failure); nothing was changed here")
                }
            }
            try store.erase()
            print("Signed out of \(identity.serverURL): this device is revoked and profile '\(profile.name)' is empty.")
        }
    }
}

struct Link: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Use your account on another device.",
        discussion:
            "Without CODE, prints a code for your other device. With CODE (and --server), signs this profile in to the account that showed it."
    )

    @Argument(help: "A code from `crossmate link` on a signed-in device.")
    var code: String?

    @Option(help: "The server's address (needed with CODE).")
    var server: String?

    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            if let code {
                let (profile, store, _) = try profile.store()
                let serverURL =
                    try server ?? (store.identity()?.serverURL).map { $0 }
                    ?? {
                        throw ClientFailure("give the server's address: crossmate link --server URL \(code.hasPrefix("-") ? "-- " : "")\(code)")
                    }()
                let identity = try await DeviceSetup.link(store: store, serverURL: serverURL, code: code)
                print("This device (profile '\(profile.name)') now plays as \(identity.displayName).")
            } else {
                let engine = try profile.engine()
                let link = try await engine.linkCode()
                let minutes = max(1, (link.expiresAt - link.serverTime) / 60_000)
                print("Link code: \(link.code)")
                // A code from a server that can start one with "-" is given after "--".
                let argument = link.code.hasPrefix("-") ? "-- \(link.code)" : link.code
                print(
                    "On your other device: crossmate link --server \(engine.identity.serverURL) \(argument)  (valid \(minutes) min)")
            }
        }
    }
}

extension ArgumentHelp {
    /// How every command names a game.
    static let game = ArgumentHelp("The game: the start of its id or of its title.")
}

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
