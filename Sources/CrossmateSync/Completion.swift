/// How and when a game ended. From then on its grid is frozen.
public struct Completion: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        case solved
        case resigned
    }

    public var kind: Kind
    /// The timestamp of the move that completed the grid, or of the resignation.
    public var at: HLCTimestamp
    /// Who made that move, or resigned.
    public var by: AuthorID

    public init(kind: Kind, at: HLCTimestamp, by: AuthorID) {
        self.kind = kind
        self.at = at
        self.by = by
    }
}
