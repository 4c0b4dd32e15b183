import CrossmateCore
import CrossmateProtocol

/// Whether a browser can open a puzzle: the `opened` frame that carries it (the layout with
/// every clue, and every square) must fit what a socket may have waiting to be sent, or the
/// socket would close mid-frame and the browser reconnect in a loop. Checked when a game is
/// created, against the frame as it would be with every square filled and marked, so a game
/// that is accepted can always be opened.
enum BrowserFrameBudget {
    /// The bytes of the largest `opened` frame `puzzle` can make.
    static func largestOpenedBytes(_ puzzle: Puzzle) -> Int {
        let author = String(repeating: "a", count: 32)
        let squares = puzzle.letterPositions.map { position in
            SquareView(
                row: position.row, col: position.col, letter: puzzle.cell(at: position).solution ?? "W", pencil: true,
                verdict: .checkedWrong, authorID: author)
        }
        let state = GameStateView(
            gameID: author, squares: squares, completion: nil, scoreboard: nil, canUndo: true, canRedo: true,
            timer: TimerView(seconds: 0, countsFor: 0))
        let opened = GameOpened(state, layout: PuzzleLayout(puzzle), players: [], me: author, deviceID: author, readOnly: false)
        return SocketHub.encode(.opened(opened)).utf8.count
    }

    /// Refuses a puzzle whose largest frame would take more than half of a socket's buffer
    /// (the rest is room for the roster, cursors and what else is on its way).
    static func check(_ puzzle: Puzzle, socketBufferBytes: Int) throws {
        let bytes = largestOpenedBytes(puzzle)
        guard bytes <= socketBufferBytes / 2 else {
            throw APIError(
                .limitExceeded,
                "this \(puzzle.width)×\(puzzle.height) puzzle is too large to play here (\(bytes / 1024) KB to send to a browser, at most \(socketBufferBytes / 2048) KB)"
            )
        }
    }
}
