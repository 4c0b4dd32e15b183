import CrossmateCore
import CrossmateSync

// A game's zone over HTTP: pushing moves, reading changes and snapshots, the feed, invitations,
// seals and presence.

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
