/// A game's grid folded from moves, with its coverage: for each replica, the highest seq such
/// that every move 1…seq of that replica is folded in.
///
/// Replaying from a snapshot skips only the moves its coverage includes; every other move merges
/// by the usual rule against the snapshot's per-square winners. Coverage is per replica and
/// contiguous, so a snapshot can never hide another device's move that happens to share a seq.
///
/// It also carries the tally of the moves it covers (`Tally`: help used and when each player
/// moved), so a device that joins from it tells the finish and the solving time exactly as one
/// holding every move does. Snapshots stored before tallies decode with none (`nil`); the server
/// tallies those again from the moves before it hands them out (`tallied(from:)`).
public struct Snapshot: Hashable, Sendable, Codable {
    public var grid: GameGrid
    public var coverage: [ReplicaID: Int]
    public var tally: Tally?

    public init(grid: GameGrid, coverage: [ReplicaID: Int] = [:], tally: Tally? = Tally()) {
        self.grid = grid
        self.coverage = coverage
        self.tally = tally
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
                next.tally?.count(move)
                seq += 1
            }
            if seq - 1 > coverage[replica, default: 0] { next.coverage[replica] = seq - 1 }
        }
        return next
    }

    public func covers(_ move: Move) -> Bool { move.seq <= coverage[move.replicaID, default: 0] }

    /// The tally of every move the snapshot covers and every move in `moves` it does not: what a
    /// device that joined from this snapshot knows of the whole game. (A snapshot stored before
    /// snapshots carried a tally counts `moves` alone, all there is.)
    public func tally<Moves: Sequence<Move>>(adding moves: Moves) -> Tally {
        guard var result = tally else { return Tally(moves) }
        result.add(moves.lazy.filter { !covers($0) })
        return result
    }

    /// This snapshot with its tally made again from `moves` (those it covers count): for a
    /// snapshot stored before snapshots carried one.
    public func tallied<Moves: Sequence<Move>>(from moves: Moves) -> Snapshot {
        var result = self
        result.tally = Tally(moves.lazy.filter { covers($0) })
        return result
    }

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
