import CrossmateCore
import CrossmateStore

/// What an account's Decisions say (its zone's records of kind block, colour pin and setting),
/// read the one way every layer reads them: the HTTP routes, the write path, the browsers'
/// replicas and the push notifier.
enum AccountDecisions {
    /// The colour pins among an account's Decisions: friend → palette index (`PlayerColors.pins`).
    static func pins(_ decisions: [StoredDecision]) -> [String: Int] {
        PlayerColors.pins(decisions.lazy.map { (kind: $0.kind, key: $0.key, value: $0.value) })
    }

    /// The accounts `authorID` blocks.
    static func blocked(by authorID: String, store: Store) async throws -> Set<String> {
        blocked(try await store.decisions(of: authorID))
    }

    /// The accounts an account's decisions block.
    static func blocked(_ decisions: [StoredDecision]) -> Set<String> {
        Set(decisions.filter { $0.kind == DecisionKind.block.rawValue }.map(\.key))
    }

    /// The account's settings (stored as Decisions of kind "setting", keyed by the setting's
    /// name, so the last write from any of its devices wins and every device hears of it).
    static func settings(of authorID: String, store: Store) async throws -> SolverSettings {
        settings(try await store.decisions(of: authorID))
    }

    /// The settings among an account's decisions.
    static func settings(_ decisions: [StoredDecision]) -> SolverSettings {
        let stored = decisions.filter { $0.kind == DecisionKind.setting.rawValue }
        return SolverSettings(stored: Dictionary(stored.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }))
    }
}
