/// A game's grid folded from moves, with its coverage: for each replica, the highest seq such
/// that every move 1…seq of that replica is folded in.
///
/// Replaying from a snapshot skips only the moves its coverage includes; every other move merges
/// by the usual rule against the snapshot's per-square winners. Coverage is per replica and
/// contiguous, so a snapshot can never hide another device's move that happens to share a seq.
public struct Snapshot: Hashable, Sendable, Codable {
    public var grid: GameGrid
    public var coverage: [ReplicaID: Int]

    public init(grid: GameGrid, coverage: [ReplicaID: Int] = [:]) {
        self.grid = grid
        self.coverage = coverage
    }

    /// An empty snapshot of a `width` × `height` grid, covering nothing.
    public init(width: Int, height: Int) {
        self.init(grid: GameGrid(width: width, height: height))
    }

    /// Builds a snapshot from moves: each replica's unbroken run from seq 1 is folded in and
    /// covered; moves after a gap are left for replay.
    public static func build<Moves: Sequence<Move>>(width: Int, height: Int, moves: Moves) -> Snapshot {
        Snapshot(width: width, height: height).extended(with: moves)
    }

    /// A newer snapshot: this one plus the moves that continue each replica's covered run.
    public func extended<Moves: Sequence<Move>>(with moves: Moves) -> Snapshot {
        var byReplica: [ReplicaID: [Int: Move]] = [:]
        for move in moves where !covers(move) { byReplica[move.replicaID, default: [:]][move.seq] = move }
        var next = self
        for (replica, bySeq) in byReplica {
            var seq = coverage[replica, default: 0] + 1
            while let move = bySeq[seq] {
                next.grid.apply(move)
                seq += 1
            }
            if seq - 1 > coverage[replica, default: 0] { next.coverage[replica] = seq - 1 }
        }
        return next
    }

    public func covers(_ move: Move) -> Bool { move.seq <= coverage[move.replicaID, default: 0] }

    /// The grid after the snapshot and every move it does not cover.
    public func replay<Moves: Sequence<Move>>(_ moves: Moves) -> GameGrid {
        var result = grid
        for move in moves where !covers(move) { result.apply(move) }
        return result
    }

    /// Whether this snapshot covers at least as much as `other` for every replica.
    public func dominates(_ other: Snapshot) -> Bool {
        other.coverage.allSatisfy { replica, seq in coverage[replica, default: 0] >= seq }
    }

    /// The canonical snapshot after offering `candidate`: it replaces `current` only if it
    /// dominates it.
    public static func canonical(current: Snapshot?, candidate: Snapshot) -> Snapshot {
        guard let current else { return candidate }
        return candidate.dominates(current) ? candidate : current
    }

    /// Whether `move` may be deleted: only when this (canonical) snapshot covers it and has been
    /// stored durably. The server keeps every move by default, because replay needs them.
    public func allowsPruning(_ move: Move, snapshotIsDurable: Bool) -> Bool {
        snapshotIsDurable && covers(move)
    }

    /// The number of moves folded in.
    public var coveredMoveCount: Int { coverage.values.reduce(0, +) }
}
