import CrossmateCore

/// What a receiver re-checks in a move it did not make, beside the mutator that makes moves so
/// the two cannot drift apart. Only what the move, the puzzle and the game's participants can
/// tell is checked: nothing here depends on the grid, so no check races another writer.
///
/// - A square holds a letter with its writer, or nothing: an empty square has no author and no
///   mark, and a letter always names one.
/// - Typing and clearing write only their own author's letters (typing names its author,
///   clearing leaves the square empty); a check's verdict is a check's (right or wrong), a reveal
///   is a reveal's; undo and redo name the journal entry they act on.
/// - A verdict tells the truth: checked-right needs a correct letter, checked-wrong a wrong one,
///   revealed the solution. A puzzle with no known solution has no verdicts.
/// - A letter another player wrote (a check, a reveal, undo and redo restore or re-mark other
///   people's letters) names a participant of the game.
public enum MoveTrust {
    /// Why a move is not believed. Each says which rule the move broke.
    public enum Violation: Error, Hashable, Sendable, CustomStringConvertible {
        case emptySquareWithAuthorOrMark
        case letterWithoutAuthor
        case typedForAnotherAuthor(AuthorID)
        case clearLeavesLetter
        case wrongVerdictForKind(MoveKind, CellMark.Verdict)
        case falseVerdict(CellMark.Verdict, String)
        case noSolutionForVerdict
        case unknownAuthor(AuthorID)
        case missingTarget(MoveKind)
        case seqOutOfOrder(String, Int)

        public var description: String {
            switch self {
            case .emptySquareWithAuthorOrMark: "an empty square has no cellAuthorID and mark 0"
            case .letterWithoutAuthor: "a letter names its writer in cellAuthorID"
            case let .typedForAnotherAuthor(author):
                "typing writes the typist's own letter; cellAuthorID \"\(TextRule.quote(author))\" is someone else"
            case .clearLeavesLetter: "a clear leaves the square empty"
            case let .wrongVerdictForKind(kind, verdict): "a move of kind \(kind.rawValue) cannot leave the verdict \(verdict)"
            case let .falseVerdict(verdict, letter):
                "\"\(TextRule.quote(letter))\" is not \(verdict == .checkedWrong ? "wrong" : "the answer") at that square, so it cannot be marked \(verdict)"
            case .noSolutionForVerdict: "this puzzle has no solution to check or reveal against, so a move carries no verdict"
            case let .unknownAuthor(author): "cellAuthorID \"\(TextRule.quote(author))\" is not a player of this game"
            case let .missingTarget(kind): "an \(kind.rawValue) names the earlier move it acts on in targetSeq"
            case let .seqOutOfOrder(field, seq): "\(field) \(seq) must be an earlier seq of the same device"
            }
        }
    }

    /// Checks one move against the puzzle and the game's players (`isPlayer` answers for every
    /// account that ever took part, removed ones included: their letters stay in the grid).
    public static func check(_ move: Move, puzzle: Puzzle, isPlayer: (AuthorID) -> Bool) throws(Violation) {
        for (field, seq) in [("targetSeq", move.targetSeq), ("prevSeqAtCell", move.prevSeqAtCell)] {
            if let seq, !(1..<move.seq).contains(seq) { throw .seqOutOfOrder(field, seq) }
        }
        let verdict = move.mark.verdict
        if move.letter.isEmpty {
            guard move.cellAuthorID.isEmpty, move.mark == .none else { throw .emptySquareWithAuthorOrMark }
        } else {
            guard !move.cellAuthorID.isEmpty else { throw .letterWithoutAuthor }
        }

        switch move.kind {
        case .input:
            guard move.letter.isEmpty || move.cellAuthorID == move.authorID else { throw .typedForAnotherAuthor(move.cellAuthorID) }
            // Re-inking the same letter keeps its check verdict; a revealed square takes no typing.
            guard verdict != .revealed else { throw .wrongVerdictForKind(move.kind, verdict) }
        case .clear:
            guard move.letter.isEmpty else { throw .clearLeavesLetter }
        case .check:
            guard verdict == .checkedRight || verdict == .checkedWrong else { throw .wrongVerdictForKind(move.kind, verdict) }
        case .reveal:
            guard verdict == .revealed, !move.mark.isPencil else { throw .wrongVerdictForKind(move.kind, verdict) }
        case .undo, .redo:
            guard move.targetSeq != nil else { throw .missingTarget(move.kind) }
        }

        if verdict != .none {
            guard let correct = puzzle.isCorrect(move.letter, at: move.position) else { throw .noSolutionForVerdict }
            guard correct == (verdict != .checkedWrong) else { throw .falseVerdict(verdict, move.letter) }
        }
        if !move.cellAuthorID.isEmpty, move.cellAuthorID != move.authorID, !isPlayer(move.cellAuthorID) {
            throw .unknownAuthor(move.cellAuthorID)
        }
    }
}
