/// Every replica's moves merged into one timeline, ordered by (timestamp, acting author, seq),
/// with checkpoints so that seeking anywhere costs at most `checkpointInterval` steps.
///
/// Each step applies by the merge's last-writer-wins rule, so the state after the last step is
/// exactly the merged grid, ties included.
public struct ReplayTimeline: Sendable {
    public let steps: [Move]
    public let checkpointInterval: Int
    private let checkpoints: [GameGrid]

    public init<Moves: Sequence<Move>>(width: Int, height: Int, moves: Moves, checkpointInterval: Int = 128) {
        var unique: [MoveID: Move] = [:]
        for move in moves { unique[move.id] = move }
        steps = unique.values.sorted { a, b in
            if a.timestamp != b.timestamp { return a.timestamp < b.timestamp }
            if a.authorID != b.authorID { return a.authorID < b.authorID }
            if a.seq != b.seq { return a.seq < b.seq }
            return a.replicaID < b.replicaID
        }
        self.checkpointInterval = max(1, checkpointInterval)
        var grid = GameGrid(width: width, height: height)
        var checkpoints = [grid]
        for (index, move) in steps.enumerated() {
            grid.apply(move)
            if (index + 1) % self.checkpointInterval == 0 { checkpoints.append(grid) }
        }
        self.checkpoints = checkpoints
    }

    public var count: Int { steps.count }

    /// The grid after the first `step` moves (0 gives the empty grid, `count` the final one).
    public func state(through step: Int) -> GameGrid {
        let step = min(max(0, step), steps.count)
        let checkpoint = step / checkpointInterval
        var grid = checkpoints[checkpoint]
        for index in (checkpoint * checkpointInterval)..<step { grid.apply(steps[index]) }
        return grid
    }
}

/// A replica's promise that it has pushed everything it wrote after learning the game was
/// complete: its last seq.
public struct Seal: Hashable, Sendable, Codable {
    public var gameID: GameID
    public var replicaID: ReplicaID
    public var lastSeq: Int

    public init(gameID: GameID, replicaID: ReplicaID, lastSeq: Int) {
        self.gameID = gameID
        self.replicaID = replicaID
        self.lastSeq = lastSeq
    }
}

/// Whether a finished game's replay can be shown yet.
public enum ReplayAvailability: Sendable {
    /// Every replica that wrote moves has sealed, and all their moves are here.
    case ready(ReplayTimeline)
    /// Some devices have not sealed yet, or their sealed moves have not all arrived.
    case waiting(missing: [ReplicaID])
    /// The game cannot be reached (not fetched, or access was lost).
    case unavailable
}

/// Decides replay availability from the moves at hand and the replicas' Seals.
public enum ReplayAssembler {
    /// `moves` is `nil` when the game cannot be reached.
    /// `removed` are authors the owner removed: they can write nothing more, so their replicas
    /// count as sealed at the last move held (still without gaps) — their devices never seal.
    public static func assemble(
        width: Int, height: Int, moves: [Move]?, seals: [Seal], removed: Set<AuthorID> = []
    ) -> ReplayAvailability {
        guard let moves else { return .unavailable }
        var seqs: [ReplicaID: Set<Int>] = [:]
        var removedReplicas: [ReplicaID: Int] = [:]
        for move in moves {
            seqs[move.replicaID, default: []].insert(move.seq)
            if removed.contains(move.authorID) { removedReplicas[move.replicaID] = max(removedReplicas[move.replicaID] ?? 0, move.seq) }
        }
        var sealed = Dictionary(seals.map { ($0.replicaID, $0.lastSeq) }, uniquingKeysWith: max)
        for (replica, last) in removedReplicas where sealed[replica] == nil { sealed[replica] = last }
        let missing = seqs.keys.filter { replica in
            guard let last = sealed[replica] else { return true }
            let held = seqs[replica, default: []]
            return last > 0 && !(1...last).allSatisfy(held.contains)
        }.sorted()
        guard missing.isEmpty else { return .waiting(missing: missing) }
        return .ready(ReplayTimeline(width: width, height: height, moves: moves))
    }
}
