import CrossmateCore
import CrossmateFormats
import CrossmateSync

typealias SeededRandom = SeededRandomNumberGenerator

enum Puzzles {
    static let greenLight = try! BundledPuzzles.puzzle("green-light")
    static let daybreak = try! BundledPuzzles.puzzle("daybreak")
}

func at(_ row: Int, _ col: Int) -> GridPosition { GridPosition(row: row, col: col) }

/// A move with only what the merge looks at varying.
func move(
    _ replica: ReplicaID, _ seq: Int, at position: GridPosition, _ letter: String, time: Int64,
    counter: UInt16 = 0, author: AuthorID? = nil, kind: MoveKind = .input
) -> Move {
    Move(
        gameID: "g", replicaID: replica, authorID: author ?? "author-\(replica)", seq: seq,
        timestamp: HLCTimestamp(wallMillis: time, counter: counter), position: position, letter: letter,
        cellAuthorID: letter.isEmpty ? "" : (author ?? "author-\(replica)"), kind: kind, batchID: "\(replica):\(seq)")
}

/// Random moves over a width × height grid from a few replicas and authors, with colliding
/// timestamps so that the tie-breaks matter.
func randomMoves(count: Int, width: Int, height: Int, using random: inout SeededRandom) -> [Move] {
    var seqs: [String: Int] = [:]
    return (0..<count).map { _ in
        let replica = "r\(Int.random(in: 0..<4, using: &random))"
        seqs[replica, default: 0] += 1
        let letters = ["", "A", "B", "C", "XYZ"]
        return move(
            replica, seqs[replica]!, at: at(Int.random(in: 0..<height, using: &random), Int.random(in: 0..<width, using: &random)),
            letters.randomElement(using: &random)!, time: Int64.random(in: 1...20, using: &random),
            author: "a\(Int.random(in: 0..<3, using: &random))")
    }
}

func grid(_ moves: [Move], width: Int = 5, height: Int = 5) -> GameGrid {
    var grid = GameGrid(width: width, height: height)
    grid.apply(moves)
    return grid
}
