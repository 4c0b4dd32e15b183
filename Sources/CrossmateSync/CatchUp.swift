import CrossmateCore

/// What other players did in a game since an account last saw it: the squares they changed and
/// a line such as "Ana filled 12 squares, made 2 checks and wrote 2 messages". The baseline is the account's read
/// horizon when a device enters, which the server advances as it hands the catch-up out, so two
/// devices of one account never both show the same catch-up.
public struct CatchUp: Hashable, Sendable {
    public struct Author: Hashable, Sendable {
        public var authorID: AuthorID
        public var filled = 0
        public var erased = 0
        public var checks = 0
        public var reveals = 0
        public var messages = 0
    }

    /// Squares other players changed, in reading order.
    public var squares: [GridPosition]
    /// Each other player's part, in the order they first acted.
    public var authors: [Author]

    public var isEmpty: Bool { authors.isEmpty }

    /// The catch-up for `me` from the moves and chat messages stored after `baseline`
    /// (`sequence` is each record's zone sequence); messages of accounts `me` blocked are left out.
    public static func since(
        _ baseline: Int64, moves: [(sequence: Int64, move: Move)], messages: [(sequence: Int64, message: ChatMessage)] = [], me: AuthorID,
        hiding blocked: Set<AuthorID> = []
    ) -> CatchUp {
        var squares: Set<GridPosition> = []
        var order: [AuthorID] = []
        var parts: [AuthorID: Author] = [:]
        var filled: [AuthorID: Set<GridPosition>] = [:]
        var erased: [AuthorID: Set<GridPosition>] = [:]
        var gestures: Set<String> = []
        for (sequence, move) in moves.sorted(by: { $0.sequence < $1.sequence }) where sequence > baseline && move.authorID != me {
            let author = move.authorID
            if parts[author] == nil {
                parts[author] = Author(authorID: author)
                order.append(author)
            }
            squares.insert(move.position)
            switch move.kind {
            case .check, .reveal:
                if gestures.insert(move.replicaID + "\u{0}" + move.batchID).inserted {
                    if move.kind == .check { parts[author]!.checks += 1 } else { parts[author]!.reveals += 1 }
                }
            default:
                if move.letter.isEmpty {
                    erased[author, default: []].insert(move.position)
                    filled[author]?.remove(move.position)
                } else {
                    filled[author, default: []].insert(move.position)
                    erased[author]?.remove(move.position)
                }
            }
        }
        for (sequence, message) in messages.sorted(by: { $0.sequence < $1.sequence })
        where sequence > baseline && message.authorID != me && !blocked.contains(message.authorID) {
            if parts[message.authorID] == nil {
                parts[message.authorID] = Author(authorID: message.authorID)
                order.append(message.authorID)
            }
            parts[message.authorID]!.messages += 1
        }
        for author in order {
            parts[author]!.filled = filled[author]?.count ?? 0
            parts[author]!.erased = erased[author]?.count ?? 0
        }
        return CatchUp(
            squares: squares.sorted { ($0.row, $0.col) < ($1.row, $1.col) },
            authors: order.compactMap { parts[$0] })
    }

    /// "Ana filled 12 squares and made 2 checks; Ben revealed 1 square", or nil when nobody
    /// did anything.
    public func sentence(name: (AuthorID) -> String) -> String? {
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        let lines = authors.compactMap { author -> String? in
            var deeds: [String] = []
            if author.filled > 0 { deeds.append("filled \(count(author.filled, "square", "squares"))") }
            if author.erased > 0 { deeds.append("erased \(count(author.erased, "square", "squares"))") }
            if author.checks > 0 { deeds.append("made \(count(author.checks, "check", "checks"))") }
            if author.reveals > 0 { deeds.append("made \(count(author.reveals, "reveal", "reveals"))") }
            if author.messages > 0 { deeds.append("wrote \(count(author.messages, "message", "messages"))") }
            guard !deeds.isEmpty else { return nil }
            let joined = deeds.count == 1 ? deeds[0] : deeds.dropLast().joined(separator: ", ") + " and " + deeds.last!
            return "\(name(author.authorID)) \(joined)"
        }
        return lines.isEmpty ? nil : lines.joined(separator: "; ")
    }
}
