import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

/// What the store knows of a device, found by its token's hash.
public struct StoredDevice: Hashable, Sendable {
    public var deviceID: String
    public var authorID: String
    public var displayName: String

    public init(deviceID: String, authorID: String, displayName: String) {
        self.deviceID = deviceID
        self.authorID = authorID
        self.displayName = displayName
    }
}

/// One of an account's devices, as its owner lists them.
public struct StoredDeviceInfo: Hashable, Sendable {
    public var deviceID: String
    public var createdAt: Int64
}

public struct StoredGame: Hashable, Sendable {
    public var gameID: String
    public var ownerID: String
    public var createdAt: Int64
    public var zoneSeq: Int64
    public var moveCount: Int64
    public var title: String
    public var puzzleJSON: String
    /// How the game ended, once it has: the authority every replica adopts.
    public var completion: CompletionRecord?

    /// The game's puzzle, decoded from its stored JSON (kept as text until a projection needs it).
    public func puzzle() throws(CorruptRecord) -> Puzzle {
        try Store.decode(Puzzle.self, puzzleJSON, what: "puzzle", gameID: gameID)
    }
}

extension EncodedChange {
    /// The change decoded; a stored body that does not decode is a `CorruptRecord` of `gameID`.
    public func decoded(gameID: String) throws(CorruptRecord) -> ZoneChange {
        do {
            return try decoded()
        } catch {
            throw CorruptRecord(what: "\(kind.rawValue) at \(sequence)", gameID: gameID, reason: "\(error)")
        }
    }
}

/// What the games list shows of a game, as of zone sequence `throughSequence`: its size, how
/// many letter squares are filled of all, and its picture (a row a line: `#` block, `~` void,
/// `.` empty, `x` filled, `r` revealed).
public struct StoredGameSummary: Hashable, Sendable {
    public var width: Int
    public var height: Int
    public var filled: Int
    public var total: Int
    public var picture: String
    public var throughSequence: Int64
    /// The wall time (Unix ms) of the latest move the grid shows, 0 before the first.
    public var activeAt: Int64

    public init(width: Int, height: Int, filled: Int, total: Int, picture: String, throughSequence: Int64, activeAt: Int64 = 0) {
        self.width = width
        self.height = height
        self.filled = filled
        self.total = total
        self.picture = picture
        self.throughSequence = throughSequence
        self.activeAt = activeAt
    }
}

/// A completion as stored: the record, the zone sequence its Game record took, and the final
/// grid beside it (the snapshot a joining device and every replica take as the finished grid).
public struct StoredCompletion: Sendable {
    public var completion: CompletionRecord
    public var sequence: Int64
    public var finalSnapshot: StoredSnapshot

    public init(completion: CompletionRecord, sequence: Int64, finalSnapshot: StoredSnapshot) {
        self.completion = completion
        self.sequence = sequence
        self.finalSnapshot = finalSnapshot
    }
}

/// A snapshot of a game's grid and the zone sequence whose moves it folds in.
public struct StoredSnapshot: Sendable {
    public var zoneSeq: Int64
    public var snapshot: Snapshot

    public init(zoneSeq: Int64, snapshot: Snapshot) {
        self.zoneSeq = zoneSeq
        self.snapshot = snapshot
    }
}

/// A stored record that no longer decodes: the store says which, instead of skipping it.
public struct CorruptRecord: Error, CustomStringConvertible {
    public var what: String
    public var gameID: String
    public var reason: String

    public init(what: String, gameID: String, reason: String) {
        self.what = what
        self.gameID = gameID
        self.reason = reason
    }

    public var description: String { "the stored \(what) of game \(gameID) cannot be read (\(reason)); the database needs repair" }
}

public struct StoredParticipant: Hashable, Sendable {
    public var gameID: String
    public var authorID: String
    public var displayName: String
    public var role: ParticipantRecord.Role
    public var revoked: Bool
    /// A removed player who then left: the game is gone from their list, and the removal stays.
    public var hasLeft: Bool
    /// The zone sequence at which they joined (`ParticipantRecord.joined`); 0 for older games.
    public var joined: Int64 = 0
}

/// One Decision of an account about another (`kind` "block" or "color", `key` the other
/// account, `value` the colour's index for a pin): the last write wins, a deletion clears it.
public struct StoredDecision: Hashable, Sendable {
    public var authorID: String
    public var kind: String
    public var key: String
    public var value: String
    public var writtenAt: Int64
    public var writtenBy: String
    public var deleted = false

    public init(authorID: String, kind: String, key: String, value: String, writtenAt: Int64, writtenBy: String, deleted: Bool = false) {
        self.authorID = authorID
        self.kind = kind
        self.key = key
        self.value = value
        self.writtenAt = writtenAt
        self.writtenBy = writtenBy
        self.deleted = deleted
    }
}

public struct StoredFriend: Hashable, Sendable {
    public var authorID: String
    public var displayName: String
    public var gamesTogether: Int
    public var lastPlayed: Int64
}

public struct StoredNudge: Hashable, Sendable {
    public var gameID: String
    public var nudgeID: String
    public var fromAuthor: String
    public var message: String
    public var createdAt: Int64

    public init(gameID: String, nudgeID: String, fromAuthor: String, message: String, createdAt: Int64) {
        self.gameID = gameID
        self.nudgeID = nudgeID
        self.fromAuthor = fromAuthor
        self.message = message
        self.createdAt = createdAt
    }
}

public struct StoredInvitation: Hashable, Sendable {
    /// The link's public name: the owner lists and revokes links by it, never by their token.
    public var linkID: String
    public var gameID: String
    public var createdBy: String
    public var createdAt: Int64
    public var expiresAt: Int64?
    public var revoked: Bool

    /// Usable at `now`: neither revoked nor past its expiry.
    public func isLive(at now: Int64) -> Bool { !revoked && (expiresAt.map { $0 > now } ?? true) }
}

/// A move just stored: where it sits in the zone and the JSON body stored for it.
public struct SavedMove: Sendable {
    public var sequence: Int64
    public var move: MoveRecord
    public var body: String

    public init(sequence: Int64, move: MoveRecord, body: String) {
        self.sequence = sequence
        self.move = move
        self.body = body
    }

    /// The move as a zone change, its stored JSON as it is.
    public var change: EncodedChange { EncodedChange(sequence: sequence, kind: .move, json: body) }
}

/// The outcome of appending a batch of moves.
public struct AppendOutcome: Sendable {
    public var results: [RecordResult]
    /// The moves stored now, with their zone sequences and stored JSON, in zone order.
    public var saved: [SavedMove]
    public var zoneSeq: Int64
    public var moveCount: Int64
}

/// Refusals the store itself decides, inside its transactions.
public enum StoreRefusal: Error, Hashable, Sendable {
    case gameNotFound
    case notParticipant
    case revoked
    /// Too many moves are already waiting to be committed; try again shortly.
    case busy
    /// A Decision names an account this one has never played with.
    case notPlayedWith
    /// The account already holds the most Decisions it may.
    case tooManyDecisions(maximum: Int)
    /// The game already holds the most records of this kind it keeps (chat messages, reactions).
    case tooManyRecords(ZoneChange.Record.Kind, maximum: Int)
    /// The device that began the write was revoked before it was stored.
    case signedOut
}
