import CrossmateCore

/// A game as a puzzle file holds it, so a player can take it to another app: the puzzle, and
/// with the fill, the grid's letters as the file's saved progress — revealed squares marked
/// revealed and squares checked wrong marked incorrect, as Across Lite keeps them.
public enum GameExport {
    public static func puzzle(_ puzzle: Puzzle, grid: GameGrid, withFill: Bool) -> Puzzle {
        var exported = puzzle
        guard withFill, grid.cells.count == puzzle.width * puzzle.height else {
            exported.savedProgress = nil
            return exported
        }
        let flags = grid.cells.map { cell -> SavedProgress.Flags in
            switch cell.mark.verdict {
            case .revealed: .revealed
            case .checkedWrong: .incorrect
            default: []
            }
        }
        exported.savedProgress = SavedProgress(letters: grid.cells.map(\.letter), flags: flags.contains { !$0.isEmpty } ? flags : [])
        return exported
    }

    /// A file name for an exported game: its title in letters, digits, spaces and dashes
    /// (nothing a file system or a header could take amiss), at most 60 of them, and the
    /// format's extension; "crossword" for a title with none of those.
    public static func fileName(title: String, extension suffix: String) -> String {
        let kept = title.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-") ? Character(scalar) : " "
        }
        let words = String(kept).split(separator: " ").joined(separator: " ")
        let name = String(words.prefix(60)).split(separator: " ").joined(separator: " ")
        return (name.isEmpty ? "crossword" : name) + "." + suffix
    }
}
