/// What a game's finish summary needs from its moves, folded so that a snapshot can carry it: the
/// help each player used (squares checked and revealed, and gestures: a "Reveal puzzle" is one
/// gesture and may be a hundred squares), when help was first used, and when each player moved
/// (the shared clock, `SolvingTime`, counts from those). A device that joined from a snapshot
/// adds the moves after it to the snapshot's tally and gets exactly what a device holding every
/// move gets (`Snapshot.tally(adding:)`).
///
/// Folding is order-free but for one thing: a replica's moves are folded in seq order (a gesture
/// is a run of one replica's moves sharing a batch), which `Tally(moves)` and `Snapshot` see to.
public struct Tally: Hashable, Sendable {
    /// The help one player used.
    public struct Help: Hashable, Sendable, Codable {
        public var checks = 0
        public var reveals = 0
        public var squaresChecked = 0
        public var squaresRevealed = 0

        public init(checks: Int = 0, reveals: Int = 0, squaresChecked: Int = 0, squaresRevealed: Int = 0) {
            self.checks = checks
            self.reveals = reveals
            self.squaresChecked = squaresChecked
            self.squaresRevealed = squaresRevealed
        }
    }

    public private(set) var help: [AuthorID: Help] = [:]
    /// Each replica's last check or reveal gesture, so a gesture split by a snapshot counts once.
    public private(set) var lastGesture: [ReplicaID: BatchID] = [:]
    /// The earliest check or reveal.
    public private(set) var firstHelp: HLCTimestamp?
    /// When each author moved: distinct wall-clock milliseconds, ascending.
    public private(set) var moveTimes: [AuthorID: [Int64]] = [:]

    public init() {}

    /// The tally of `moves`, each replica's in seq order.
    public init<Moves: Sequence<Move>>(_ moves: Moves) {
        self.init()
        add(moves)
    }

    /// Folds in `moves`, each replica's in seq order.
    public mutating func add<Moves: Sequence<Move>>(_ moves: Moves) {
        for move in moves.sorted(by: { ($0.replicaID, $0.seq) < ($1.replicaID, $1.seq) }) { count(move) }
    }

    /// Folds in one move (after every earlier move of its replica).
    public mutating func count(_ move: Move) {
        Self.insert(move.timestamp.wallMillis, into: &moveTimes[move.authorID, default: []])
        guard move.kind == .check || move.kind == .reveal else { return }
        var used = help[move.authorID, default: Help()]
        let newGesture = lastGesture[move.replicaID] != move.batchID
        lastGesture[move.replicaID] = move.batchID
        if move.kind == .check {
            used.squaresChecked += 1
            if newGesture { used.checks += 1 }
        } else {
            used.squaresRevealed += 1
            if newGesture { used.reveals += 1 }
        }
        help[move.authorID] = used
        if firstHelp.map({ move.timestamp < $0 }) ?? true { firstHelp = move.timestamp }
    }

    /// Every author of a move.
    public var authors: Dictionary<AuthorID, [Int64]>.Keys { moveTimes.keys }

    /// The moves' stamps as the shared clock counts them (one per author and millisecond).
    public var stamps: [SolvingTime.Stamp] {
        moveTimes.flatMap { author, times in times.map { SolvingTime.Stamp(authorID: author, at: $0) } }
    }

    /// Whether any check or reveal was stamped no later than `limit`.
    public func helped(notAfter limit: HLCTimestamp) -> Bool { firstHelp.map { $0 <= limit } ?? false }

    private static func insert(_ time: Int64, into times: inout [Int64]) {
        guard let last = times.last, time <= last else { return times.append(time) }
        var low = 0
        var high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < time { low = middle + 1 } else { high = middle }
        }
        if times[low] != time { times.insert(time, at: low) }
    }
}

extension Tally: Codable {
    private enum CodingKeys: String, CodingKey {
        case help, lastGesture, firstHelp, moveTimes
    }

    /// Move times are written as the first time and then the gaps between times, which keeps a
    /// long game's snapshot small.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(help, forKey: .help)
        try container.encode(lastGesture, forKey: .lastGesture)
        try container.encodeIfPresent(firstHelp, forKey: .firstHelp)
        let gaps = moveTimes.mapValues { times in times.indices.map { $0 == 0 ? times[0] : times[$0] - times[$0 - 1] } }
        try container.encode(gaps, forKey: .moveTimes)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        help = try container.decode([AuthorID: Help].self, forKey: .help)
        lastGesture = try container.decode([ReplicaID: BatchID].self, forKey: .lastGesture)
        firstHelp = try container.decodeIfPresent(HLCTimestamp.self, forKey: .firstHelp)
        let gaps = try container.decode([AuthorID: [Int64]].self, forKey: .moveTimes)
        moveTimes = try gaps.mapValues { gaps in
            var times: [Int64] = []
            times.reserveCapacity(gaps.count)
            for gap in gaps {
                guard times.isEmpty || gap > 0 else {
                    throw DecodingError.dataCorruptedError(forKey: .moveTimes, in: container, debugDescription: "move times must ascend")
                }
                times.append((times.last ?? 0) + gap)
            }
            return times
        }
    }
}
