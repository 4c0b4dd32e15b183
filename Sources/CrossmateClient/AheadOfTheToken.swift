import CrossmateProtocol

/// What the engine holds of each game's zone beyond its change token: other devices' changes
/// relayed before their commit (shown in the replica, kept out of the store and the token until
/// a relay says the zone is on disk through them), and the zone sequences this device's own saved
/// moves took (their pushes' answers say so). One job, apart from the engine's others: a commit
/// runs the token over both, and what the token reaches is let go.
struct AheadOfTheToken {
    private var relayed: [String: [Int64: ZoneChange]] = [:]
    private var ownSaved: [String: Set<Int64>] = [:]

    /// Relayed `changes` past `token` not held yet: held now, and returned (to show).
    mutating func relay(_ changes: [ZoneChange], in gameID: String, after token: Int64) -> [ZoneChange] {
        let fresh = changes.filter { $0.sequence > token && relayed[gameID]?[$0.sequence] == nil }
        for change in fresh { relayed[gameID, default: [:]][change.sequence] = change }
        return fresh
    }

    /// This device's own moves were saved at `sequences` (those past `token` are kept).
    mutating func saved(_ sequences: [Int64], in gameID: String, after token: Int64) {
        let ahead = sequences.filter { $0 > token }
        if !ahead.isEmpty { ownSaved[gameID, default: []].formUnion(ahead) }
    }

    /// The relayed changes that take the token from `token` through `committed`, when relayed
    /// changes and own saved moves cover every sequence between; nil at the first gap.
    func run(in gameID: String, from token: Int64, through committed: Int64) -> [ZoneChange]? {
        var run: [ZoneChange] = []
        var next = token + 1
        while next <= committed {
            if let change = relayed[gameID]?[next] {
                run.append(change)
            } else if ownSaved[gameID]?.contains(next) != true {
                return nil
            }
            next += 1
        }
        return run
    }

    /// The token reached `token`: what is at or under it is stored now, and let go.
    mutating func settled(_ gameID: String, through token: Int64) {
        if let held = relayed[gameID] {
            let left = held.filter { $0.key > token }
            relayed[gameID] = left.isEmpty ? nil : left
        }
        if let own = ownSaved[gameID] {
            let left = own.filter { $0 > token }
            ownSaved[gameID] = left.isEmpty ? nil : left
        }
    }

    /// The changes relayed and not yet stored in `gameID`, in zone order.
    func relayed(in gameID: String) -> [ZoneChange] {
        (relayed[gameID] ?? [:]).sorted { $0.key < $1.key }.map(\.value)
    }

    /// Lets go of every relayed change (the socket reconnected: they may never have been
    /// stored), returning them by game for the engine to check against the store.
    mutating func dropRelayed() -> [String: [ZoneChange]] {
        defer { relayed = [:] }
        return relayed.mapValues { Array($0.values) }
    }
}
