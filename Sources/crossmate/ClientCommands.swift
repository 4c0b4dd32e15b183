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
