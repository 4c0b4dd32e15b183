/// One entry of the puzzle: the squares of a word, its number and its clue.
public struct Clue: Hashable, Sendable, Codable {
    public var direction: Direction
    public var number: Int
    public var text: String
    /// The squares of the answer in order. Usually a straight run, but formats such as .ipuz and
    /// .jpz may name any squares.
    public var cells: [GridPosition]

    public init(direction: Direction, number: Int, text: String, cells: [GridPosition]) {
        self.direction = direction
        self.number = number
        self.text = text
        self.cells = cells
    }

    /// A short label such as "12A" or "3D".
    public var label: String { "\(number)\(direction == .across ? "A" : "D")" }
}
