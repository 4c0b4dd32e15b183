import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Synchronization

/// The server's merged view of one game: the engine's `GameReplica` (the same rules every
/// client runs) fed with the zone's moves in sequence order, plus snapshot bookkeeping. A cache:
/// it is rebuilt from the store, and refreshed from it whenever it may have missed changes
/// (another instance wrote them).
/// A completion a projection noticed (a solve folded, or a resignation asked for), with the
/// final grid it was noticed at: the write path stores it (`GameWrites.complete`).
struct NoticedCompletion: Sendable {
    var gameID: String
    var completion: Completion
    var final: StoredSnapshot
}

actor GameProjection {
    let game: GameRecord
    private(set) var replica: GameReplica
    private(set) var zoneSeq: Int64
    private var snapshot: Snapshot
    /// Moves folded into the grid since the last snapshot.
    private var sinceSnapshot: [Move] = []
    private let store: Store
    private let snapshotInterval: Int
    /// Accounts known to have taken part: every author of a folded move or a snapshot square,
    /// and the participants last read. Removed and departed players stay: their letters remain.
    private var players: Set<String> = []

    nonisolated var puzzle: Puzzle { game.puzzle }
    var completion: Completion? { replica.completion }

    /// `lane`: where its history is read (`.history` for a projection made for an export).
    init(
        game: GameRecord, store: Store, snapshotInterval: Int, orderingWait: Duration = .milliseconds(20), lane: ReadLane = .interactive
    ) async throws {
        self.game = game
        self.store = store
        self.snapshotInterval = snapshotInterval
        self.orderingWait = orderingWait
        let puzzle = game.puzzle
        var snapshot = Snapshot(width: puzzle.width, height: puzzle.height)
        var from: Int64 = 0
        if let stored = try await Self.latestSnapshot(store: store, gameID: game.gameID, lane: lane) {
            snapshot = stored.snapshot
            from = stored.zoneSeq
        }
        let (sequenced, last) = try await Self.sequencedMoves(store: store, gameID: game.gameID, after: from, lane: lane)
        let moves = sequenced.map(\.move)
        self.snapshot = snapshot
        for cell in snapshot.grid.cells {
            if let key = cell.key { players.insert(key.authorID) }
            if !cell.cellAuthorID.isEmpty { players.insert(cell.cellAuthorID) }
        }
        zoneSeq = max(from, last)
        replica = GameReplica(
            puzzle: puzzle, gameID: game.gameID, replicaID: "server", authorID: "server",
            snapshot: snapshot, moves: [], completion: game.completion?.completion)
        // Moves stored after the final snapshot are history: the finished grid stays as stored.
        replica.recordsHistory = false  // the server's view never undoes
        for move in moves { fold(move) }
    }

    /// The game's latest stored snapshot with its tally (`Snapshot.tally`): one stored before
    /// snapshots carried a tally is tallied from the moves it covers (the whole zone read once;
    /// the next snapshot stored keeps it).
    static func latestSnapshot(store: Store, gameID: String, lane: ReadLane = .interactive) async throws -> StoredSnapshot? {
        guard var stored = try await store.latestSnapshot(gameID: gameID, lane: lane) else { return nil }
        guard stored.snapshot.tally == nil else { return stored }
        let (moves, _) = try await sequencedMoves(store: store, gameID: gameID, after: 0, lane: lane)
        stored.snapshot = stored.snapshot.tallied(from: moves.map(\.move))
        return stored
    }

    /// Every move in the zone after `sequence`, in zone order, and the last sequence read.
    static func moves(store: Store, gameID: String, after sequence: Int64) async throws -> ([Move], Int64) {
        let (sequenced, last) = try await sequencedMoves(store: store, gameID: gameID, after: sequence)
        return (sequenced.map(\.move), last)
    }

    /// Every move in the zone after `sequence` with its zone sequence, and the last sequence read.
    static func sequencedMoves(
        store: Store, gameID: String, after sequence: Int64, lane: ReadLane = .interactive
    ) async throws -> ([(sequence: Int64, move: Move)], Int64) {
        let read = try await sequencedActivity(store: store, gameID: gameID, after: sequence, lane: lane)
        return (read.moves, read.through)
    }

    /// The players' activity in a zone: moves (with their zone sequences), pauses (what the
    /// solving clock reads), chat messages and reactions to them, and clue flags.
    struct Activity {
        var moves: [(sequence: Int64, move: Move)] = []
        var pauses: [Pause] = []
        var messages: [(sequence: Int64, message: ChatMessage)] = []
        var reactions: [Reaction] = []
        var flags: [ClueFlag] = []
        /// The zone sequence read through.
        var through: Int64 = 0

        /// Whether `kind` is one of these (the rest are passed over).
        static func holds(_ kind: ZoneChange.Record.Kind) -> Bool {
            kind == .move || kind == .pause || kind == .message || kind == .reaction || kind == .flag
        }
    }

    /// The activity after `sequence`.
    static func sequencedActivity(store: Store, gameID: String, after sequence: Int64, lane: ReadLane = .interactive) async throws -> Activity {
        var read = Activity(through: sequence)
        while true {
            let page = try await store.changes(gameID: gameID, after: read.through, limit: 1_000, lane: lane)
            try read.add(page, gameID: gameID)
            if page.count < 1_000 { return read }
        }
    }

    /// The activity among `changes`, decoded.
    static func activity(in changes: some Sequence<EncodedChange>, gameID: String, known: [Int64: Move] = [:]) throws -> Activity {
        var read = Activity()
        try read.add(changes, gameID: gameID, known: known)
        return read
    }

    /// A stored move record as a move; one that does not convert is a `CorruptRecord`.
    static func move(_ record: MoveRecord, at sequence: Int64, gameID: String) throws -> Move {
        do { return try record.move() } catch { throw CorruptRecord(what: "move at \(sequence)", gameID: gameID, reason: error.message) }
    }

    private func fold(_ move: Move) {
        players.insert(move.authorID)
        let wasComplete = replica.isComplete
        replica.receive([move])
        if !wasComplete { sinceSnapshot.append(move) }
    }

    /// Folds moves just stored (with their zone sequences). A write that committed after another
    /// can get here first; it waits a moment for the earlier one, so the grid and the pokes follow
    /// zone order. When the moves still do not follow on from what this projection has seen
    /// (another instance wrote in between), it catches up from the store instead. `announce` is
    /// called, in zone order, once moves that followed on are folded, unless they completed the
    /// game; it reports whether it was called. Returns a completion this projection noticed, if
    /// any, for the write path to store (`GameWrites.complete`).
    func fold(
        saved: [SavedMove], announce: @Sendable () -> Void = {}
    ) async throws -> (announced: Bool, noticed: NoticedCompletion?) {
        guard let first = saved.first else { return (false, nil) }
        if first.sequence > zoneSeq + 1 {
            await waitUntilFolded(through: first.sequence - 1)
        }
        let fresh = saved.filter { $0.sequence > zoneSeq }
        guard let start = fresh.first else { return (false, nil) }  // a catch-up already has them
        if start.sequence == zoneSeq + 1, zip(fresh, fresh.dropFirst()).allSatisfy({ $0.sequence + 1 == $1.sequence }) {
            let wasComplete = replica.isComplete
            for entry in fresh {
                // Validated before it was stored, so it converts; a failure here is a bug, told.
                fold(try Self.move(entry.move, at: entry.sequence, gameID: game.gameID))
            }
            zoneSeq = fresh.last!.sequence
            resumeWaiters()
            let announced = wasComplete || !replica.isComplete
            if announced { announce() }
            return (announced, try await afterFolding(wasComplete: wasComplete))
        }
        return (false, try await refresh())
    }

    /// A record that is not a move (a participant, a seal) took the zone's sequence `sequence`:
    /// nothing to fold, but the next write follows on from it rather than waiting for it.
    func skip(past sequence: Int64) {
        guard sequence == zoneSeq + 1 else { return }
        zoneSeq = sequence
        resumeWaiters()
    }

    /// Folds waiting for an earlier write, with the sequence each needs folded first.
    private var waiters: [Int: (through: Int64, continuation: CheckedContinuation<Void, Never>)] = [:]
    private var nextWaiter = 0
    /// How long a write waits for an earlier one before catching up from the store.
    private let orderingWait: Duration

    private func waitUntilFolded(through sequence: Int64) async {
        guard zoneSeq < sequence else { return }
        nextWaiter += 1
        let id = nextWaiter
        await withCheckedContinuation { continuation in
            waiters[id] = (sequence, continuation)
            Task { [weak self, orderingWait] in
                try? await Task.sleep(for: orderingWait)
                await self?.stopWaiting(id)
            }
        }
    }

    private func stopWaiting(_ id: Int) {
        waiters.removeValue(forKey: id)?.continuation.resume()
    }

    private func resumeWaiters() {
        for (id, waiter) in waiters where waiter.through <= zoneSeq {
            waiters[id] = nil
            waiter.continuation.resume()
        }
    }

    /// Another instance wrote to this game, up to `sequence` (its poke says so, with the changes
    /// inline when they fit). Moves that follow on from what this projection has folded are
    /// folded from the poke; otherwise it catches up from the store. Returns a completion this
    /// projection noticed, if any, to be stored.
    func heard(sequence: Int64, inline: InlineChanges?) async throws -> NoticedCompletion? {
        guard sequence > zoneSeq else { return nil }
        if let inline, inline.after == zoneSeq, inline.changes.last?.sequence == sequence, inline.changes.allSatisfy({ $0.kind == .move }) {
            let saved = try inline.changes.map { change in
                guard case let .move(move) = try change.decoded(gameID: game.gameID).record else { preconditionFailure("a move's kind is move") }
                return SavedMove(sequence: change.sequence, move: move, body: change.json)
            }
            return try await fold(saved: saved).noticed
        }
        return try await refresh()
    }

    /// The game's players as far as they are known, read again from the store when one of
    /// `authors` is not among them (someone who joined since, or wrote through another instance).
    func players(including authors: Set<String>) async throws -> Set<String> {
        if !authors.isSubset(of: players) {
            for participant in try await store.participants(gameID: game.gameID) { players.insert(participant.authorID) }
        }
        return players
    }

    /// Catches up with changes other writers made.
    @discardableResult
    func refresh() async throws -> NoticedCompletion? {
        let wasComplete = replica.isComplete
        if let stored = try await store.game(game.gameID), let record = stored.completion, replica.completion != record.completion {
            // Completed elsewhere: the stored record and its final grid are the authority.
            guard let final = try await store.latestSnapshot(gameID: game.gameID) else {
                throw CorruptRecord(what: "final snapshot", gameID: game.gameID, reason: "a completed game has no snapshot")
            }
            adopt(StoredCompletion(completion: record, sequence: stored.zoneSeq, finalSnapshot: final))
        }
        let (moves, last) = try await Self.moves(store: store, gameID: game.gameID, after: zoneSeq)
        for move in moves { fold(move) }
        zoneSeq = max(zoneSeq, last)
        resumeWaiters()
        return try await afterFolding(wasComplete: wasComplete)
    }

    /// A completion just noticed (with the final snapshot), or writes the periodic snapshot.
    private func afterFolding(wasComplete: Bool) async throws -> NoticedCompletion? {
        if !wasComplete, let completion = replica.completion {
            return noticed(completion)
        }
        if !replica.isComplete, sinceSnapshot.count >= snapshotInterval {
            snapshot = snapshot.extended(with: sinceSnapshot)
            sinceSnapshot = []
            try await store.saveSnapshot(gameID: game.gameID, zoneSeq: zoneSeq, snapshot: snapshot)
        }
        return nil
    }

    /// Ends the game as resigned now (stamped after everything seen), with the final snapshot,
    /// for the write path to store; `nil` when it is already complete. The caller catches up
    /// first (`refresh`).
    func resign(by authorID: String, now: Int64) -> NoticedCompletion? {
        guard completion == nil else { return nil }
        var clock = replica.clock
        return noticed(Completion(kind: .resigned, at: clock.tick(wallMillis: now), by: authorID))
    }

    /// `completion` with the snapshot of the final grid, taken at the sequence folded so far.
    private func noticed(_ completion: Completion) -> NoticedCompletion {
        NoticedCompletion(
            gameID: game.gameID, completion: completion, final: StoredSnapshot(zoneSeq: zoneSeq, snapshot: snapshot.extended(with: sinceSnapshot)))
    }

    /// Takes the completion stored (the first stored wins, whoever noticed it) and its final grid.
    func adopt(_ stored: StoredCompletion) {
        replica.adopt(stored.completion.completion, finalGrid: stored.finalSnapshot.snapshot.grid)
        snapshot = stored.finalSnapshot.snapshot
        sinceSnapshot = []
        zoneSeq = max(zoneSeq, stored.sequence)
        resumeWaiters()
    }

    /// What the games list shows of this game now.
    var listSummary: StoredGameSummary {
        Self.listSummary(puzzle, grid: replica.grid, through: zoneSeq)
    }

    /// The games list's view of `puzzle` with `grid`: size, progress, the picture (a row a
    /// line: `#` block, `~` void, `.` empty, `x` filled, `r` revealed) and the wall time of its
    /// latest move.
    static func listSummary(_ puzzle: Puzzle, grid: GameGrid, through sequence: Int64) -> StoredGameSummary {
        var picture = ""
        picture.reserveCapacity((puzzle.width + 1) * puzzle.height)
        var filled = 0
        var total = 0
        var activeAt: Int64 = 0
        for row in 0..<puzzle.height {
            if row > 0 { picture += "\n" }
            for col in 0..<puzzle.width {
                let position = GridPosition(row: row, col: col)
                switch puzzle.cell(at: position).kind {
                case .block: picture += "#"
                case .void: picture += "~"
                case .letter:
                    total += 1
                    let state = grid.state(at: position)
                    activeAt = max(activeAt, state.key?.timestamp.wallMillis ?? 0)
                    if state.letter.isEmpty {
                        picture += "."
                    } else {
                        filled += 1
                        picture += state.mark.isLocked ? "r" : "x"
                    }
                }
            }
        }
        return StoredGameSummary(
            width: puzzle.width, height: puzzle.height, filled: filled, total: total, picture: picture, throughSequence: sequence,
            activeAt: activeAt)
    }
}

/// The projections this instance holds, loaded on first use. A cache bounded twice: past
/// `capacity` games, or past `byteBudget` bytes (each game counted by the size of its puzzle and
/// grid), it forgets the least recently used half (a forgotten game reloads from the store when
/// needed). Finding a loaded projection takes a lock, not a hop to this actor (every push does
/// it); loading goes through the actor so that a game loads once however many ask at the same time.
actor GameDirectory {
    private struct Cache {
        var projections: [String: GameProjection] = [:]
        var lastUse: [String: UInt64] = [:]
        var bytes: [String: Int] = [:]
        var totalBytes = 0
        var clock: UInt64 = 0

        mutating func touch(_ gameID: String) {
            clock += 1
            lastUse[gameID] = clock
        }

        mutating func remove(_ gameID: String) {
            projections[gameID] = nil
            lastUse[gameID] = nil
            totalBytes -= bytes.removeValue(forKey: gameID) ?? 0
        }
    }

    private let cache = Mutex(Cache())
    /// Projections whose games changed since their list summaries were last stored (kept even
    /// when the cache forgets them, until `takeChanged` hands them on).
    private let changedSinceSummary = Mutex([String: GameProjection]())
    private let capacity: Int
    private let byteBudget: Int
    private var loading: [String: Task<GameProjection, any Error>] = [:]
    private let store: Store
    private let snapshotInterval: Int

    init(store: Store, snapshotInterval: Int, capacity: Int = 5_000, byteBudget: Int = 512 << 20) {
        self.store = store
        self.snapshotInterval = snapshotInterval
        self.capacity = max(2, capacity)
        self.byteBudget = byteBudget
    }

    /// About what a game's projection holds: its puzzle (a few times its JSON once decoded) and
    /// one grid state per square (letter, author and write key).
    static func estimatedBytes(of stored: StoredGame, puzzle: Puzzle) -> Int {
        stored.puzzleJSON.utf8.count * 3 + puzzle.width * puzzle.height * 160
    }

    nonisolated var totalBytes: Int { cache.withLock { $0.totalBytes } }
    nonisolated var count: Int { cache.withLock { $0.projections.count } }
    nonisolated var cachedGames: [String] { cache.withLock { Array($0.projections.keys) } }

    /// A game's projection folded new moves: its list summary is due to be stored.
    nonisolated func changed(_ gameID: String) {
        guard let projection = cache.withLock({ $0.projections[gameID] }) else { return }
        changedSinceSummary.withLock { $0[gameID] = projection }
    }

    /// The projections changed since the last call, whose summaries are to be stored.
    nonisolated func takeChanged() -> [String: GameProjection] {
        changedSinceSummary.withLock { changed in
            defer { changed = [:] }
            return changed
        }
    }

    /// A projection this instance holds for `gameID`, waiting for its summary to be stored or
    /// cached, without loading one or counting as a use.
    nonisolated func held(_ gameID: String) -> GameProjection? {
        changedSinceSummary.withLock { $0[gameID] } ?? cache.withLock { $0.projections[gameID] }
    }

    /// Drops a game's projection; the next request reloads it from the store.
    nonisolated func forget(_ gameID: String) {
        cache.withLock { $0.remove(gameID) }
    }

    nonisolated func cached(_ gameID: String) -> GameProjection? {
        cache.withLock { cache in
            guard let projection = cache.projections[gameID] else { return nil }
            cache.touch(gameID)
            return projection
        }
    }

    func projection(for stored: StoredGame) async throws -> GameProjection {
        if let projection = cached(stored.gameID) { return projection }
        if let task = loading[stored.gameID] { return try await task.value }
        let store = store
        let interval = snapshotInterval
        let task = Task {
            let puzzle = try stored.puzzle()
            let game = GameRecord(
                gameID: stored.gameID, ownerID: stored.ownerID, createdAt: stored.createdAt,
                puzzle: puzzle, completion: stored.completion)
            return try await GameProjection(game: game, store: store, snapshotInterval: interval)
        }
        loading[stored.gameID] = task
        defer { loading[stored.gameID] = nil }
        let projection = try await task.value
        let (capacity, byteBudget) = (capacity, byteBudget)
        let size = Self.estimatedBytes(of: stored, puzzle: projection.puzzle)
        cache.withLock { cache in
            if cache.projections.count >= capacity || cache.totalBytes + size > byteBudget {
                for (gameID, _) in cache.lastUse.sorted(by: { $0.value < $1.value }).prefix((cache.projections.count + 1) / 2) {
                    cache.remove(gameID)
                }
            }
            cache.remove(stored.gameID)
            cache.projections[stored.gameID] = projection
            cache.bytes[stored.gameID] = size
            cache.totalBytes += size
            cache.touch(stored.gameID)
        }
        return projection
    }
}

extension GameProjection.Activity {
    /// Adds the activity among `changes` (in zone order), reading through the last of them.
    /// `known`: moves already decoded, by zone sequence (a relay decodes its moves once for
    /// every replica it reaches); the rest are decoded here.
    mutating func add(_ changes: some Sequence<EncodedChange>, gameID: String, known: [Int64: Move] = [:]) throws {
        for change in changes {
            through = max(through, change.sequence)
            guard Self.holds(change.kind) else { continue }
            if change.kind == .move, let move = known[change.sequence] {
                moves.append((change.sequence, move))
                continue
            }
            switch try change.decoded(gameID: gameID).record {
            case let .move(record): moves.append((change.sequence, try GameProjection.move(record, at: change.sequence, gameID: gameID)))
            case let .pause(pause): pauses.append(pause)
            case let .message(message): messages.append((change.sequence, message))
            case let .reaction(reaction): reactions.append(reaction)
            case let .flag(flag): flags.append(flag)
            case .game, .participant, .seal: continue
            }
        }
    }
}

extension GameDirectory {
    /// The puzzle of a game, from its cached projection or (loading it) from the store.
    nonisolated func puzzle(of gameID: String, store: Store) async throws -> Puzzle? {
        if let cached = cached(gameID) { return cached.puzzle }
        guard let game = try await store.game(gameID) else { return nil }
        return try await projection(for: game).puzzle
    }
}
