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
