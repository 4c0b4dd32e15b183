/// Comparing a player's letters with the published solution.
extension Puzzle {
    /// Whether `letter` is a correct answer for the square at `position`. A rebus square accepts
    /// its full answer, and its first letter where the format allows (`acceptsRebusFirstLetter`).
    /// Returns `nil` when the square has no known solution, so nothing can be checked.
    public func isCorrect(_ letter: String, at position: GridPosition) -> Bool? {
        let cell = cell(at: position)
        guard cell.isLetter, lock == nil, let solution = cell.solution else { return nil }
        let entered = letter.uppercased()
        if entered == solution { return true }
        if acceptsRebusFirstLetter, solution.count > 1, let first = solution.first {
            return entered == String(first)
        }
        return false
    }

    /// Whether `letterAt` fills every letter square correctly. `false` when there is no solution.
    public func isSolved(letterAt: (GridPosition) -> String) -> Bool {
        guard hasSolution else { return false }
        return letterPositions.allSatisfy { isCorrect(letterAt($0), at: $0) == true }
    }
}
