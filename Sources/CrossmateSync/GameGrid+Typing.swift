import CrossmateCore

extension GameGrid {
    /// What typing `edit` onto this grid comes to. A revealed square is locked: typing its own
    /// letter again steps on quietly (nothing to write); anything else is refused, and the
    /// cursor stays where it was (it moved on as if the letter were written). The terminal and
    /// the browser both follow this.
    public enum Typing: Hashable, Sendable {
        /// Write it, and move on.
        case write
        /// Nothing to write; move on.
        case stepOver
        /// Refused: the cursor stays.
        case refused
    }

    public func typing(_ edit: SolvingKeys.Edit) -> Typing {
        let position: GridPosition
        let letter: String?
        switch edit {
        case let .write(at, written, _): (position, letter) = (at, written)
        case let .erase(at): (position, letter) = (at, nil)
        }
        guard contains(position), state(at: position).mark.isLocked else { return .write }
        if let letter, SquareText.normalize(letter) == self.letter(at: position) { return .stepOver }
        return .refused
    }
}
