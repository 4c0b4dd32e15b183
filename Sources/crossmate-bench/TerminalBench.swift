import ArgumentParser
import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import CrossmateTerminal
import Foundation

/// `crossmate-bench terminal`: what one key costs `crossmate play` on this machine: the key
/// handled (`PlayState`), the frame drawn (`PlayScreen`) and written as escape sequences, for a
/// 15×15 and a 21×21 with three-digit numbers, at 80×24, 120×40 and 200×60.
struct TerminalBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "terminal",
        abstract: "Measure a keystroke in the terminal client: the key, the frame, its escape sequences."
    )

    @Option(help: "Arrow keys timed at each size.")
    var keystrokes = 400

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() throws {
        var report = Report(title: "crossmate-bench terminal: \(keystrokes) arrow keys at each size (key, frame, escape sequences)")
        for side in [15, 21] {
            let puzzle = try Self.puzzle(side: side)
            // Half the squares filled, by two players, and a friend's cursor: a game in progress.
            var grid = GameGrid(puzzle: puzzle)
            var replicas = ["acct-ann", "acct-bob"].map { GameReplica(puzzle: puzzle, gameID: "game-1", replicaID: "dev-\($0)", authorID: $0) }
            for (index, position) in puzzle.letterPositions.enumerated() where index % 2 == 0 {
                let moves = try replicas[index / 2 % 2].perform(.setLetter(position, "A"), wallMillis: Int64(1_000 + index))
                grid.apply(moves)
            }
            let view = GameView(
                gameID: "game-1", title: "Bench \(side)×\(side)", puzzle: puzzle, grid: grid, completion: nil, canUndo: true, canRedo: false,
                readOnly: false,
                players: [
                    ParticipantRecord(gameID: "game-1", authorID: "acct-ann", displayName: "Ann", role: .owner),
                    ParticipantRecord(gameID: "game-1", authorID: "acct-bob", displayName: "Bob", role: .player),
                ],
                cursors: [PeerCursor(deviceID: "dev-bob", authorID: "acct-bob", position: GridPosition(row: 2, col: 2), direction: .down)],
                me: "acct-ann", sealed: false)
            for (width, height) in [(80, 24), (120, 40), (200, 60)] {
                var state = PlayState(puzzle: puzzle) { grid.letter(at: $0) }
                let keys: [InputKey] = [.right, .right, .down, .down, .left, .left, .up, .up]
                var times: [Double] = []
                var bytes = 0
                for step in 0..<keystrokes {
                    let seconds = measure {
                        _ = state.handle(keys[step % keys.count], view: view)
                        let screen = PlayScreen(
                            view: view, state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: step)
                        bytes = screen.render(width: width, height: height).ansi(.twoFiftySix).utf8.count
                    }
                    times.append(seconds * 1000)
                }
                times.sort()
                let key = "s\(side)w\(width)h\(height)"
                report.add(key + "P50", "\(side)×\(side) at \(width)×\(height): a key, p50", percentile(times, 0.5), "ms")
                report.add(key + "P99", "\(side)×\(side) at \(width)×\(height): a key, p99", percentile(times, 0.99), "ms")
                report.add(key + "Bytes", "\(side)×\(side) at \(width)×\(height): a frame's escape sequences", Double(bytes), "bytes")
            }
        }
        report.print(json: json)
    }

    /// A `side`×`side` grid with a symmetric pattern of blocks and standard numbering (a 21×21
    /// reaches three-digit numbers).
    static func puzzle(side: Int) throws -> Puzzle {
        let cells = (0..<(side * side)).map { index -> Cell in
            let (row, col) = (index / side, index % side)
            let blocked = { (r: Int, c: Int) in (r * 5 + c * 3) % 11 == 4 && r % 4 != 0 }
            return blocked(row, col) || blocked(side - 1 - row, side - 1 - col) ? .block : .letter("E")
        }
        var texts: [Direction: [Int: String]] = [.across: [:], .down: [:]]
        for number in 1...400 {
            texts[.across]![number] = "Across clue number \(number), long enough to wrap in a narrow list"
            texts[.down]![number] = "Down clue \(number)"
        }
        return try Puzzle(title: "Bench", author: "crossmate-bench", width: side, height: side, cells: cells, clueTexts: texts)
    }
}
