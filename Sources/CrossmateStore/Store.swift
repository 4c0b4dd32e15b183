import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

/// Crossmate's server persistence, one implementation over any `SQLDatabase` (SQLite or
/// PostgreSQL), so one test suite covers both.
public final class Store: Sendable {
    public let database: any SQLDatabase

    /// Concurrent pushes share transactions (see `CommitQueue`), one group at a time. With
    /// PostgreSQL, two or four groups committing side by side on connections of their own (games
    /// split between them) were measured too, and one had the lowest latency at 1,000 and 2,000
    /// devices: a group costs a few statements whatever its size, so one bigger group beats two
    /// smaller ones competing for the same cores.
    let commits: CommitQueue

    /// Told of every group commit: how many batches it held and how long its transaction took.
    public typealias GroupCommitObserver = @Sendable (_ batches: Int, _ duration: Duration) -> Void

    /// `maximumWaitingMoves` bounds the moves waiting to be committed (about a kilobyte each);
    /// past it, appends are refused as `StoreRefusal.busy`.
    /// Waits until an instant: between group commits, when a commit interval is set.
    public typealias CommitWait = @Sendable (ContinuousClock.Instant) async -> Void

    /// `commitInterval`: the least time from one group commit's start to the next (zero: a group
    /// starts as soon as the one before it ends). A longer interval gathers more pushes into each
    /// transaction and its fsync, for less CPU and a later acknowledgement (BENCHMARKS.md).
    /// `commitWindow`: how long a group commit's transaction gathers pushes (`CommitWindow`: for
    /// a fixed time, or only while more are on their way; only with a database that has a
    /// writer thread of its own, SQLite): they share its COMMIT and fsync, so only their
    /// acknowledgement waits (see `CommitQueue`).
    /// `commitWait` sleeps until the interval is over (a test may hold the group back instead).
    /// `beforeCommit` runs in each group commit's transaction once its moves were relayed, just
    /// before COMMIT (where a crash test stops the process). A game takes at most
    /// `maximumMovesPerGame` moves, and one player `maximumMovesPerPlayer` of them; those past either are
    /// rejected.
    public init(
        database: any SQLDatabase, onGroupCommit: GroupCommitObserver? = nil, maximumWaitingMoves: Int = 200_000,
        maximumMovesPerGame: Int = Limits.maximumMovesPerGame, maximumMovesPerPlayer: Int = Limits.maximumMovesPerPlayer,
        commitInterval: Duration = .zero, commitWindow: CommitWindow = .fixed(.zero),
        commitWait: @escaping CommitWait = { try? await Task.sleep(until: $0, clock: .continuous) },
        beforeCommit: (@Sendable () -> Void)? = nil
    ) {
        self.database = database
        self.maximumMovesPerGame = maximumMovesPerGame
        self.maximumMovesPerPlayer = maximumMovesPerPlayer
        commits = CommitQueue(
            database: database, onCommit: onGroupCommit, maximumWaitingMoves: maximumWaitingMoves, interval: commitInterval,
            window: commitWindow, waitUntil: commitWait, beforeCommit: beforeCommit)
    }

    /// The moves a game takes at most (`Limits.maximumMovesPerGame`).
    public let maximumMovesPerGame: Int
    /// The moves one player stores in one game at most (`Limits.maximumMovesPerPlayer`).
    public let maximumMovesPerPlayer: Int

    /// The pushes that close a commit window before its time is up.
    public static var commitWindowBatches: Int { CommitQueue.windowBatches }

    /// The pushes one transaction takes at most; more waiting go in the next.
    public static var transactionBatches: Int { CommitQueue.transactionBatches }

    /// Moves submitted and not yet committed or refused.
    public var waitingMoves: Int { get async { commits.waitingMoves } }

    /// Brings the schema up to date (or up to `version`, for testing a later migration on data
    /// an earlier schema held).
    @discardableResult
    public func migrate(now: Int64, through version: Int64 = .max) async throws -> SchemaChange {
        try await Migrations.run(on: database, now: now, through: version)
    }

    /// The newest schema this build knows.
    public static var schemaVersion: Int64 { Migrations.newestVersion }

    /// Records as stored: sorted keys, so an identical resend has an identical body.
    static func json<T: Encodable>(_ value: T) -> String { JSONText.sorted(value) }

    /// A stored record read back; one that does not decode is a `CorruptRecord`, never skipped.
    static func decode<T: Decodable>(_ type: T.Type, _ json: String, what: String, gameID: String) throws(CorruptRecord) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(json.utf8))
        } catch {
            throw CorruptRecord(what: what, gameID: gameID, reason: "\(error)")
        }
    }
}
