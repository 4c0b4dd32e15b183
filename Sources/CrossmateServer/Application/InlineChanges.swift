import CrossmateProtocol
import CrossmateStore

/// Changes a poke carries so that an up-to-date device need not fetch them: every change after
/// `after`, as stored.
struct InlineChanges: Codable, Sendable {
    /// A poke carries at most this many changes; a bigger write is announced plainly.
    static let maximumCount = 32

    var after: Int64
    var changes: [EncodedChange]

    init(after: Int64, changes: [EncodedChange]) {
        self.after = after
        self.changes = changes
    }

    /// Moves one transaction saved (numbered consecutively, so they are the zone's changes from
    /// the first to the last); nil for none or more than a poke carries.
    init?(saved: [SavedMove]) {
        guard let first = saved.first, saved.count <= Self.maximumCount else { return nil }
        self.init(after: first.sequence - 1, changes: saved.map(\.change))
    }

    /// The changes of `handed` (a relay's, a poke's, in any order) that follow on from
    /// `sequence` without a gap, as one run; nil when none does. Changes at or below `sequence`
    /// (already folded) are passed over.
    static func run(_ handed: [InlineChanges], after sequence: Int64) -> InlineChanges? {
        var through = sequence
        var run: [EncodedChange] = []
        for inline in handed.sorted(by: { $0.after < $1.after }) where inline.after <= through {
            for change in inline.changes where change.sequence > through {
                guard change.sequence == through + 1 else { break }
                run.append(change)
                through = change.sequence
            }
        }
        return run.isEmpty ? nil : InlineChanges(after: sequence, changes: run)
    }
}
