import CrossmateCore
import Foundation

/// The original puzzles shipped with Crossmate, so a new player can start solving at once.
public enum BundledPuzzles {
    /// Identifiers of the bundled puzzles, smallest first.
    public static let identifiers = ["green-light", "best-foot-forward", "daybreak"]

    /// Reads the bundled puzzle with `identifier` (one of `identifiers`).
    public static func puzzle(_ identifier: String) throws(PuzzleFileError) -> Puzzle {
        guard identifiers.contains(identifier),
            let url = Bundle.module.url(forResource: identifier, withExtension: "xd", subdirectory: "Bundled"),
            let data = try? Data(contentsOf: url)
        else {
            throw .notACrossword("there is no bundled puzzle named \"\(identifier)\" (try \(identifiers.joined(separator: ", ")))")
        }
        return try XdReader.read(Array(data))
    }
}
