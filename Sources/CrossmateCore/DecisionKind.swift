/// What an account's Decision is about (its `kind` on the wire and in storage): another account
/// is blocked, or pinned to a colour; or it is one of the account's own settings
/// (`SolverSettings`), keyed by the setting's name.
public enum DecisionKind: String, Codable, Hashable, Sendable, CaseIterable {
    case block
    case color
    case setting
}
