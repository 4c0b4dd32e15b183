import CrossmateCore

/// Bounds the work an uploaded file can make a reader do on its words and clues. A file is
/// whatever someone sends, so a small one must not be able to name millions of squares: a word
/// is at most one side of the grid long, there are at most two clues (or words) per square, and
/// all words together cover at most four times the grid's squares (a standard grid's words cover
/// each square at most twice).
struct WordBudget {
    let width: Int
    let height: Int
    private(set) var clues = 0
    private(set) var squares = 0

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    var maximumClues: Int { 2 * width * height }
    var maximumSquares: Int { 4 * width * height }

    /// Counts one more clue.
    mutating func takeClue() throws(PuzzleFileError) {
        clues += 1
        guard clues <= maximumClues else {
            throw .malformed("the file has more than \(maximumClues) clues for a \(width)×\(height) grid")
        }
    }

    /// Counts a word of `count` squares, before its squares are listed.
    mutating func takeWord(of count: Int) throws(PuzzleFileError) {
        guard count <= max(width, height) else {
            throw .malformed("a word of \(count) squares does not fit a \(width)×\(height) grid")
        }
        squares += count
        guard squares <= maximumSquares else {
            throw .malformed("the file's words name more than \(maximumSquares) squares of a \(width)×\(height) grid")
        }
    }
}

/// Where each number first appears on a letter square, found once for all the clues that look
/// their squares up by number.
struct NumberedSquares {
    private var first: [Int: Int] = [:]

    init(_ cells: [Cell]) {
        for (index, cell) in cells.enumerated() where cell.isLetter {
            if let number = cell.number, first[number] == nil { first[number] = index }
        }
    }

    /// The reading-order index of the letter square numbered `number`.
    func index(of number: Int) -> Int? { first[number] }
}
