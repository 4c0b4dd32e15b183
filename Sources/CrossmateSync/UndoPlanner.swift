import CrossmateCore

/// Plans undo and redo for one replica from its journal (its own moves in seq order) and the
/// merged grid. Pure: a plan is a value; the replica turns it into moves.
///
/// Consecutive entries sharing a batch form one operation. A stack machine replays the journal:
/// an edit (input or clear) pushes its operation and empties the redo stack; an undo moves the
/// operation it targets to the redo stack; a redo moves it back. Checks and reveals are never
/// offered. Undoing an entry writes the square's merged state just before it (the winning write
/// among every known write below the entry's key: a friend's letter the entry overwrote comes
/// back, with its author), or empty. Undo never clobbers a letter someone wrote later: a square
/// whose letter is no longer the one the entry wrote is skipped (letters only are compared).
public enum UndoPlanner {
    /// One gesture of the journal.
    public struct Operation: Hashable, Sendable {
        public var batchID: BatchID
        public var kind: MoveKind
        public var entries: [Move]
    }

    /// The undo and redo stacks; the top is the last element.
    public struct Stacks: Hashable, Sendable {
        public var undo: [Operation] = []
        public var redo: [Operation] = []
    }

    /// One square to write: its new contents and the journal entry acted on.
    public struct Step: Hashable, Sendable {
        public var position: GridPosition
        public var letter: String
        public var mark: CellMark
        public var cellAuthorID: AuthorID
        public var targetSeq: Int
    }

    /// What an undo or redo will write, all under one new batch.
    public struct Plan: Hashable, Sendable {
        public var kind: MoveKind
        public var operation: Operation
        public var steps: [Step]
    }

    /// The stack machine, run over a journal as it grows: each entry is taken once, so a replica
    /// that keeps one pays for its new entries, not for the whole journal on every gesture.
    public struct StackMachine: Sendable {
        public private(set) var stacks = Stacks()
        /// The last undo move taken aimed at each seq.
        public private(set) var lastUndoOf: [Int: Move] = [:]
        /// How many journal entries have been taken.
        public private(set) var taken = 0
        private var batchOfSeq: [Int: BatchID] = [:]
        /// The batch of the last entry taken (a batch may be taken in two calls), and whether it
        /// is an edit's, pushed on the undo stack.
        private var openBatchID: BatchID?
        private var openIsEdit = false

        public init() {}

        /// The machine run over a whole journal at once.
        public init(taking journal: [Move]) {
            take(journal)
        }

        /// The undo of the top live operation (`UndoPlanner.planUndo`).
        public func planUndo(grid: GameGrid, history: CellHistory) -> Plan? {
            UndoPlanner.planUndo(stacks: stacks, grid: grid, history: history)
        }

        /// The redo of the top live undone operation (`UndoPlanner.planRedo`).
        public func planRedo(grid: GameGrid) -> Plan? {
            UndoPlanner.planRedo(stacks: stacks, lastUndoOf: lastUndoOf, grid: grid)
        }

        /// Takes the entries of `journal` not yet taken (the journal only grows).
        public mutating func take(_ journal: [Move]) {
            guard taken < journal.count else { return }
            for move in journal[taken...] { take(move) }
            taken = journal.count
        }

        private mutating func take(_ move: Move) {
            batchOfSeq[move.seq] = move.batchID
            if move.kind == .undo, let target = move.targetSeq { lastUndoOf[target] = move }
            if openBatchID == move.batchID {
                // The same gesture goes on: an edit's entries join it where it was pushed (still
                // the top: nothing came between); an undo or redo acted on its first entry.
                if openIsEdit { stacks.undo[stacks.undo.count - 1].entries.append(move) }
                return
            }
            openBatchID = move.batchID
            openIsEdit = move.kind.isUndoable
            let operation = Operation(batchID: move.batchID, kind: move.kind, entries: [move])
            if move.kind.isUndoable {
                stacks.undo.append(operation)
                stacks.redo.removeAll()
                return
            }
            switch move.kind {
            case .undo:
                guard let target = move.targetSeq.flatMap({ batchOfSeq[$0] }),
                    let index = stacks.undo.lastIndex(where: { $0.batchID == target })
                else { return }
                stacks.redo.append(stacks.undo.remove(at: index))
            case .redo:
                guard let target = move.targetSeq.flatMap({ batchOfSeq[$0] }),
                    let index = stacks.redo.lastIndex(where: { $0.batchID == target })
                else { return }
                stacks.undo.append(stacks.redo.remove(at: index))
            case .input, .clear, .check, .reveal:
                return  // edits are pushed above; checks and reveals are recorded but never offered
            }
        }
    }

    /// Runs the stack machine over the journal.
    public static func stacks(_ journal: [Move]) -> Stacks {
        StackMachine(taking: journal).stacks
    }

    /// The undo of the top live operation: the highest one with a square not yet superseded.
    /// `history` holds every write the replica knows of, its own and others'.
    public static func planUndo(journal: [Move], grid: GameGrid, history: CellHistory) -> Plan? {
        StackMachine(taking: journal).planUndo(grid: grid, history: history)
    }

    /// `planUndo(journal:grid:history:)` with the journal's stacks already run (a replica keeps
    /// them as its journal grows).
    public static func planUndo(stacks: Stacks, grid: GameGrid, history: CellHistory) -> Plan? {
        for operation in stacks.undo.reversed() {
            let steps = operation.entries.reversed().compactMap { entry -> Step? in
                guard grid.letter(at: entry.position) == entry.letter else { return nil }
                let before = history.state(before: entry.writeKey, at: entry.position.row * grid.width + entry.position.col)
                return Step(
                    position: entry.position, letter: before.letter, mark: before.mark,
                    cellAuthorID: before.cellAuthorID, targetSeq: entry.seq)
            }
            if !steps.isEmpty { return Plan(kind: .undo, operation: operation, steps: steps) }
        }
        return nil
    }

    /// The redo of the top live undone operation: each square its undo wrote, if still untouched,
    /// gets the operation's letter back.
    public static func planRedo(journal: [Move], grid: GameGrid) -> Plan? {
        StackMachine(taking: journal).planRedo(grid: grid)
    }

    /// `planRedo(journal:grid:)` with the journal's stacks and last undos already worked out.
    public static func planRedo(stacks: Stacks, lastUndoOf: [Int: Move], grid: GameGrid) -> Plan? {
        for operation in stacks.redo.reversed() {
            let steps = operation.entries.compactMap { entry -> Step? in
                guard let undo = lastUndoOf[entry.seq], grid.letter(at: entry.position) == undo.letter else { return nil }
                return Step(
                    position: entry.position, letter: entry.letter, mark: entry.mark,
                    cellAuthorID: entry.cellAuthorID, targetSeq: entry.seq)
            }
            if !steps.isEmpty { return Plan(kind: .redo, operation: operation, steps: steps) }
        }
        return nil
    }
}

/// Every write a replica knows of, square by square: what undo needs to find the state a square
/// had just before one of the replica's own writes, whoever wrote it.
public struct CellHistory: Sendable {
    private var writes: [Int: [CellState]] = [:]

    public init() {}

    /// Remembers a write (a move, or a snapshot's winner) at the square with this index.
    public mutating func record(_ state: CellState, at index: Int) {
        guard state.key != nil else { return }
        writes[index, default: []].append(state)
    }

    /// The winning write at the square among those below `key`, or the empty square.
    public func state(before key: WriteKey, at index: Int) -> CellState {
        var best = CellState.empty
        for state in writes[index] ?? [] {
            guard let written = state.key, key.wins(over: written), best.isBeaten(by: written) else { continue }
            best = state
        }
        return best
    }
}
