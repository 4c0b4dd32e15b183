import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import CrossmateTestSupport
import Foundation
import Synchronization
import Testing

/// One suite, run on every available engine.
@Suite struct StoreTests {
    static let puzzle = try! Puzzle(width: 2, height: 1, cells: [.letter("A"), .letter("B")], clueTexts: [.across: [1: "AB"]])

    func account(_ store: Store, author: String? = nil) async throws -> (author: String, device: String, tokenHash: String) {
        let author = author ?? unique("acct")
        let device = unique("dev")
        let hash = unique("hash")
        try await store.createAccount(authorID: author, displayName: "Ann", deviceID: device, tokenHash: hash, now: 10)
        return (author, device, hash)
    }

    func game(_ store: Store, owner: String) async throws -> String {
        let id = unique("game")
        _ = try await store.createGame(
            GameRecord(gameID: id, ownerID: owner, createdAt: 20, puzzle: Self.puzzle), title: "T",
            owner: ParticipantRecord(gameID: id, authorID: owner, displayName: "Ann", role: .owner))
        return id
    }

    func move(_ game: String, _ replica: String, _ seq: Int, letter: String = "A", time: Int64 = 100) -> MoveRecord {
        MoveRecord(
            Move(
                gameID: game, replicaID: replica, authorID: "x", seq: seq, timestamp: HLCTimestamp(wallMillis: time + Int64(seq)),
                position: GridPosition(row: 0, col: seq % 2), letter: letter, cellAuthorID: "x", kind: .input, batchID: "\(replica):\(seq)"))
    }

    @Test(arguments: Backend.available)
    func migrationsRunOnceAndAgainHarmlessly(backend: Backend) async throws {
        try await withStore(backend) { store in
            // (The PostgreSQL database is shared by every test: another may have migrated it
            // first, at its own time, so the record is compared with itself, not with a time.)
            let recorded = { @Sendable () async throws -> [(Int64, Int64)] in
                try await store.database.read { db in
                    try await db.query("SELECT version, applied_at FROM schema_migrations ORDER BY version").map {
                        ($0.int("version")!, $0.int("applied_at")!)
                    }
                }
            }
            let first = try await recorded()
            try await store.migrate(now: 2)
            try await store.migrate(now: 3)
            // Each migration recorded once, when it first ran, and the schema still takes writes.
            let applied = try await recorded()
            #expect(applied.map(\.0) == Array(1...Int64(applied.count)) && applied.count >= 3)
            #expect(applied.map(\.1) == first.map(\.1) && applied.allSatisfy { $0.1 < 2 || backend == .postgres })
            try await store.createAccount(authorID: "after", displayName: "After", deviceID: "after-1", tokenHash: "after-h", now: 4)
            #expect(try await store.device(tokenHash: "after-h")?.authorID == "after")
        }
    }

    /// Rows are read by the names the query gives its columns, on both engines; a NOT NULL
    /// column read as null is an error that names the column.
    @Test(arguments: Backend.available)
    func rowsAreReadByColumnName(backend: Backend) async throws {
        try await withStore(backend) { store in
            let row = try #require(
                try await store.database.read { db in try await db.first("SELECT 'a' AS first, 7 AS second, NULL AS missing") })
            #expect(row.columns.names == ["first", "second", "missing"])
            #expect(try row.string("first") == "a" && row.int("second") == 7 && row.text("missing") == nil)
            #expect(throws: MissingColumnValue(column: "missing")) { try row.string("missing") }
        }
    }

    @Test func theSecondMigrationKeepsEveryPuzzle() async throws {
        try await withSQLiteFile { path in
            let database = try SQLiteDatabase(path: path)
            let store = Store(database: database)
            try await store.migrate(now: 1, through: 1)
            let puzzleJSON = String(repeating: #"{"stands for":"a puzzle of several kilobytes"}"#, count: 200)
            try await database.transaction { db in
                try await db.execute("INSERT INTO accounts (author_id, display_name, created_at) VALUES ('acct-a', 'Ann', 1)")
                try await db.execute(
                    """
                    INSERT INTO games (game_id, owner_id, created_at, zone_seq, title, puzzle) VALUES ('game-old', 'acct-a', 1, 2, 'Old', ?)
                    """, .text(puzzleJSON))
            }
            try await store.migrate(now: 2)
            let game = try #require(try await store.game("game-old"))
            #expect(game.puzzleJSON == puzzleJSON && game.title == "Old" && game.zoneSeq == 2)
            try await database.close()
        }
    }

    @Test func sqliteSyncsTheLogAtEveryCommit() async throws {
        try await withSQLiteFile { path in
            let database = try SQLiteDatabase(path: path)
            // 2 is FULL, which syncs the write-ahead log before COMMIT returns; NORMAL (1), which
            // GRDB chooses for WAL, does not, and a power cut could lose acknowledged writes.
            let level = try await database.transaction { db in try await db.first("PRAGMA synchronous")?.int("synchronous") }
            #expect(level == 2)
            try await database.close()
        }
    }

    @Test func theSQLiteLogStaysBoundedUnderSteadyWrites() async throws {
        try await withSQLiteFile { path in
            // A short log (the default is 8,000 pages), so that a few seconds of writes restart it many times.
            let database = try SQLiteDatabase(path: path, logPages: 1_000)
            let store = Store(database: database)
            try await store.migrate(now: 1)
            let ann = try await account(store)
            let id = try await game(store, owner: ann.author)
            // Thousands of commits, each a few pages of log: many times the checkpoint threshold.
            for seq in 1...3_000 {
                let outcome = try await store.appendMoves(gameID: id, authorID: ann.author, moves: [move(id, ann.device, seq)])
                #expect(outcome.saved.count == 1)
            }
            let log = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
            #expect(log < 16 << 20, "the write-ahead log grew to \(log) bytes")
            try await database.close()
        }
    }

    /// A few moves, far fewer log frames than a checkpoint waits for under load, still reach the
    /// database file itself within about a second (`LogCheckpointer`): the file is read with
    /// `immutable=1`, which looks at it alone and never at the write-ahead log.
    @Test func aLightlyWrittenLogReachesTheDatabaseFileWithinAboutASecond() async throws {
        try await withSQLiteFile { path in
            let database = try SQLiteDatabase(path: path)
            let store = Store(database: database)
            try await store.migrate(now: 1)
            let ann = try await account(store)
            let id = try await game(store, owner: ann.author)
            for seq in 1...3 {
                #expect(try await store.appendMoves(gameID: id, authorID: ann.author, moves: [move(id, ann.device, seq)]).saved.count == 1)
            }
            let written = ContinuousClock.now
            try await eventually("the moves are in the database file", within: .seconds(60)) { movesInDatabaseFile(path, game: id) == 3 }
            #expect(ContinuousClock.now - written < .seconds(5))
            try await database.close()
        }
    }

    @Test(arguments: Backend.available)
    func accountsDevicesAndOneTimeLinkCodes(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            #expect(try await store.device(tokenHash: ann.tokenHash)?.authorID == ann.author)
            #expect(try await store.device(tokenHash: "nope") == nil)
            try await store.createLinkCode(codeHash: "code-\(ann.author)", authorID: ann.author, issuedBy: ann.device, expiresAt: 1_000)
            let linked = try await store.linkDevice(codeHash: "code-\(ann.author)", deviceID: unique("dev"), tokenHash: unique("h"), now: 500)
            #expect(linked?.authorID == ann.author && linked?.displayName == "Ann")
            // A code works once, and not after it expires.
            #expect(try await store.linkDevice(codeHash: "code-\(ann.author)", deviceID: unique("dev"), tokenHash: unique("h"), now: 501) == nil)
            try await store.createLinkCode(codeHash: "late-\(ann.author)", authorID: ann.author, issuedBy: ann.device, expiresAt: 1_000)
            #expect(try await store.linkDevice(codeHash: "late-\(ann.author)", deviceID: unique("dev"), tokenHash: unique("h"), now: 1_000) == nil)
            // A code dies with the device that made it: revoking it voids the code.
            try await store.createLinkCode(codeHash: "stolen-\(ann.author)", authorID: ann.author, issuedBy: ann.device, expiresAt: 1_000)
            #expect(try await store.revokeDevice(ann.device, of: ann.author))
            #expect(try await store.linkDevice(codeHash: "stolen-\(ann.author)", deviceID: unique("dev"), tokenHash: unique("h"), now: 600) == nil)
        }
    }

    @Test(arguments: Backend.available)
    func movesAppendWithoutGapsAndResendsAreDuplicates(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            let id = try await game(store, owner: ann.author)
            let first = try await store.appendMoves(gameID: id, authorID: ann.author, moves: [move(id, ann.device, 1), move(id, ann.device, 2)])
            #expect(first.results.map(\.status) == [.saved, .saved])
            #expect(first.saved.map(\.sequence) == [3, 4])
            let again = try await store.appendMoves(
                gameID: id, authorID: ann.author,
                moves: [
                    move(id, ann.device, 2), move(id, ann.device, 4), move(id, ann.device, 3),
                    move(id, ann.device, 1, letter: "Z"),
                ])
            #expect(again.results.map(\.status) == [.duplicate, .rejected, .saved, .rejected])
            #expect(again.results[1].error?.message.contains("gap") == true)
            #expect(again.results[3].error?.message.contains("already used") == true)
            #expect(again.zoneSeq == 5)
            let changes = try await store.changes(gameID: id, after: 0, limit: 100)
            #expect(changes.map(\.sequence) == [1, 2, 3, 4, 5])
            #expect(changes.map(\.kind) == [.game, .participant, .move, .move, .move])
            #expect(try await store.changes(gameID: id, after: 3, limit: 1).map(\.sequence) == [4])
        }
    }

    @Test(arguments: Backend.available)
    func concurrentAppendsAllLandAndARefusalSparesTheOthers(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            let eve = try await account(store)
            let id = try await game(store, owner: ann.author)
            let other = try await game(store, owner: ann.author)
            // Many writers at once (grouped into shared transactions on SQLite), one of them refused.
            let outcomes = await withTaskGroup(of: (String, Result<AppendOutcome, any Error>).self) { group in
                for writer in 0..<16 {
                    let replica = "\(ann.device)-\(writer)"
                    let target = writer % 2 == 0 ? id : other
                    group.addTask {
                        do {
                            return (
                                replica,
                                .success(
                                    try await store.appendMoves(
                                        gameID: target, authorID: ann.author,
                                        moves: [move(target, replica, 1), move(target, replica, 2)]))
                            )
                        } catch { return (replica, .failure(error)) }
                    }
                }
                group.addTask {
                    do {
                        return ("eve", .success(try await store.appendMoves(gameID: id, authorID: eve.author, moves: [move(id, eve.device, 1)])))
                    } catch { return ("eve", .failure(error)) }
                }
                var all: [(String, Result<AppendOutcome, any Error>)] = []
                for await outcome in group { all.append(outcome) }
                return all
            }
            for (writer, outcome) in outcomes {
                switch outcome {
                case let .success(appended):
                    #expect(writer != "eve", "a non-participant's moves were stored")
                    #expect(appended.results.map(\.status) == [.saved, .saved], "\(writer)")
                case let .failure(error):
                    #expect(writer == "eve" && error as? StoreRefusal == .notParticipant, "\(writer): \(error)")
                }
            }
            for game in [id, other] {
                let sequences = try await store.changes(gameID: game, after: 0, limit: 100).map(\.sequence)
                #expect(sequences == Array(1...18), "\(game): \(sequences)")
            }
        }
    }

    @Test(arguments: Backend.available)
    func onlyParticipantsWithAccessMayAppend(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            let bob = try await account(store)
            let id = try await game(store, owner: ann.author)
            await #expect(throws: StoreRefusal.notParticipant) {
                try await store.appendMoves(gameID: id, authorID: bob.author, moves: [move(id, bob.device, 1)])
            }
            _ = try await store.setParticipant(
                ParticipantRecord(gameID: id, authorID: bob.author, displayName: "Bob", role: .player, revoked: true),
                feedState: .readOnly)
            await #expect(throws: StoreRefusal.revoked) {
                try await store.appendMoves(gameID: id, authorID: bob.author, moves: [move(id, bob.device, 1)])
            }
            await #expect(throws: StoreRefusal.gameNotFound) {
                try await store.appendMoves(gameID: "missing", authorID: ann.author, moves: [])
            }
        }
    }

    /// Colours are handed out in joining order: the store keeps each player's place through
    /// renames and role changes, lists players in it, and the zone's records carry it.
    @Test(arguments: Backend.available)
    func playersKeepTheOrderTheyJoinedIn(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            // Account ids sort the other way round from the joining order.
            let zed = try await account(store, author: unique("acct-zz"))
            let bob = try await account(store, author: unique("acct-aa"))
            let id = try await game(store, owner: ann.author)
            for author in [zed.author, bob.author] {
                _ = try await store.setParticipant(
                    ParticipantRecord(gameID: id, authorID: author, displayName: author, role: .player), feedState: .active)
            }
            // A rename re-writes zed's record later than bob's joining; zed keeps their place.
            _ = try await store.setParticipant(
                ParticipantRecord(gameID: id, authorID: zed.author, displayName: "Zed", role: .player), feedState: .active)
            let players = try await store.participants(gameID: id)
            #expect(players.map(\.authorID) == [ann.author, zed.author, bob.author])
            #expect(players.map(\.joined) == [2, 3, 4])
            let records = try await store.changes(gameID: id, after: 0, limit: 100).compactMap { change -> ParticipantRecord? in
                if case let .participant(record) = try change.decoded().record { record } else { nil }
            }
            #expect(records.sorted(by: ParticipantRecord.joiningOrder).map(\.authorID) == [ann.author, zed.author, bob.author])
            #expect(records.first { $0.authorID == zed.author }?.displayName == "Zed")
        }
    }

    @Test(arguments: Backend.available)
    func completionIsWrittenOnceWithItsSnapshotAndLaterMovesAreRefused(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            let id = try await game(store, owner: ann.author)
            let record = GameRecord(gameID: id, ownerID: ann.author, createdAt: 20, puzzle: Self.puzzle)
            let solved = CompletionRecord(Completion(kind: .solved, at: HLCTimestamp(wallMillis: 150), by: ann.author))
            // Snapshots told apart by their width. One was taken past the sequence the final grid
            // folds in (another instance got further before hearing of the solve): it goes.
            func snapshot(_ width: Int) -> Snapshot { Snapshot(width: width, height: 1) }
            try await store.saveSnapshot(gameID: id, zoneSeq: 1, snapshot: snapshot(1))
            try await store.saveSnapshot(gameID: id, zoneSeq: 40, snapshot: snapshot(40))
            let first = try await store.complete(
                gameID: id, completion: solved, game: record,
                snapshot: StoredSnapshot(zoneSeq: 2, snapshot: snapshot(2)))
            #expect(first.completion == solved && first.sequence == 3 && first.finalSnapshot.zoneSeq == 2)
            // The first completion stored is the authority; a later one gets it, with its final grid.
            let resigned = CompletionRecord(Completion(kind: .resigned, at: HLCTimestamp(wallMillis: 160), by: ann.author))
            let second = try await store.complete(
                gameID: id, completion: resigned, game: record,
                snapshot: StoredSnapshot(zoneSeq: 3, snapshot: snapshot(3)))
            #expect(second.completion == solved && second.finalSnapshot.snapshot == snapshot(2))
            // No periodic snapshot replaces the final grid.
            try await store.saveSnapshot(gameID: id, zoneSeq: 50, snapshot: snapshot(50))
            let latest = try await store.latestSnapshot(gameID: id)
            #expect(latest?.zoneSeq == 2 && latest?.snapshot == snapshot(2))
            #expect(try await store.game(id)?.completion == solved)
            let late = try await store.appendMoves(
                gameID: id, authorID: ann.author, moves: [move(id, ann.device, 1, time: 140), move(id, ann.device, 2, time: 200)])
            #expect(late.results.map(\.status) == [.saved, .rejected])
            #expect(late.results[1].error?.error == .readOnly)
        }
    }

    /// While the database is held up, moves waiting to commit are bounded: past the bound an
    /// append is refused as busy (nothing of it stored), and once the database moves on the
    /// waiting ones commit and new ones are taken again.
    @Test func movesWaitingToCommitAreBounded() async throws {
        let directory = try TemporaryDirectory("crossmate-busy")
        defer { directory.remove() }
        let store = Store(database: try SQLiteDatabase(path: directory.path + "/db.sqlite"), maximumWaitingMoves: 3)
        try await store.migrate(now: 1)
        let ann = try await account(store)
        let id = try await game(store, owner: ann.author)

        let (releaseWriter, holder) = await holdTheWriter(store)
        let first = Task { try await store.appendMoves(gameID: id, authorID: ann.author, moves: [move(id, ann.device, 1)]) }
        let second = Task { try await store.appendMoves(gameID: id, authorID: ann.author, moves: [move(id, "\(ann.device)-tablet", 1)]) }
        try await eventually("two pushes wait for the held writer", within: .seconds(60)) { await store.waitingMoves == 2 }
        await #expect(throws: StoreRefusal.busy) {
            try await store.appendMoves(gameID: id, authorID: ann.author, moves: [move(id, ann.device, 2), move(id, ann.device, 3)])
        }
        releaseWriter()
        try await holder.value
        let saved = [try await first.value, try await second.value].flatMap(\.results).map(\.status)
        #expect(saved == [.saved, .saved])
        #expect(await store.waitingMoves == 0)
        let later = try await store.appendMoves(gameID: id, authorID: ann.author, moves: [move(id, ann.device, 2), move(id, ann.device, 3)])
        #expect(later.results.map(\.status) == [.saved, .saved])
    }

    /// However many pushes wait (here, behind a transaction holding the writer), one transaction
    /// takes at most `Store.transactionBatches` of them, the first to arrive; the rest go in the
    /// next, so the first are answered without waiting for all to be written.
    @Test func aTransactionTakesAtMostItsBatchesInArrivalOrder() async throws {
        let directory = try TemporaryDirectory("crossmate-cap")
        defer { directory.remove() }
        let groups = Mutex([Int]())
        let store = Store(
            database: try SQLiteDatabase(path: directory.path + "/db.sqlite"),
            onGroupCommit: { batches, _ in groups.withLock { $0.append(batches) } })
        try await store.migrate(now: 1)
        let ann = try await account(store)
        let id = try await game(store, owner: ann.author)
        let before = groups.withLock { $0 }

        let (releaseWriter, holder) = await holdTheWriter(store)
        // One at a time, so that the order they arrive in is the order they were sent.
        let count = Store.transactionBatches + 6
        var pushes: [Task<AppendOutcome, any Error>] = []
        for index in 0..<count {
            let (author, record) = (ann.author, move(id, "device-\(index)", 1))
            pushes.append(Task { try await store.appendMoves(gameID: id, authorID: author, moves: [record]) })
            try await eventually("push \(index) waits", within: .seconds(60)) { await store.waitingMoves == index + 1 }
        }
        releaseWriter()
        try await holder.value
        var sequences: [Int64] = []
        for push in pushes { sequences += try await push.value.saved.map(\.sequence) }
        #expect(groups.withLock { $0 } == before + [Store.transactionBatches, count - Store.transactionBatches])
        #expect(sequences == sequences.sorted() && Set(sequences).count == count, "committed in the order they arrived")
    }

    /// A transaction that holds the single writer until `release` is called; returns once it
    /// holds it (await `held` after releasing).
    func holdTheWriter(_ store: Store) async -> (release: @Sendable () -> Void, held: Task<Void, any Error>) {
        let (entered, enteredNow) = AsyncStream<Void>.makeStream()
        let (release, releaseNow) = AsyncStream<Void>.makeStream()
        let held = Task {
            try await store.database.transaction { _ in
                enteredNow.yield()
                for await _ in release { break }
            }
        }
        for await _ in entered { break }
        return ({ releaseNow.yield() }, held)
    }

    /// With a commit interval, a group starts no sooner than the interval after the one before,
    /// and the pushes that arrive meanwhile go together into the next. The wait is held by the
    /// test until all three pushes wait (so the grouping does not depend on how fast tasks start),
    /// and it is asked to last until the interval after the first group's start.
    @Test func aCommitIntervalGathersPushesIntoOneGroup() async throws {
        let directory = try TemporaryDirectory("crossmate-interval")
        defer { directory.remove() }
        let groups = Mutex([Int]())
        let asked = Mutex([ContinuousClock.Instant]())
        let (release, releaseNow) = AsyncStream<Void>.makeStream()
        // An hour: the wait is the test's to end, and the interval must not run out by itself
        // on a loaded machine before the three pushes are queued (the next group would not wait).
        let interval = Duration.seconds(3600)
        let store = Store(
            database: try SQLiteDatabase(path: directory.path + "/db.sqlite"),
            onGroupCommit: { batches, _ in groups.withLock { $0.append(batches) } }, commitInterval: interval,
            commitWait: { until in
                asked.withLock { $0.append(until) }
                for await _ in release { break }
            })
        try await store.migrate(now: 1)
        let ann = try await account(store)
        let id = try await game(store, owner: ann.author)

        let before = ContinuousClock.now
        _ = try await store.appendMoves(gameID: id, authorID: ann.author, moves: [move(id, ann.device, 1)])
        #expect(groups.withLock { $0 } == [1] && asked.withLock { $0 }.isEmpty, "the first group waits for nothing")
        let pushes = ["a", "b", "c"].map { device in
            Task { try await store.appendMoves(gameID: id, authorID: ann.author, moves: [self.move(id, device, 1)]) }
        }
        // All three wait, and the group that takes them waits for the interval (held here).
        try await eventually("three pushes wait for the held group", within: .seconds(60)) {
            await store.waitingMoves == 3 && !asked.withLock { $0 }.isEmpty
        }
        let wait = try #require(asked.withLock { $0 }.first, "the next group waits for the interval")
        #expect(wait >= before + interval)
        #expect(groups.withLock { $0 } == [1])
        releaseNow.yield()
        var outcomes: [AppendOutcome] = []
        for push in pushes { outcomes.append(try await push.value) }
        #expect(outcomes.flatMap(\.results).map(\.status) == [.saved, .saved, .saved])
        #expect(groups.withLock { $0 } == [1, 3])
    }

    /// What a store with a commit window did: the batches of each group commit, and the pushes
    /// (by device) in the order they were ordered.
    final class WindowLog: Sendable {
        let groups = Mutex([Int]())
        let ordered = Mutex([String]())
    }

    /// Pushes one move by each of `devices` into a fresh game on a store whose commit window
    /// lasts an hour (so only the batches close it); after each but the last, `between` looks at
    /// the store and the log (and the group commits the setup made). Returns the pushes' outcomes and the log, less the game's setup.
    func windowedPushes(
        _ devices: [String], urgent: Bool, between: (Store, WindowLog, _ before: [Int], _ index: Int, _ device: String) async throws -> Void
    ) async throws -> ([AppendOutcome], WindowLog, before: [Int]) {
        let directory = try TemporaryDirectory("crossmate-window")
        defer { directory.remove() }
        let log = WindowLog()
        let store = Store(
            database: try SQLiteDatabase(path: directory.path + "/db.sqlite"),
            onGroupCommit: { batches, _ in log.groups.withLock { $0.append(batches) } }, commitWindow: .fixed(.seconds(3600)))
        try await store.migrate(now: 1)
        let ann = try await account(store)
        let id = try await game(store, owner: ann.author)
        let before = log.groups.withLock { $0 }
        var pushes: [Task<AppendOutcome, any Error>] = []
        for (index, device) in devices.enumerated() {
            let record = move(id, device, 1)
            let author = ann.author
            let heard: @Sendable (AppendOutcome) -> Void = { _ in log.ordered.withLock { $0.append(device) } }
            pushes.append(Task { try await store.appendMoves(gameID: id, authorID: author, moves: [record], urgent: urgent, ordered: heard) })
            if index < devices.count - 1 { try await between(store, log, before, index, device) }
        }
        var outcomes: [AppendOutcome] = []
        for push in pushes { outcomes.append(try await push.value) }
        #expect(await store.waitingMoves == 0)
        return (outcomes, log, before)
    }

    /// Devices enough to close a commit window by their pushes alone.
    var windowFull: [String] { (1...Store.commitWindowBatches).map { "d\($0)" } }

    /// With a commit window, a transaction stays open for the pushes that follow its first: each
    /// is ordered (and so relayed) as it arrives, none is answered before their one COMMIT, and
    /// the last the window takes (`Store.commitWindowBatches`) closes it at once.
    @Test func aCommitWindowOrdersEachPushAtOnceAndCommitsThemTogether() async throws {
        let (outcomes, log, before) = try await windowedPushes(windowFull, urgent: true) { store, log, before, _, device in
            try await eventually("\(device)'s push is ordered", within: .seconds(60)) { log.ordered.withLock { $0.last } == device }
            #expect(log.groups.withLock { $0 } == before, "nothing commits while the window is open")
            #expect(await store.waitingMoves == log.ordered.withLock(\.count))
        }
        let sequences = outcomes.flatMap { $0.saved.map(\.sequence) }
        #expect(log.ordered.withLock { $0 } == windowFull)
        #expect(log.groups.withLock { $0 } == before + [windowFull.count])
        #expect(sequences == sequences.sorted() && Set(sequences).count == windowFull.count)
    }

    /// Pushes nobody hears before their commit (`urgent: false`) are not ordered one by one as
    /// they arrive: they wait for the window's others (here, for the batch that fills it) and go
    /// in one group, ordered together and committed together.
    @Test func pushesNobodyHearsBeforeTheCommitWaitForTheWindowsOthers() async throws {
        let (outcomes, log, before) = try await windowedPushes(windowFull, urgent: false) { store, log, before, index, device in
            try await eventually("\(device)'s push waits", within: .seconds(60)) { await store.waitingMoves == index + 1 }
            #expect(log.ordered.withLock { $0 }.isEmpty, "nothing is ordered before the window's others are there")
            #expect(log.groups.withLock { $0 } == before)
        }
        #expect(outcomes.flatMap(\.results).map(\.status) == Array(repeating: .saved, count: windowFull.count))
        #expect(log.ordered.withLock { $0.sorted() } == windowFull.sorted())
        #expect(log.groups.withLock { $0 } == before + [windowFull.count])
    }

    /// A stored record that no longer decodes is told, never skipped: reading the game and
    /// appending to it both fail with the record named.
    @Test(arguments: Backend.available)
    func anUnreadableCompletionIsAnErrorNotAnUnfinishedGame(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            let id = try await game(store, owner: ann.author)
            try await store.database.transaction { db in
                try await db.execute("UPDATE games SET completion = ? WHERE game_id = ?", .text(#"{"kind":"won"}"#), .text(id))
            }
            await #expect(throws: CorruptRecord.self) { try await store.game(id) }
            await #expect(throws: CorruptRecord.self) {
                try await store.appendMoves(gameID: id, authorID: ann.author, moves: [move(id, ann.device, 1)])
            }
            let error = await #expect(throws: CorruptRecord.self) { try await store.access(gameID: id, authorID: ann.author) }
            #expect(error?.description.contains("completion of game \(id)") == true)
        }
    }

    /// A Decision names an account played with, and an account holds a bounded number of them;
    /// a game's list summary is replaced only by one of a later sequence.
    @Test(arguments: Backend.available)
    func decisionsNameCoPlayersUpToACapAndSummariesOnlyMoveForward(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            let bob = try await account(store)
            let cat = try await account(store)
            func decide(_ key: String, maximum: Int = 10) async throws -> Bool {
                try await store.putDecision(
                    StoredDecision(authorID: ann.author, kind: "block", key: key, value: "1", writtenAt: 1, writtenBy: ann.device, deleted: false),
                    maximumDecisions: maximum)
            }
            await #expect(throws: StoreRefusal.notPlayedWith) { try await decide("acct-made-up") }
            let id = try await game(store, owner: ann.author)
            for friend in [bob, cat] {
                _ = try await store.setParticipant(
                    ParticipantRecord(gameID: id, authorID: friend.author, displayName: "F", role: .player), feedState: .active)
            }
            #expect(try await decide(bob.author, maximum: 1))
            await #expect(throws: StoreRefusal.tooManyDecisions(maximum: 1)) { try await decide(cat.author, maximum: 1) }

            let later = StoredGameSummary(width: 2, height: 1, filled: 2, total: 2, picture: "xx", throughSequence: 9, activeAt: 1_234)
            try await store.putSummary(gameID: id, later)
            try await store.putSummary(gameID: id, StoredGameSummary(width: 2, height: 1, filled: 1, total: 2, picture: "x.", throughSequence: 5))
            #expect(try await store.games(of: ann.author).first?.2 == later)
        }
    }

    @Test(arguments: Backend.available)
    func snapshotsInvitationsParticipantsAndTheFeed(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            let bob = try await account(store)
            let id = try await game(store, owner: ann.author)
            for zoneSeq in [10, 30, 20] {
                try await store.saveSnapshot(gameID: id, zoneSeq: Int64(zoneSeq), snapshot: Snapshot(width: zoneSeq, height: 1))
            }
            #expect(try await store.latestSnapshot(gameID: id)?.snapshot.grid.width == 30)

            try await store.createInvitation(tokenHash: "inv-\(id)", linkID: "a", gameID: id, createdBy: ann.author, now: 1, expiresAt: nil)
            try await store.createInvitation(tokenHash: "short-\(id)", linkID: "b", gameID: id, createdBy: ann.author, now: 2, expiresAt: 50)
            try await store.createInvitation(tokenHash: "named-\(id)", linkID: "c", gameID: id, createdBy: ann.author, now: 3, expiresAt: nil)
            #expect(try await store.invitation(tokenHash: "inv-\(id)")?.gameID == id)
            #expect(try await store.liveInvitations(gameID: id, now: 10, limit: 10).map(\.linkID) == ["a", "b", "c"])
            #expect(try await store.liveInvitations(gameID: id, now: 50, limit: 10).map(\.linkID) == ["a", "c"])
            try await store.revokeInvitation(tokenHash: "inv-\(id)")
            #expect(try await store.invitation(tokenHash: "inv-\(id)")?.revoked == true)
            #expect(try await store.revokeInvitation(gameID: id, linkID: "c"))
            #expect(try await !store.revokeInvitation(gameID: id, linkID: "zz"))
            #expect(try await store.invitation(tokenHash: "named-\(id)")?.isLive(at: 10) == false)
            #expect(try await store.liveInvitations(gameID: id, now: 10, limit: 10).map(\.linkID) == ["b"])

            let joined = ParticipantRecord(gameID: id, authorID: bob.author, displayName: "Bob", role: .player)
            _ = try await store.setParticipant(joined, feedState: .active)
            #expect(try await store.participants(gameID: id).count == 2)
            try await store.createInvitation(tokenHash: "bob-\(id)", linkID: "d", gameID: id, createdBy: bob.author, now: 4, expiresAt: nil)
            #expect(try await store.games(of: bob.author).map(\.0.gameID) == [id])
            var left = joined
            left.revoked = true
            _ = try await store.removeParticipant(left)
            #expect(try await store.participant(gameID: id, authorID: bob.author) == nil)
            // Bob's link went with his place in the game.
            #expect(try await store.invitation(tokenHash: "bob-\(id)")?.revoked == true)
            let feed = try await store.feed(authorID: bob.author, after: 0, limit: 10)
            #expect(feed.map(\.state) == [.active, .removed])
            #expect(try await store.feedSequence(authorID: bob.author) == 2)
            #expect(try await store.feed(authorID: ann.author, after: 0, limit: 10).map(\.state) == [.active])
        }
    }
}
