import CrossmateCore

/// The squares a check, reveal or clear applies to.
public enum Scope: Hashable, Sendable {
    case square(GridPosition)
    /// The word through a square in a direction.
    case word(GridPosition, Direction)
    case puzzle
}

/// What a player asks for; the mutator turns it into moves (or into nothing, when no square
/// would change).
public enum Command: Hashable, Sendable {
    /// Type a letter (several for a rebus), in pencil or pen. With `autocheck` (a solver's
    /// setting) a wrong letter is marked checked-wrong at once, in the same undo step; the
    /// mark is a check, and counts as help in the scoreboard.
    case setLetter(GridPosition, String, pencil: Bool = false, autocheck: Bool = false)
    /// Remove the letter from one square.
    case delete(GridPosition)
    case check(Scope)
    case reveal(Scope)
    case clear(Scope)
    case undo
    case redo
}

/// Why a command was refused. Each says what the player can do about it.
public enum MutationRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    case gameComplete(Completion)
    case notALetterSquare(GridPosition)
    case invalidLetter(String)
    case squareRevealed(GridPosition)
    case noSolution
    case noWord(GridPosition, Direction)
    case nothingToUndo
    case nothingToRedo

    public var description: String {
        switch self {
        case let .gameComplete(completion):
            "the puzzle is already \(completion.kind == .solved ? "solved" : "finished (resigned)"); the grid is final"
        case let .notALetterSquare(position): "square \(position) does not take letters"
        case let .invalidLetter(letter):
            "\"\(TextRule.quote(letter))\" cannot go in a square (1 to \(SquareText.maximumLength) letters, digits or rebus symbols such as & and /)"
        case let .squareRevealed(position): "square \(position) was revealed: its answer stays (a reveal is not undone)"
        case .noSolution: "this puzzle has no solution to check or reveal against"
        case let .noWord(position, direction): "square \(position) has no \(direction.rawValue) word"
        case .nothingToUndo: "there is nothing of yours left to undo"
        case .nothingToRedo: "there is nothing to redo"
        }
    }
}
