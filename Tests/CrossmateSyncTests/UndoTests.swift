import CrossmateCore
import CrossmateSync
import Testing

@Suite struct UndoTests {
    func replica(_ id: String, author: String) -> GameReplica {
        GameReplica(puzzle: Puzzles.daybreak, gameID: "g", replicaID: id, authorID: author)
    }

    @Test func undoRestoresThePreviousLetterThenEmptyAndRedoBringsItBack() throws {
        var game = replica("phone", author: "ann")
        try game.perform(.setLetter(at(0, 0), "A"), wallMillis: 1)
        try game.perform(.setLetter(at(0, 0), "B"), wallMillis: 2)
        let undo = try game.perform(.undo, wallMillis: 3)
        #expect(undo.map(\.kind) == [.undo] && undo[0].targetSeq == 2 && undo[0].letter == "A")
        #expect(game.grid.letter(at: at(0, 0)) == "A")
        try game.perform(.undo, wallMillis: 4)
        #expect(game.grid.letter(at: at(0, 0)) == "")
        #expect(!game.canUndo && game.canRedo)
        let redo = try game.perform(.redo, wallMillis: 5)
        #expect(redo.map(\.kind) == [.redo] && redo[0].targetSeq == 1)
        #expect(game.grid.letter(at: at(0, 0)) == "A")
        try game.perform(.redo, wallMillis: 6)
        #expect(game.grid.letter(at: at(0, 0)) == "B")
        #expect(throws: MutationRefusal.nothingToRedo) { try game.perform(.redo, wallMillis: 7) }
    }

    /// Ann overwrites Bob's letter; her undo brings Bob's letter back, with Bob as its author
    /// (it used to empty the square: the journal only knew Ann's own earlier entries). Every
    /// replica, and a replica rebuilt from the moves, agrees.
    @Test func undoRestoresAFriendsLetterItOverwrote() throws {
        var ann = replica("ann-phone", author: "ann")
        var bob = replica("bob-phone", author: "bob")
        let bobs = try bob.perform(.setLetter(at(0, 0), "Q", pencil: true), wallMillis: 1)
        ann.receive(bobs)
        let mine = try ann.perform(.setLetter(at(0, 0), "B"), wallMillis: 2)
        let undo = try ann.perform(.undo, wallMillis: 3)
        #expect(undo.first?.letter == "Q" && undo.first?.cellAuthorID == "bob" && undo.first?.mark == .pencil)
        #expect(ann.grid.state(at: at(0, 0)).cellAuthorID == "bob")
        bob.receive(mine + undo)
        #expect(bob.grid == ann.grid)
        let redo = try ann.perform(.redo, wallMillis: 4)
        #expect(redo.first?.letter == "B" && ann.grid.state(at: at(0, 0)).cellAuthorID == "ann")
        // Rebuilt from every move (as after a restart), the replica plans the same undo.
        let rebuilt = GameReplica(
            puzzle: Puzzles.daybreak, gameID: "g", replicaID: "ann-phone", authorID: "ann", moves: bobs + mine + undo + redo)
        #expect(rebuilt.grid == ann.grid && rebuilt.canUndo == ann.canUndo)
        var again = rebuilt
        #expect(try again.perform(.undo, wallMillis: 5).first?.letter == "Q")
        // A friend's letter written after Ann's is still never clobbered.
        var carol = replica("carol-phone", author: "carol")
        carol.receive(bobs + mine)
        let later = try carol.perform(.setLetter(at(0, 0), "Z"), wallMillis: 10)
        var annLate = replica("ann-phone", author: "ann")
        annLate.receive(bobs)
        _ = try annLate.perform(.setLetter(at(0, 0), "B"), wallMillis: 2)
        annLate.receive(later)
        #expect(!annLate.canUndo && annLate.grid.letter(at: at(0, 0)) == "Z")
    }

    @Test func undoNeverOverwritesALetterAnotherPlayerWroteLater() throws {
        var ann = replica("ann-phone", author: "ann")
        var bob = replica("bob-phone", author: "bob")
        let mine = try ann.perform(.setLetter(at(0, 0), "B"), wallMillis: 1)
        bob.receive(mine)
        let theirs = try bob.perform(.setLetter(at(0, 0), "Q"), wallMillis: 2)
        ann.receive(theirs)
        #expect(!ann.canUndo)
        #expect(throws: MutationRefusal.nothingToUndo) { try ann.perform(.undo, wallMillis: 3) }
        #expect(ann.grid.letter(at: at(0, 0)) == "Q")
    }

    @Test func undoAndRedoAfterInterleavedRemoteEdits() throws {
        var ann = replica("ann-phone", author: "ann")
        var bob = replica("bob-phone", author: "bob")
        let a1 = try ann.perform(.setLetter(at(0, 0), "B"), wallMillis: 10)
        let b1 = try bob.perform(.setLetter(at(0, 1), "E"), wallMillis: 11)
        let a2 = try ann.perform(.setLetter(at(0, 2), "T"), wallMillis: 12)
        ann.receive(b1)
        bob.receive(a1 + a2)
        // Bob overwrites Ann's T; Ann's undo of T is skipped, so the undo goes to her B.
        let b2 = try bob.perform(.setLetter(at(0, 2), "X"), wallMillis: 13)
        ann.receive(b2)
        let undo = try ann.perform(.undo, wallMillis: 14)
        #expect(undo.map(\.position) == [at(0, 0)])
        #expect(ann.grid.letter(at: at(0, 0)) == "" && ann.grid.letter(at: at(0, 1)) == "E" && ann.grid.letter(at: at(0, 2)) == "X")
        let redo = try ann.perform(.redo, wallMillis: 15)
        #expect(redo.map(\.letter) == ["B"])
        bob.receive(undo + redo)
        #expect(bob.grid == ann.grid)
    }

    @Test func aBatchUndoesAsOneStep() throws {
        var game = replica("phone", author: "ann")
        try game.perform(.setLetter(at(0, 0), "B"), wallMillis: 1)
        try game.perform(.setLetter(at(0, 1), "E"), wallMillis: 2)
        let cleared = try game.perform(.clear(.word(at(0, 0), .across)), wallMillis: 3)
        #expect(cleared.count == 2)
        let undo = try game.perform(.undo, wallMillis: 4)
        #expect(undo.count == 2 && Set(undo.map(\.batchID)).count == 1)
        #expect(game.grid.letter(at: at(0, 0)) == "B" && game.grid.letter(at: at(0, 1)) == "E")
    }

    @Test func checksAndRevealsAreNeverUndoSteps() throws {
        var game = replica("phone", author: "ann")
        try game.perform(.setLetter(at(0, 0), "Q"), wallMillis: 1)
        try game.perform(.check(.square(at(0, 0))), wallMillis: 2)
        try game.perform(.reveal(.square(at(0, 1))), wallMillis: 3)
        let undo = try game.perform(.undo, wallMillis: 4)
        #expect(undo.map(\.targetSeq) == [1])
        #expect(game.grid.letter(at: at(0, 1)) == "E")  // the reveal stays
        #expect(!game.canUndo)
    }

    @Test func undoOfAClearBringsTheLetterBack() throws {
        var game = replica("phone", author: "ann")
        try game.perform(.setLetter(at(0, 0), "B"), wallMillis: 1)
        try game.perform(.clear(.square(at(0, 0))), wallMillis: 2)
        #expect(try game.perform(.undo, wallMillis: 3).first?.letter == "B")
    }

    @Test func aNewEditEmptiesTheRedoStack() throws {
        var game = replica("phone", author: "ann")
        try game.perform(.setLetter(at(0, 0), "B"), wallMillis: 1)
        try game.perform(.undo, wallMillis: 2)
        #expect(game.canRedo)
        try game.perform(.setLetter(at(0, 1), "E"), wallMillis: 3)
        #expect(!game.canRedo)
    }

    @Test func undoDepthIsUnlimited() throws {
        var game = replica("phone", author: "ann")
        let squares = Puzzles.daybreak.letterPositions
        for step in 0..<600 {
            try game.perform(.setLetter(squares[step % squares.count], step % 2 == 0 ? "A" : "B"), wallMillis: Int64(step))
        }
        var undone = 0
        while game.canUndo {
            try game.perform(.undo, wallMillis: 10_000)
            undone += 1
        }
        #expect(undone == 600)
        #expect(game.grid.letters.allSatisfy { $0.isEmpty })
    }

    @Test func stackMachineIsAPureFunctionOfTheJournal() throws {
        var game = replica("phone", author: "ann")
        try game.perform(.setLetter(at(0, 0), "B"), wallMillis: 1)
        try game.perform(.setLetter(at(0, 1), "E"), wallMillis: 2)
        try game.perform(.undo, wallMillis: 3)
        let stacks = UndoPlanner.stacks(game.journal)
        #expect(stacks.undo.map(\.batchID) == ["phone:1"])
        #expect(stacks.redo.map(\.batchID) == ["phone:2"])
        #expect(UndoPlanner.planUndo(journal: game.journal, grid: game.grid, history: game.history)?.steps.map(\.targetSeq) == [1])
    }

    /// A replica takes its journal into the stack machine a gesture at a time; the machine must
    /// end where a run over the whole journal ends, however the journal is cut (a batch split
    /// between two takes included). A seeded game of edits, autochecked letters (two moves in
    /// one batch), word clears, undos and redos among a friend's letters.
    @Test func stackMachineTakesTheJournalInAnyPieces() throws {
        var random = SeededRandomNumberGenerator(seed: 23)
        var ann = replica("ann-phone", author: "ann")
        var bob = replica("bob-phone", author: "bob")
        let squares = Puzzles.daybreak.letterPositions
        var everyMove: [Move] = []
        for step in 0..<600 {
            let square = squares.randomElement(using: &random)!
            let letter = String("ABCDEFGHIJKLMNOPQRSTUVWXYZ".randomElement(using: &random)!)
            let wall = Int64(step + 1)
            if Int.random(in: 0..<4, using: &random) == 0 {
                let bobs = try bob.perform(.setLetter(square, letter), wallMillis: wall)
                ann.receive(bobs)
                everyMove += bobs
                continue
            }
            let command: Command =
                switch Int.random(in: 0..<10, using: &random) {
                case 0, 1: .undo
                case 2: .redo
                case 3: .setLetter(square, letter, autocheck: true)
                case 4: .clear(.word(square, Bool.random(using: &random) ? .across : .down))
                case 5: .delete(square)
                default: .setLetter(square, letter, pencil: Bool.random(using: &random))
                }
            let made = (try? ann.perform(command, wallMillis: wall)) ?? []
            bob.receive(made)
            everyMove += made
        }
        // It ends with something to redo, so both stacks are compared with something on them.
        everyMove += try ann.perform(.setLetter(at(0, 0), "Q"), wallMillis: 700) + ann.perform(.undo, wallMillis: 701)
        #expect(ann.journal.count > 300)
        var whole = UndoPlanner.StackMachine()
        whole.take(ann.journal)
        #expect(!whole.stacks.undo.isEmpty && !whole.stacks.redo.isEmpty && !whole.lastUndoOf.isEmpty)
        for cut in [1, 2, 3, 7] {
            var pieces = UndoPlanner.StackMachine()
            var end = 0
            while end < ann.journal.count {
                end = min(ann.journal.count, end + Int.random(in: 1...cut, using: &random))
                pieces.take(Array(ann.journal[..<end]))
            }
            #expect(pieces.stacks == whole.stacks && pieces.lastUndoOf == whole.lastUndoOf && pieces.taken == ann.journal.count)
        }
        // Rebuilt from every move at once (as after a restart), the replica offers the same.
        var rebuilt = GameReplica(puzzle: Puzzles.daybreak, gameID: "g", replicaID: "ann-phone", authorID: "ann", moves: everyMove)
        #expect(rebuilt.canUndo == ann.canUndo && rebuilt.canRedo == ann.canRedo)
        #expect(try rebuilt.perform(.undo, wallMillis: 10_000).map(\.targetSeq) == (try ann.perform(.undo, wallMillis: 10_000)).map(\.targetSeq))
    }
}
