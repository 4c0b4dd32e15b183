import CrossmateCore
import CrossmateSync

/// Limits every client and server agree on.
public enum ProtocolLimits {
    public static let maximumRecordsPerBatch = 400
    public static let maximumBatchBytes = 2 * 1024 * 1024
    public static let maximumChangesPerPage = 1_000
    /// Games one page of `GET /v1/games` lists at most (and by default).
    public static let maximumGamesPerPage = 100
    /// A changes page stops before the record that would take its records past this many bytes.
    public static let maximumChangesPageBytes = 1 << 20
    public static let maximumDisplayNameLength = 60
    /// A display name's limit in UTF-8 bytes (what storage and every message carrying it pay).
    public static let maximumDisplayNameBytes = 120
    /// Identifiers (games, devices, accounts) are at most this many bytes: anything longer names
    /// nothing, and an answer quoting one quotes at most this much.
    public static let maximumIdentifierBytes = 64
    /// How long an invitation link may live, in seconds: one second to a year.
    public static let invitationLifetimeSeconds = 1...366 * 24 * 60 * 60
    /// How many invitation links of one game work at once.
    public static let liveInvitationsPerGame = 20
    /// How many players one game takes (its owner among them): every list and game page
    /// names them all.
    public static let maximumPlayersPerGame = 50
}

public struct AccountInfo: Codable, Hashable, Sendable {
    public var authorID: String
    public var displayName: String

    public init(authorID: String, displayName: String) {
        self.authorID = authorID
        self.displayName = displayName
    }
}

/// `POST /v1/accounts`: a new account with its first device.
public struct CreateAccountRequest: Codable, Hashable, Sendable {
    public var displayName: String
    /// An invitation's token (or link), for a server that makes accounts only through one
    /// (`Signups.invite`); the account is made, and the invitation is still to be accepted.
    public var invitation: String?
    public init(displayName: String, invitation: String? = nil) {
        self.displayName = displayName
        self.invitation = invitation
    }
}

/// Who may make an account on a server (`crossmate serve --signups`, `CROSSMATE_SIGNUPS`).
public enum Signups: String, Codable, Hashable, Sendable, CaseIterable {
    /// Anyone who reaches the server.
    case open
    /// Only someone holding a live invitation link; another device joins an account by a link code.
    case invite
    /// No one new: existing accounts link more devices by a link code.
    case closed
}

/// A device's credentials: returned once, when the account or device is created.
public struct DeviceSession: Codable, Hashable, Sendable {
    public var account: AccountInfo
    public var deviceID: String
    public var token: String
    public var serverTime: Int64

    public init(account: AccountInfo, deviceID: String, token: String, serverTime: Int64) {
        self.account = account
        self.deviceID = deviceID
        self.token = token
        self.serverTime = serverTime
    }
}

/// `POST /v1/devices/link-codes`: a one-time code another device can use to join this account.
public struct LinkCodeResponse: Codable, Hashable, Sendable {
    public var code: String
    public var expiresAt: Int64
    public var serverTime: Int64
    public init(code: String, expiresAt: Int64, serverTime: Int64) {
        self.code = code
        self.expiresAt = expiresAt
        self.serverTime = serverTime
    }
}

/// `GET /v1/me`: the account and device behind the token.
public struct MeResponse: Codable, Hashable, Sendable {
    public var account: AccountInfo
    public var deviceID: String
    public var serverTime: Int64

    public init(account: AccountInfo, deviceID: String, serverTime: Int64) {
        self.account = account
        self.deviceID = deviceID
        self.serverTime = serverTime
    }
}

/// `POST /v1/socket-tickets`: a single-use ticket for opening the WebSocket without putting the
/// token in a URL (browsers cannot set headers on a WebSocket): `/v1/socket?ticket=TICKET`.
public struct SocketTicketResponse: Codable, Hashable, Sendable {
    public var ticket: String
    public var expiresAt: Int64
    public var serverTime: Int64

    public init(ticket: String, expiresAt: Int64, serverTime: Int64) {
        self.ticket = ticket
        self.expiresAt = expiresAt
        self.serverTime = serverTime
    }
}

/// One of the account's devices, in `GET /v1/devices`.
public struct DeviceInfo: Codable, Hashable, Sendable {
    public var deviceID: String
    public var createdAt: Int64
    /// Whether this is the device that asked.
    public var current: Bool

    public init(deviceID: String, createdAt: Int64, current: Bool) {
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.current = current
    }
}

/// `GET /v1/devices`: the account's devices; `DELETE /v1/devices/{id}` revokes one (a lost
/// phone, or this device signing out).
public struct DeviceListResponse: Codable, Hashable, Sendable {
    public var devices: [DeviceInfo]
    public var serverTime: Int64

    public init(devices: [DeviceInfo], serverTime: Int64) {
        self.devices = devices
        self.serverTime = serverTime
    }
}

/// `POST /v1/devices`: joins the account that made the code.
public struct LinkDeviceRequest: Codable, Hashable, Sendable {
    public var code: String
    public init(code: String) { self.code = code }
}

/// `POST /v1/games`: a game from a bundled puzzle or an uploaded file (base64).
public struct CreateGameRequest: Codable, Hashable, Sendable {
    public var bundled: String?
    public var fileName: String?
    public var fileBase64: String?
    /// The 4-digit key of a locked (scrambled) .puz: the game is created unlocked, so answers
    /// can be checked and revealed. Without it a locked puzzle is played without checking.
    public var unlockKey: Int?
    /// "The next puzzle together": a game whose players (still in it, not removed) join the new
    /// one at once. The creator must be a player of it.
    public var with: String?

    public init(bundled: String? = nil, fileName: String? = nil, fileBase64: String? = nil, unlockKey: Int? = nil, with: String? = nil) {
        self.with = with
        self.bundled = bundled
        self.fileName = fileName
        self.fileBase64 = fileBase64
        self.unlockKey = unlockKey
    }
}

/// A game as the games list shows it.
public struct GameSummary: Codable, Hashable, Sendable {
    public var gameID: String
    public var title: String
    public var width: Int
    public var height: Int
    public var ownerID: String
    public var role: ParticipantRecord.Role
    public var readOnly: Bool
    public var filled: Int
    public var total: Int
    public var completion: CompletionRecord?
    public var token: ChangeToken
    /// The server's time when this summary was made (every response carries it).
    public var serverTime: Int64
    /// A small picture of the grid, a row of `width` characters per line: `#` a block, `.` an
    /// empty square, `x` a filled one, `r` a revealed one, `~` no square.
    public var picture: String?
    /// The players' display names (those not removed), the owner first.
    public var players: [String]?
    /// Another player has moved since this account last looked, and none of its devices is in
    /// the game now.
    public var unread: Bool?
    /// Nudges to this account in the last day (none from accounts it blocked), newest first.
    public var nudges: [NudgeView]?
    /// When the game last changed (Unix ms): its latest move, else its creation.
    public var lastActivity: Int64?
    /// Chat messages other players wrote since this account last looked (none from accounts it
    /// blocked; none while one of its devices is in the game), at most `maximumUnreadMessages`.
    public var unreadMessages: Int?

    public static let maximumUnreadMessages = 99

    public init(
        gameID: String, title: String, width: Int, height: Int, ownerID: String, role: ParticipantRecord.Role,
        readOnly: Bool, filled: Int, total: Int, completion: CompletionRecord?, token: ChangeToken, serverTime: Int64,
        picture: String? = nil, players: [String]? = nil, unread: Bool? = nil, nudges: [NudgeView]? = nil, lastActivity: Int64? = nil,
        unreadMessages: Int? = nil
    ) {
        self.unreadMessages = unreadMessages
        self.lastActivity = lastActivity
        self.unread = unread
        self.nudges = nudges
        self.picture = picture
        self.players = players
        self.gameID = gameID
        self.title = title
        self.width = width
        self.height = height
        self.ownerID = ownerID
        self.role = role
        self.readOnly = readOnly
        self.filled = filled
        self.total = total
        self.completion = completion
        self.token = token
        self.serverTime = serverTime
    }
}

/// `POST /v1/games/{id}/resign`: how the game ended (the completion in force, which may be an
/// earlier solve or resignation if one got there first).
public struct CompletionResponse: Codable, Hashable, Sendable {
    public var completion: CompletionRecord
    public var serverTime: Int64

    public init(completion: CompletionRecord, serverTime: Int64) {
        self.completion = completion
        self.serverTime = serverTime
    }
}

/// `POST /v1/games/{id}/pauses`: the pause as stored, stamped with the server's time.
public struct PauseResponse: Codable, Hashable, Sendable {
    public var pause: Pause
    public var serverTime: Int64

    public init(pause: Pause, serverTime: Int64) {
        self.pause = pause
        self.serverTime = serverTime
    }
}

public struct GameListResponse: Codable, Hashable, Sendable {
    /// Newest first.
    public var games: [GameSummary]
    /// How many games on this page are unread (new moves or new messages).
    public var unreadCount: Int?
    /// Where the next page starts (`GET /v1/games?after=NEXT`), or nil on the last page.
    public var next: GameListCursor?
    public var serverTime: Int64
    /// When this server's database was last restored from a backup (`crossmate restore`), if
    /// ever. A device that has not seen this value yet checks that the server holds every move
    /// of its own it acknowledged, and sends again those the backup did not have.
    public var restoredAt: Int64?
    public init(games: [GameSummary], next: GameListCursor? = nil, serverTime: Int64, unreadCount: Int? = nil, restoredAt: Int64? = nil) {
        self.restoredAt = restoredAt
        self.games = games
        self.unreadCount = unreadCount
        self.next = next
        self.serverTime = serverTime
    }
}

/// A position in an account's game list (newest first): the last game of a page, as an opaque
/// base64url string.
public struct GameListCursor: OpaqueString, Hashable, Sendable {
    public static let name = "a game list cursor"
    public var createdAt: Int64
    public var gameID: String

    public init(createdAt: Int64, gameID: String) {
        self.createdAt = createdAt
        self.gameID = gameID
    }

    public init?(encoded: String) {
        guard encoded.utf8.count <= 400, let bytes = Base64URL.decode(encoded),
            let text = String(validating: bytes, as: UTF8.self), let colon = text.firstIndex(of: ":"),
            let createdAt = Int64(text[..<colon])
        else { return nil }
        self.init(createdAt: createdAt, gameID: String(text[text.index(after: colon)...]))
    }

    public var encoded: String { Base64URL.encode(Array("\(createdAt):\(gameID)".utf8)) }
}

/// `POST /v1/games/{id}/moves`: a batch of this device's moves (at most 400, 2 MB).
public struct PushMovesRequest: Codable, Hashable, Sendable {
    public var moves: [MoveRecord]
    public init(moves: [MoveRecord]) { self.moves = moves }
}

/// The outcome of one record of a batch.
public struct RecordResult: Codable, Hashable, Sendable {
    public enum Status: String, Codable, Sendable {
        /// Stored now.
        case saved
        /// Already stored (a resend): harmless.
        case duplicate
        /// Refused; `error` says why.
        case rejected
    }

    public var replicaID: String
    public var seq: Int
    public var status: Status
    /// Where a record saved now sits in the zone. A device that knows which sequences hold its
    /// own moves can take a poke's inline changes that start after them without fetching.
    public var sequence: Int64?
    public var error: ErrorBody?
    /// For a move refused as leaving a gap: the next seq the server takes from its replica (the
    /// server holds its moves 1…nextSeq-1). A device whose own moves the server no longer holds
    /// (it was restored from a backup) sends them again from there.
    public var nextSeq: Int?

    public init(replicaID: String, seq: Int, status: Status, sequence: Int64? = nil, error: ErrorBody? = nil, nextSeq: Int? = nil) {
        self.replicaID = replicaID
        self.seq = seq
        self.status = status
        self.sequence = sequence
        self.error = error
        self.nextSeq = nextSeq
    }
}

public struct PushMovesResponse: Codable, Hashable, Sendable {
    public var results: [RecordResult]
    /// Where this write left the zone. Not a fetch cursor: other devices may have written in
    /// between, so a client keeps the token of its last `changes` page for fetching.
    public var token: ChangeToken
    public var completion: CompletionRecord?
    public var serverTime: Int64

    public init(results: [RecordResult], token: ChangeToken, completion: CompletionRecord?, serverTime: Int64) {
        self.results = results
        self.token = token
        self.completion = completion
        self.serverTime = serverTime
    }
}

/// `GET /v1/games/{id}/changes?since=TOKEN&limit=N`: one page of a zone's changes.
public struct ChangesResponse: Codable, Hashable, Sendable {
    public var changes: [ZoneChange]
    public var token: ChangeToken
    public var moreComing: Bool
    public var serverTime: Int64

    public init(changes: [ZoneChange], token: ChangeToken, moreComing: Bool, serverTime: Int64) {
        self.changes = changes
        self.token = token
        self.moreComing = moreComing
        self.serverTime = serverTime
    }
}

/// `GET /v1/games/{id}/snapshot`: what a joining device loads first: the game, the latest
/// snapshot, the records other than moves up to it (participants, seals: the changes after the
/// token hold only what changed later) and the token to fetch the changes after it.
public struct SnapshotResponse: Codable, Hashable, Sendable {
    public var game: GameRecord
    public var snapshot: Snapshot?
    public var records: [ZoneChange]
    public var token: ChangeToken
    public var serverTime: Int64

    public init(game: GameRecord, snapshot: Snapshot?, records: [ZoneChange], token: ChangeToken, serverTime: Int64) {
        self.game = game
        self.snapshot = snapshot
        self.records = records
        self.token = token
        self.serverTime = serverTime
    }
}

/// One entry of a device's database feed: a game zone added, made read-only, or removed.
public struct FeedEntry: Codable, Hashable, Sendable {
    public enum State: String, Codable, Sendable { case active, readOnly, removed }

    public var gameID: String
    public var state: State
    public var sequence: Int64

    public init(gameID: String, state: State, sequence: Int64) {
        self.gameID = gameID
        self.state = state
        self.sequence = sequence
    }
}

/// `GET /v1/feed?since=TOKEN`.
public struct FeedResponse: Codable, Hashable, Sendable {
    public var entries: [FeedEntry]
    public var token: ChangeToken
    public var moreComing: Bool
    public var serverTime: Int64

    public init(entries: [FeedEntry], token: ChangeToken, moreComing: Bool, serverTime: Int64) {
        self.entries = entries
        self.token = token
        self.moreComing = moreComing
        self.serverTime = serverTime
    }
}

/// `POST /v1/games/{id}/invitations`.
public struct CreateInvitationRequest: Codable, Hashable, Sendable {
    public var expiresInSeconds: Int?
    public init(expiresInSeconds: Int? = nil) { self.expiresInSeconds = expiresInSeconds }
}

public struct InvitationResponse: Codable, Hashable, Sendable {
    public var token: String
    /// The link's public name, to list and revoke it by (`DELETE /v1/games/{id}/invitations/{linkID}`).
    public var linkID: String
    public var gameID: String
    public var expiresAt: Int64?
    /// The link to share: `/join/TOKEN` on this server.
    public var path: String
    /// The whole link, on the server's public address, when it was started with one
    /// (`--public-url`): a client that reached the server some other way (localhost, a
    /// private address behind the proxy) shares this.
    public var url: String?
    public var serverTime: Int64

    public init(token: String, linkID: String, gameID: String, expiresAt: Int64?, path: String, url: String? = nil, serverTime: Int64) {
        self.token = token
        self.linkID = linkID
        self.gameID = gameID
        self.expiresAt = expiresAt
        self.path = path
        self.url = url
        self.serverTime = serverTime
    }
}

/// One invitation link that still works, as `GET /v1/games/{id}/invitations` lists it (never
/// its token: the server keeps only the token's hash).
public struct InvitationLink: Codable, Hashable, Sendable {
    public var linkID: String
    public var createdBy: String
    public var createdByName: String
    public var createdAt: Int64
    public var expiresAt: Int64?
    /// Whether the asking player may revoke it: the owner may revoke any, a player their own.
    public var canRevoke: Bool

    public init(linkID: String, createdBy: String, createdByName: String, createdAt: Int64, expiresAt: Int64?, canRevoke: Bool) {
        self.linkID = linkID
        self.createdBy = createdBy
        self.createdByName = createdByName
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.canRevoke = canRevoke
    }
}

/// `GET /v1/games/{id}/invitations`: the owner sees every live link, a player their own. Any
/// player may make a link, with an expiry or without.
public struct InvitationListResponse: Codable, Hashable, Sendable {
    public var links: [InvitationLink]
    /// How many live links a game may have at once.
    public var maxLinks: Int
    public var serverTime: Int64

    public init(links: [InvitationLink], maxLinks: Int, serverTime: Int64) {
        self.links = links
        self.maxLinks = maxLinks
        self.serverTime = serverTime
    }
}

/// `GET /v1/invitations/{token}`, which needs no account: who invites whom to what, so that a
/// dead link is told apart before anyone makes an account for it.
public struct InvitationPreview: Codable, Hashable, Sendable {
    public var gameID: String
    public var title: String
    public var invitedBy: String
    /// The players' names, the inviter's among them.
    public var players: [String]
    public var expiresAt: Int64?
    /// The asking account (when a token came with the request) is in the game already.
    public var joined: Bool
    public var serverTime: Int64

    public init(
        gameID: String, title: String, invitedBy: String, players: [String], expiresAt: Int64?, joined: Bool, serverTime: Int64
    ) {
        self.gameID = gameID
        self.title = title
        self.invitedBy = invitedBy
        self.players = players
        self.expiresAt = expiresAt
        self.joined = joined
        self.serverTime = serverTime
    }
}

/// `POST /v1/games/{id}/seals`: this device has pushed everything after learning of completion.
public struct SealRequest: Codable, Hashable, Sendable {
    public var lastSeq: Int
    public init(lastSeq: Int) { self.lastSeq = lastSeq }
}

/// A plain acknowledgement with the server's time.
public struct OKResponse: Codable, Hashable, Sendable {
    public var ok: Bool
    public var serverTime: Int64
    public init(serverTime: Int64) {
        ok = true
        self.serverTime = serverTime
    }
}

/// `POST /v1/games/{id}/presence`: a native device enters the game (a ten-minute lease, renewed
/// by entering again), has shown everything through `readThrough` (a zone sequence it holds), or
/// leaves (its lease ends; what it has read stays).
public struct PresenceRequest: Codable, Hashable, Sendable {
    /// `enter` or `leave`.
    public var action: String
    public var readThrough: Int64?

    public init(action: String, readThrough: Int64? = nil) {
        self.action = action
        self.readThrough = readThrough
    }
}

public struct PresenceResponse: Codable, Hashable, Sendable {
    public var leaseUntil: Int64
    /// The account's read horizon before this request: entering, a device shows the catch-up
    /// from here (and the next sibling to enter gets none).
    public var previousHorizon: Int64
    public var horizon: Int64
    /// Entering: what other players did since the account last saw the game (once per
    /// account: the next sibling to enter gets none).
    public var catchUp: String?
    /// The squares the catch-up speaks of, as `[row, col]` pairs (a device marks them).
    public var catchUpSquares: [[Int]]?
    public var serverTime: Int64

    public init(
        leaseUntil: Int64, previousHorizon: Int64, horizon: Int64, catchUp: String? = nil, catchUpSquares: [[Int]]? = nil,
        serverTime: Int64
    ) {
        self.catchUp = catchUp
        self.catchUpSquares = catchUpSquares
        self.leaseUntil = leaseUntil
        self.previousHorizon = previousHorizon
        self.horizon = horizon
        self.serverTime = serverTime
    }
}

/// One of the account's Decisions about another account: `kind` "block" (value "1") or "color"
/// (value the palette index, "0" to "8", a pin). Last writer wins by `writtenAt`.
public struct DecisionRecord: Codable, Hashable, Sendable {
    public var kind: String
    public var key: String
    public var value: String
    public var writtenAt: Int64

    public init(kind: String, key: String, value: String, writtenAt: Int64) {
        self.kind = kind
        self.key = key
        self.value = value
        self.writtenAt = writtenAt
    }
}

/// `POST /v1/decisions`: sets a Decision, or clears it with `deleted`. `writtenAt` (Unix ms,
/// default now) orders concurrent writes from the account's devices.
public struct DecisionRequest: Codable, Hashable, Sendable {
    public var kind: String
    public var key: String
    public var value: String?
    public var deleted: Bool?
    public var writtenAt: Int64?

    public init(kind: String, key: String, value: String? = nil, deleted: Bool? = nil, writtenAt: Int64? = nil) {
        self.kind = kind
        self.key = key
        self.value = value
        self.deleted = deleted
        self.writtenAt = writtenAt
    }
}

/// `PUT /v1/preferences`: the account's preferred colour (a palette index, or null to clear).
public struct PreferencesRequest: Codable, Hashable, Sendable {
    public var color: Int?

    public init(color: Int?) {
        self.color = color
    }
}

/// A player this account has played with, as `GET /v1/friends` lists them.
public struct FriendView: Codable, Hashable, Sendable {
    public var authorID: String
    public var displayName: String
    /// Their colour as this account sees them: the pin, else the stable colour beside this
    /// account's own.
    public var color: String
    public var colorIndex: Int
    public var symbol: String
    public var pinned: Int?
    public var blocked: Bool
    public var gamesTogether: Int
    public var lastPlayed: Int64

    public init(
        authorID: String, displayName: String, color: String, colorIndex: Int, symbol: String, pinned: Int?, blocked: Bool,
        gamesTogether: Int, lastPlayed: Int64
    ) {
        self.authorID = authorID
        self.displayName = displayName
        self.color = color
        self.colorIndex = colorIndex
        self.symbol = symbol
        self.pinned = pinned
        self.blocked = blocked
        self.gamesTogether = gamesTogether
        self.lastPlayed = lastPlayed
    }
}

public struct FriendsResponse: Codable, Hashable, Sendable {
    public var friends: [FriendView]
    public var decisions: [DecisionRecord]
    public var preferredColor: Int?
    public var serverTime: Int64

    public init(friends: [FriendView], decisions: [DecisionRecord], preferredColor: Int?, serverTime: Int64) {
        self.friends = friends
        self.decisions = decisions
        self.preferredColor = preferredColor
        self.serverTime = serverTime
    }
}

/// `PUT /v1/settings`: one of the account's settings (`SolverSettings`). `writtenAt` (Unix ms,
/// default now) orders writes from the account's devices; the later one wins.
public struct SettingRequest: Codable, Hashable, Sendable {
    public var name: String
    public var value: String
    public var writtenAt: Int64?

    public init(name: String, value: String, writtenAt: Int64? = nil) {
        self.name = name
        self.value = value
        self.writtenAt = writtenAt
    }
}

/// `GET` and `PUT /v1/settings`: the account's settings with defaults filled in, each setting's
/// choices (the first is the default), and what they make of the solving keys.
public struct SettingsResponse: Codable, Hashable, Sendable {
    public struct Choice: Codable, Hashable, Sendable {
        public var name: String
        public var choices: [String]
    }
    public struct KeyOptions: Codable, Hashable, Sendable {
        public var skipFilledSquares: Bool
        public var jumpAtWordEnd: Bool
        public var spaceClears: Bool
        public var backspaceAcrossWords: Bool
    }

    public var settings: [String: String]
    public var available: [Choice]
    public var keyOptions: KeyOptions
    public var autocheck: Bool
    public var serverTime: Int64

    public init(_ settings: SolverSettings, serverTime: Int64) {
        self.settings = settings.values
        self.available = SolverSettings.all.map { Choice(name: $0.name, choices: $0.choices) }
        let options = settings.options
        self.keyOptions = KeyOptions(
            skipFilledSquares: options.skipFilledSquares, jumpAtWordEnd: options.jumpAtWordEnd, spaceClears: options.spaceClears,
            backspaceAcrossWords: options.backspaceAcrossWords)
        self.autocheck = settings.autocheck
        self.serverTime = serverTime
    }
}

/// `POST /v1/games/{id}/nudges`: ask the other players to come and help.
public struct NudgeRequest: Codable, Hashable, Sendable {
    public var message: String?

    public init(message: String? = nil) {
        self.message = message
    }
}

public struct NudgeView: Codable, Hashable, Sendable {
    public var gameID: String
    public var nudgeID: String
    public var fromAuthor: String
    public var fromName: String
    public var message: String
    public var createdAt: Int64

    public init(gameID: String, nudgeID: String, fromAuthor: String, fromName: String, message: String, createdAt: Int64) {
        self.gameID = gameID
        self.nudgeID = nudgeID
        self.fromAuthor = fromAuthor
        self.fromName = fromName
        self.message = message
        self.createdAt = createdAt
    }
}

/// `PUT /v1/me`: a new display name, shown in every game the account is in.
public struct RenameRequest: Codable, Hashable, Sendable {
    public var displayName: String

    public init(displayName: String) {
        self.displayName = displayName
    }
}

/// `POST /v1/games/{id}/messages`: a chat message this device wrote (the server stamps the
/// author). Sending the same `messageID` again is harmless: the first is kept and answered.
public struct PostMessageRequest: Codable, Hashable, Sendable {
    /// Chosen by the device: letters, digits, "-" and "_", at most `Chat.maximumIDBytes`.
    public var messageID: String
    public var text: String
    public var timestamp: HLCTimestamp

    public init(messageID: String, text: String, timestamp: HLCTimestamp) {
        self.messageID = messageID
        self.text = text
        self.timestamp = timestamp
    }
}

/// The message as the zone keeps it, and its zone sequence.
public struct PostMessageResponse: Codable, Hashable, Sendable {
    public var message: ChatMessage
    public var sequence: Int64
    public var serverTime: Int64

    public init(message: ChatMessage, sequence: Int64, serverTime: Int64) {
        self.message = message
        self.sequence = sequence
        self.serverTime = serverTime
    }
}

/// `POST /v1/games/{id}/reactions`: this account gives (`on`) or takes back an emoji reaction to
/// a message. The latest by timestamp decides (`Reaction.wins`); an older one changes nothing.
public struct PostReactionRequest: Codable, Hashable, Sendable {
    /// The message's key (`ChatMessage.key`).
    public var messageKey: String
    public var emoji: String
    public var on: Bool
    public var timestamp: HLCTimestamp

    public init(messageKey: String, emoji: String, on: Bool, timestamp: HLCTimestamp) {
        self.messageKey = messageKey
        self.emoji = emoji
        self.on = on
        self.timestamp = timestamp
    }
}

/// The reaction that decides for this author, message and emoji, and its zone sequence.
public struct PostReactionResponse: Codable, Hashable, Sendable {
    public var reaction: Reaction
    public var sequence: Int64
    public var serverTime: Int64

    public init(reaction: Reaction, sequence: Int64, serverTime: Int64) {
        self.reaction = reaction
        self.sequence = sequence
        self.serverTime = serverTime
    }
}

/// Another player started the next puzzle with this account (`CreateGameRequest.with`): sent
/// to its sockets, so a device showing the finished game can go straight into the new one.
public struct NextGameView: Codable, Hashable, Sendable {
    /// The game it follows.
    public var fromGameID: String
    public var gameID: String
    public var title: String
    public var byAuthor: String
    public var byName: String

    public init(fromGameID: String, gameID: String, title: String, byAuthor: String, byName: String) {
        self.fromGameID = fromGameID
        self.gameID = gameID
        self.title = title
        self.byAuthor = byAuthor
        self.byName = byName
    }
}

/// `POST /v1/games/{id}/flags`: this account points the others at a clue (`on`), or takes its
/// flag down. The latest by timestamp decides (`ClueFlag.wins`).
public struct PostFlagRequest: Codable, Hashable, Sendable {
    public var number: Int
    public var direction: Direction
    public var on: Bool
    public var timestamp: HLCTimestamp

    public init(number: Int, direction: Direction, on: Bool, timestamp: HLCTimestamp) {
        self.number = number
        self.direction = direction
        self.on = on
        self.timestamp = timestamp
    }
}

/// The flag that decides for this author and clue, and its zone sequence.
public struct PostFlagResponse: Codable, Hashable, Sendable {
    public var flag: ClueFlag
    public var sequence: Int64
    public var serverTime: Int64

    public init(flag: ClueFlag, sequence: Int64, serverTime: Int64) {
        self.flag = flag
        self.sequence = sequence
        self.serverTime = serverTime
    }
}

/// `GET /v1/stats?timeZone=Europe/London`: the account's stats from its finished games, its days
/// counted in the time zone the device names.
public struct StatsResponse: Codable, Hashable, Sendable {
    public var stats: AccountStats
    /// `stats.recent`'s days as dates ("2026-11-24"), in order.
    public var recentDates: [String]
    /// The other players' names, by account.
    public var names: [String: String]
    public var timeZone: String
    /// How many of the latest finished games were read (at most `maximumGames`).
    public var gamesRead: Int
    public var serverTime: Int64

    public static let maximumGames = 500

    public init(stats: AccountStats, recentDates: [String], names: [String: String], timeZone: String, gamesRead: Int, serverTime: Int64) {
        self.stats = stats
        self.recentDates = recentDates
        self.names = names
        self.timeZone = timeZone
        self.gamesRead = gamesRead
        self.serverTime = serverTime
    }
}
