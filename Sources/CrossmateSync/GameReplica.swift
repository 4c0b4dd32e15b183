import CrossmateCore

/// One replica of a game: the mutator that turns a player's commands into moves, the merged grid
/// it sees, its journal and clock, and completion. Deterministic: time comes in as
/// `wallMillis`, and batch identifiers derive from the replica and seq.
public struct GameReplica: Sendable {
    public let puzzle: Puzzle
    public let gameID: GameID
    public let replicaID: ReplicaID
    public let authorID: AuthorID
    public private(set) var clock: HybridLogicalClock
    public private(set) var grid: GameGrid
    /// This replica's own moves in seq order (seq n at index n - 1).
    public private(set) var journal: [Move] = []
    public private(set) var completion: Completion?
    /// Every write known at each square, for undo to restore what was there.
    public private(set) var history = CellHistory()
    /// Off for a replica that never undoes (the server's merged view of a game), which then
    /// keeps no history: it would hold every move of the game.
    public var recordsHistory = true
    private var lastSeqAtCell: [Int: Int] = [:]
    /// The journal's undo and redo stacks and last undo of each seq, taking each entry once as the
    /// journal grows (`journalGrew`): neither a gesture nor asking whether undo or redo is
    /// possible (every update a browser is sent asks both) passes over the whole journal.
    private var undoMachine = UndoPlanner.StackMachine()
    private var correctCount = 0
    private let letterCount: Int

    public init(puzzle: Puzzle, gameID: GameID, replicaID: ReplicaID, authorID: AuthorID, clock: HybridLogicalClock = .init()) {
        self.puzzle = puzzle
        self.gameID = gameID
        self.replicaID = replicaID
        self.authorID = authorID
        self.clock = clock
        grid = GameGrid(puzzle: puzzle)
        letterCount = puzzle.letterPositions.count
    }

    /// Rebuilds a replica from stored moves (its own and others'), as after a restart.
    public init(
        puzzle: Puzzle, gameID: GameID, replicaID: ReplicaID, authorID: AuthorID,
        moves: [Move], completion: Completion? = nil
    ) {
        self.init(puzzle: puzzle, gameID: gameID, replicaID: replicaID, authorID: authorID)
        if let completion {
            // Without the authority's final grid at hand, the finished grid is every move stamped
            // no later than the completion.
            var final = GameGrid(puzzle: puzzle)
            final.apply(moves, notAfter: completion.at)
            adopt(completion, finalGrid: final)
        }
        receive(moves.sorted { ($0.replicaID, $0.seq) < ($1.replicaID, $1.seq) })
    }

    /// Rebuilds a replica from a snapshot and the moves after it, as a server or a joining device
    /// does. With a completion, the snapshot must be the one stored with it (the final grid), and
    /// later moves leave it as it is.
    ///
    /// `moves` should hold every move known, covered by the snapshot or not (a device keeps its
    /// journal and what it received; the server keeps every move): this replica's own rebuild its
    /// journal, and everyone's tell undo what each square held before each of its writes, so the
    /// next seq, undo and redo are exactly what they were. Only the moves the snapshot does not
    /// cover are merged into the grid.
    public init(
        puzzle: Puzzle, gameID: GameID, replicaID: ReplicaID, authorID: AuthorID,
        snapshot: Snapshot, moves: [Move], completion: Completion? = nil
    ) {
        self.init(puzzle: puzzle, gameID: gameID, replicaID: replicaID, authorID: authorID)
        setGrid(snapshot.grid)
        for (index, cell) in grid.cells.enumerated() where cell.key != nil { history.record(cell, at: index) }
        for key in grid.cells.compactMap(\.key) { clock.observe(key.timestamp) }
        if let completion { adopt(completion, finalGrid: snapshot.grid) }
        let own = moves.filter { $0.gameID == gameID && $0.replicaID == replicaID }.sorted { $0.seq < $1.seq }
        for move in own where move.seq == journal.count + 1 {
            clock.observe(move.timestamp)
            record(move)
        }
        journalGrew()
        // Covered moves are not merged again, but undo needs them: what a square held just
        // before one of this replica's writes may be a covered move of someone else.
        for move in moves where move.gameID == gameID && snapshot.covers(move) { remember(move) }
        receive(moves.filter { !snapshot.covers($0) })
    }

    public var nextSeq: Int { journal.count + 1 }
    public var isComplete: Bool { completion != nil }
    public var canUndo: Bool { completion == nil && undoMachine.planUndo(grid: grid, history: history) != nil }
    public var canRedo: Bool { completion == nil && undoMachine.planRedo(grid: grid) != nil }

    // MARK: Commands

    /// Performs a command and returns the moves it made (none when no square changes). The moves
    /// share one batch (one undo step), named `batchID` when given (a host that performs commands
    /// for a device names the batch after the command, so the journal tells which commands it
    /// has performed), else after this replica and seq.
    @discardableResult
    public mutating func perform(_ command: Command, wallMillis: Int64, batchID: BatchID? = nil) throws(MutationRefusal) -> [Move] {
        if let completion { throw .gameComplete(completion) }
        let changes: [Change]
        let kind: MoveKind
        switch command {
        case let .setLetter(position, raw, pencil, autocheck):
            try requireLetterSquare(position)
            guard let letter = SquareText.normalize(raw) else { throw .invalidLetter(raw) }
            let current = grid.state(at: position)
            guard !current.mark.isLocked else { throw .squareRevealed(position) }
            var written: [Move] = []
            if current.letter != letter || current.mark.isPencil != pencil {
                // A new letter clears any check verdict; re-inking the same letter keeps it.
                let verdict = current.letter == letter ? current.mark.verdict : .none
                written = emit(
                    [Change(position: position, letter: letter, mark: CellMark(isPencil: pencil, verdict: verdict), cellAuthorID: authorID)],
                    kind: .input, wallMillis: wallMillis, batchID: batchID)
            }
            // Autocheck checks the square as a check does (a wrong letter only), in the same batch.
            guard autocheck, puzzle.isCorrect(letter, at: position) == false else { return written }
            return try written + perform(.check(.square(position)), wallMillis: wallMillis, batchID: written.first?.batchID ?? batchID)
        case let .delete(position):
            try requireLetterSquare(position)
            let current = grid.state(at: position)
            guard !current.mark.isLocked else { throw .squareRevealed(position) }
            guard !current.letter.isEmpty else { return [] }
            changes = [Change(position: position, letter: "", mark: .none, cellAuthorID: "")]
            kind = .input
        case let .check(scope):
            guard puzzle.hasSolution else { throw .noSolution }
            changes = try squares(in: scope).compactMap { position in
                let current = grid.state(at: position)
                guard !current.letter.isEmpty, !current.mark.isLocked else { return nil }
                let verdict: CellMark.Verdict = puzzle.isCorrect(current.letter, at: position) == true ? .checkedRight : .checkedWrong
                guard verdict != current.mark.verdict else { return nil }
                return Change(
                    position: position, letter: current.letter,
                    mark: CellMark(isPencil: current.mark.isPencil, verdict: verdict), cellAuthorID: current.cellAuthorID)
            }
            kind = .check
        case let .reveal(scope):
            guard puzzle.hasSolution else { throw .noSolution }
            changes = try squares(in: scope).compactMap { position in
                let current = grid.state(at: position)
                guard !current.mark.isLocked, puzzle.isCorrect(current.letter, at: position) != true,
                    let answer = puzzle.cell(at: position).solution
                else { return nil }
                return Change(position: position, letter: answer, mark: CellMark(verdict: .revealed), cellAuthorID: authorID)
            }
            kind = .reveal
        case let .clear(scope):
            changes = try squares(in: scope).compactMap { position in
                let current = grid.state(at: position)
                guard !current.letter.isEmpty, !current.mark.isLocked else { return nil }
                return Change(position: position, letter: "", mark: .none, cellAuthorID: "")
            }
            kind = .clear
        case .undo:
            guard let plan = undoMachine.planUndo(grid: grid, history: history) else { throw .nothingToUndo }
            return emit(plan, wallMillis: wallMillis, batchID: batchID)
        case .redo:
            guard let plan = undoMachine.planRedo(grid: grid) else { throw .nothingToRedo }
            return emit(plan, wallMillis: wallMillis, batchID: batchID)
        }
        return emit(changes, kind: kind, wallMillis: wallMillis, batchID: batchID)
    }

    /// Resigns the game: it ends now, unsolved.
    public mutating func resign(wallMillis: Int64) throws(MutationRefusal) -> Completion {
        if let completion { throw .gameComplete(completion) }
        let ending = Completion(kind: .resigned, at: clock.tick(wallMillis: wallMillis), by: authorID)
        completion = ending
        return ending
    }

    // MARK: Sync

    /// Merges moves from other replicas (or this replica's own, restored from storage). Returns
    /// the moves refused because they were stamped after the game's completion. Moves stamped
    /// before it are accepted for history but leave the finished grid as it is.
    @discardableResult
    public mutating func receive(_ moves: [Move]) -> [Move] {
        var refused: [Move] = []
        let before = journal.count
        defer { if journal.count != before { journalGrew() } }
        for move in moves where move.gameID == gameID {
            clock.observe(move.timestamp)
            // This replica's own moves, restored from storage, rebuild its journal.
            if move.replicaID == replicaID, move.seq == journal.count + 1 { record(move) }
            if let completion {
                if move.timestamp > completion.at { refused.append(move) }
                continue
            }
            apply(move)
        }
        return refused
    }

    /// Takes the completion the game's authority decided (the server's stored record) with the
    /// final grid stored beside it. It replaces whatever this replica had: a solve noticed here is
    /// a proposal until the authority's record arrives (a resignation may have been stored
    /// first, or moves this replica has not seen finished the grid elsewhere), and the finished
    /// grid is the authority's, so every replica ends with the same completion and grid.
    public mutating func adopt(_ ending: Completion, finalGrid: GameGrid) {
        clock.observe(ending.at)
        completion = ending
        setGrid(finalGrid)
    }

    // MARK: Internals

    private struct Change {
        var position: GridPosition
        var letter: String
        var mark: CellMark
        var cellAuthorID: AuthorID
    }

    private func requireLetterSquare(_ position: GridPosition) throws(MutationRefusal) {
        guard puzzle.isLetter(position) else { throw .notALetterSquare(position) }
    }

    private func squares(in scope: Scope) throws(MutationRefusal) -> [GridPosition] {
        switch scope {
        case let .square(position):
            try requireLetterSquare(position)
            return [position]
        case let .word(position, direction):
            guard let clue = puzzle.clue(containing: position, direction) else { throw .noWord(position, direction) }
            return clue.cells
        case .puzzle:
            return puzzle.letterPositions
        }
    }

    private mutating func emit(_ plan: UndoPlanner.Plan, wallMillis: Int64, batchID: BatchID?) -> [Move] {
        let changes = plan.steps.map { Change(position: $0.position, letter: $0.letter, mark: $0.mark, cellAuthorID: $0.cellAuthorID) }
        return emit(changes, kind: plan.kind, targets: plan.steps.map(\.targetSeq), wallMillis: wallMillis, batchID: batchID)
    }

    private mutating func emit(_ changes: [Change], kind: MoveKind, targets: [Int]? = nil, wallMillis: Int64, batchID: BatchID?) -> [Move] {
        guard !changes.isEmpty else { return [] }
        let batchID = batchID ?? "\(replicaID):\(nextSeq)"
        var moves: [Move] = []
        for (offset, change) in changes.enumerated() {
            let index = puzzle.index(of: change.position)
            let move = Move(
                gameID: gameID, replicaID: replicaID, authorID: authorID, seq: nextSeq,
                timestamp: clock.tick(wallMillis: wallMillis), position: change.position,
                letter: change.letter, mark: change.mark, cellAuthorID: change.cellAuthorID, kind: kind,
                batchID: batchID, targetSeq: targets?[offset], prevSeqAtCell: lastSeqAtCell[index])
            record(move)
            apply(move)
            moves.append(move)
        }
        journalGrew()
        return moves
    }

    private mutating func record(_ move: Move) {
        journal.append(move)
        if puzzle.contains(move.position) { lastSeqAtCell[puzzle.index(of: move.position)] = move.seq }
    }

    /// Takes the entries recorded since into the undo stacks (once per gesture or merge).
    private mutating func journalGrew() {
        undoMachine.take(journal)
    }

    /// Adds a write to the history undo plans from.
    private mutating func remember(_ move: Move) {
        guard recordsHistory, puzzle.isLetter(move.position) else { return }
        history.record(
            CellState(letter: move.letter, mark: move.mark, cellAuthorID: move.cellAuthorID, key: move.writeKey),
            at: puzzle.index(of: move.position))
    }

    private mutating func setGrid(_ new: GameGrid) {
        grid = new
        correctCount = puzzle.letterPositions.count { puzzle.isCorrect(grid.letter(at: $0), at: $0) == true }
    }

    /// Applies a move to the grid, keeping count of correct squares to notice the solve.
    private mutating func apply(_ move: Move) {
        guard puzzle.isLetter(move.position) else { return }
        remember(move)
        let before = grid.letter(at: move.position)
        guard grid.apply(move) else { return }
        guard puzzle.hasSolution else { return }
        let wasCorrect = puzzle.isCorrect(before, at: move.position) == true
        let isCorrect = puzzle.isCorrect(move.letter, at: move.position) == true
        correctCount += (isCorrect ? 1 : 0) - (wasCorrect ? 1 : 0)
        if correctCount == letterCount, completion == nil {
            completion = Completion(kind: .solved, at: move.timestamp, by: move.authorID)
        }
    }
}
