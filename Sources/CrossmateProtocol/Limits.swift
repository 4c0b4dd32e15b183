import CrossmateCore
import CrossmateSync

/// A rate as a token bucket: `burst` at once, then `perSecond`.
public struct Rate: Hashable, Sendable {
    public var burst: Double
    public var perSecond: Double

    public init(burst: Double, perSecond: Double) {
        self.burst = burst
        self.perSecond = perSecond
    }

    /// "120 at once, then 60 a second", "3 at once, then 1 a minute".
    public var words: String {
        let then: String
        if perSecond >= 1 {
            then = "\(Limits.number(perSecond)) a second"
        } else if perSecond * 60 >= 1 {
            then = "\(Limits.number(perSecond * 60)) a minute"
        } else {
            then = "1 every \(Limits.number(1 / perSecond)) s"
        }
        return "\(Limits.number(burst)) at once, then \(then)"
    }
}

/// What one kind of record or request may cost, whoever sends it: how large one may be, how
/// often a device and an account may send one, how many a game keeps, and how long it lasts.
/// A row of `Limits.table`.
public struct RecordLimit: Hashable, Sendable {
    public var kind: String
    public var size: String
    /// Nil: no bucket of its own at that level (the row says which it shares, in `shares`).
    public var perDevice: Rate?
    public var perAccount: Rate?
    public var perGame: String
    public var lifetime: String
    /// A bucket it shares with other kinds, in words.
    public var shares: String?

    public init(
        kind: String, size: String, perDevice: Rate? = nil, perAccount: Rate? = nil, perGame: String, lifetime: String, shares: String? = nil
    ) {
        self.kind = kind
        self.size = size
        self.perDevice = perDevice
        self.perAccount = perAccount
        self.perGame = perGame
        self.lifetime = lifetime
        self.shares = shares
    }
}

/// The one table of limits: every kind of record a player writes, and every request whose cost
/// grows with what others wrote, with its bounds. The server's buckets and checks read them from
/// here, README lists them from here (`markdown`, tested against it), and a new kind of record
/// gets its row before it ships. Asked of each row: what does it cost another player if one
/// account does this as fast as it is allowed?
public enum Limits {
    /// Requests and socket pushes, per device: every HTTP request and push, and a browser's
    /// commands (which stand for pushes). The server's defaults (`CROSSMATE_RATE_LIMIT_*`).
    public static let request = Rate(burst: 120, perSecond: 60)
    /// Socket messages other than pushes and commands (cursors, pings, subscribes), per device.
    public static let socketMessage = Rate(burst: 60, perSecond: 20)
    /// A page of a replay costs this many socket tokens.
    public static let replayPageCost = 5

    public static let move = RecordLimit(
        kind: "move",
        size:
            "one square: \(SquareText.maximumLength) letters at most; \(ProtocolLimits.maximumRecordsPerBatch) a push, \(ProtocolLimits.maximumBatchBytes / 1_048_576) MB a push",
        perDevice: request, perAccount: accountMoves,
        perGame: "\(maximumMovesPerGame), at most \(maximumMovesPerPlayer) of them one player's; a removed player's no longer count",
        lifetime: "kept with the game", shares: "the device's request bucket")
    /// Moves one account stores, in all its games and from all its devices: a bound on what one
    /// account writes to the server's disk (a move is about 600 bytes stored), well above any
    /// solving (an offline solve of a 25×25 grid sends about 2,000 at once).
    public static let accountMoves = Rate(burst: 20_000, perSecond: 20)
    /// Moves one player's account may store in one game: no player can fill a shared game's
    /// `maximumMovesPerGame` alone.
    public static let maximumMovesPerPlayer = 100_000
    /// Moves one game keeps at most: a game's history (what a browser opening it and a replay
    /// read) is bounded whatever its players do. A 21×21 grid solved with every square changed
    /// fifty times over is about 20,000.
    public static let maximumMovesPerGame = 200_000
    public static let chatMessage = RecordLimit(
        kind: "chat message", size: "\(Chat.maximumBytes) bytes of text, something visible",
        perAccount: Rate(burst: Chat.burst, perSecond: Chat.perSecond),
        perGame: "\(Chat.maximumMessagesPerGame)",
        lifetime: "kept with the game; an opened game sends the newest \(MessageView.maximumOpened) that fit")
    public static let reaction = RecordLimit(
        kind: "reaction", size: "one emoji, \(32) bytes", perAccount: chatMessage.perAccount, perGame: "\(Chat.maximumReactionsPerGame)",
        lifetime: "the latest per author, message and emoji", shares: "the chat bucket")
    public static let flag = RecordLimit(
        kind: "clue flag", size: "a clue of the puzzle", perAccount: chatMessage.perAccount, perGame: "one per author and clue",
        lifetime: "the latest per author and clue; down when its word is full", shares: "the chat bucket")
    public static let nudge = RecordLimit(
        kind: "nudge", size: "\(nudgeMessageBytes) bytes of text", perAccount: Rate(burst: 3, perSecond: 1.0 / 60), perGame: "not kept in the game",
        lifetime: "shown for 24 hours")
    public static let nextGame = RecordLimit(
        kind: "next puzzle together", size: "a puzzle, as any new game", perAccount: Rate(burst: 3, perSecond: 1.0 / 60),
        perGame: "from a finished game only; brings at most \(ProtocolLimits.maximumPlayersPerGame - 1) players", lifetime: "a game")
    public static let invitation = RecordLimit(
        kind: "invitation link", size: "a token", perDevice: request, perGame: "\(ProtocolLimits.liveInvitationsPerGame) working links",
        lifetime: "until it expires or is revoked", shares: "the device's request bucket")
    public static let decision = RecordLimit(
        kind: "decision (block, colour pin)", size: "an account and a value", perDevice: request,
        perGame: "\(maximumDecisions) per account, in no game",
        lifetime: "until changed or cleared", shares: "the device's request bucket")
    public static let pause = RecordLimit(
        kind: "pause", size: "a time", perDevice: request,
        perGame: "one per move the device made, and one more (a pause with no move since the last is not kept)", lifetime: "kept with the game",
        shares: "the device's request bucket")
    public static let linkCode = RecordLimit(
        kind: "device link code", size: "\(LinkCode.length) symbols (50 bits)", perAccount: Rate(burst: 5, perSecond: 1.0 / 60),
        perGame: "one working code per account, in no game (a new one replaces it)", lifetime: "10 minutes, one use",
        shares: "using one: the address's bucket for new accounts and links")
    public static let rename = RecordLimit(
        kind: "rename", size: "\(ProtocolLimits.maximumDisplayNameLength) characters, \(ProtocolLimits.maximumDisplayNameBytes) bytes",
        perAccount: Rate(burst: 3, perSecond: 1.0 / 60), perGame: "one participant record per game the account is in", lifetime: "until renamed")
    public static let replayPage = RecordLimit(
        kind: "replay page", size: "\(ReplayView.pageSteps) steps (about 110 KB)",
        perDevice: Rate(burst: socketMessage.burst / Double(replayPageCost), perSecond: socketMessage.perSecond / Double(replayPageCost)),
        perGame: "assembled once per finished game, one at a time per account",
        lifetime: "kept while memory allows (\(replayStepsKept) steps of all games)",
        shares: "the socket bucket, \(replayPageCost) tokens a page")
    public static let statsRequest = RecordLimit(
        kind: "stats request", size: "the latest \(StatsResponse.maximumGames) finished games", perDevice: request,
        perGame: "each finished game's share worked out once, as it finishes", lifetime: "kept in the store",
        shares: "the device's request bucket; one history read at a time per account")

    public static let pushSubscription = RecordLimit(
        kind: "push subscription", size: "an https endpoint of 1 KB and its keys, \(pushSubscriptionBytes / 1024) KB a request",
        perDevice: request, perGame: "one per device, in no game",
        lifetime: "until replaced, removed, its device revoked, or the push service forgets it",
        shares: "the device's request bucket")
    public static let pushNotification = RecordLimit(
        kind: "push notification", size: "\(3_993) bytes at most, sent", perAccount: chatMessage.perAccount,
        perGame: "moves: one per player every 10 minutes; chat and nudges: each, while the player is away",
        lifetime:
            "not kept; \(pushesWaiting) waiting at most (\(pushesWaitingPerPlayer) per player); \(pushesInFlight) sent at once "
            + "(\(pushesInFlightPerPlayer) per player, \(pushesInFlightPerService) per push service, 1 per endpoint), each whole exchange within "
            + "\(pushDeadlineSeconds) s; one endpoint \(pushEndpointRate.words); a failing endpoint rests \(pushRestSeconds.lowerBound) s, "
            + "doubling to \(pushRestSeconds.upperBound / 60) minutes",
        shares: "the nudge and chat buckets of whoever caused it")
    /// Pushes waiting to be sent, at most, and per player called back (a full queue drops the
    /// oldest of the player with most waiting, and says so).
    public static let pushesWaiting = 1_000
    public static let pushesWaitingPerPlayer = 50
    /// Pushes on their way at once, and at once per player called back and per push service
    /// (one origin): no player's or service's slowness holds the others.
    public static let pushesInFlight = 16
    public static let pushesInFlightPerPlayer = 2
    public static let pushesInFlightPerService = 4
    /// How long one push may take, from the address lookup to the answer's head.
    public static let pushDeadlineSeconds = 5
    /// Pushes to one endpoint (however many devices or accounts name it).
    public static let pushEndpointRate = Rate(burst: 20, perSecond: 0.5)
    /// How long an endpoint (and, when it cannot be reached, its service) is passed over after
    /// a failure: the first, doubling with each failure in a row up to the last.
    public static let pushRestSeconds: ClosedRange<Int64> = 30...600
    public static let gameExport = RecordLimit(
        kind: "export of a game", size: "one puzzle file (a \(Puzzle.maximumSide)×\(Puzzle.maximumSide) grid at most)",
        perAccount: Rate(burst: 20, perSecond: 20.0 / 60), perGame: "read from the game as it is; nothing stored",
        lifetime: "not kept", shares: "and the device's request bucket")
    public static let allGamesExport = RecordLimit(
        kind: "export of all games", size: "a zip of the latest \(maximumGamesExported) games' files",
        perAccount: Rate(burst: 2, perSecond: 1.0 / 300), perGame: "each game read once per export",
        lifetime: "not kept", shares: "and the device's request bucket")
    /// Games in one zip of all games, at most (the newest; the zip says how many were left out).
    public static let maximumGamesExported = 100

    /// A push subscription request's body, at most.
    public static let pushSubscriptionBytes = 4 * 1024

    /// Replay steps the server keeps assembled, of all games.
    public static let replayStepsKept = 400_000
    /// A nudge's optional message.
    public static let nudgeMessageBytes = 200
    /// Decisions one account may hold (a block or a colour per friend; tombstones count).
    public static let maximumDecisions = 1_000

    /// Every row, in the order README lists them.
    public static let table: [RecordLimit] = [
        move, chatMessage, reaction, flag, nudge, nextGame, invitation, decision, pause, linkCode, rename, replayPage, statsRequest, pushSubscription,
        pushNotification, gameExport, allGamesExport,
    ]

    /// The table as README shows it (a Markdown table).
    public static var markdown: String {
        var lines = [
            "| record or request | size | per device | per account | per game | lifetime |",
            "|---|---|---|---|---|---|",
        ]
        for row in table {
            var device = row.perDevice.map(\.words) ?? "—"
            var account = row.perAccount.map(\.words) ?? "—"
            if let shares = row.shares {
                if row.perAccount == nil { device += "; \(shares)" } else { account += "; \(shares)" }
            }
            lines.append("| \(row.kind) | \(row.size) | \(device) | \(account) | \(row.perGame) | \(row.lifetime) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The sizes the web app holds what a player types to before it is sent (so the player
    /// hears at once, not from a refusal), by name: the same numbers the server checks.
    public static let forTheWebApp: [(name: String, value: Int)] = [
        ("chatMessageBytes", Chat.maximumBytes), ("squareLetters", SquareText.maximumLength), ("squareBytes", SquareText.maximumBytes),
        ("displayNameLength", ProtocolLimits.maximumDisplayNameLength), ("nudgeMessageBytes", nudgeMessageBytes),
    ]

    /// `forTheWebApp` as a JavaScript module, `/app/limits.js`, which the server makes from this
    /// table as it makes `/app/routes.js` from the route table.
    public static var javaScript: String {
        let entries = forTheWebApp.map { "  \($0.name): \($0.value)," }.joined(separator: "\n")
        return """
            // Made by the server from Limits (CrossmateProtocol): the sizes it checks, spelled once.
            export const limits = Object.freeze({
            \(entries)
            });

            """
    }

    /// 60, 0.5, 12: a number as README writes it.
    public static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
