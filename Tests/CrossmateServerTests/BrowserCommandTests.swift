import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import CrossmateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import CrossmateServer

/// A browser's commands over its socket: the server performs them with the browser device's
/// replica and answers with the squares they changed, or refuses them with a reason.
@Suite struct BrowserCommandTests {
    /// A browser's socket in a test, with the next answer to each command.
    struct Browser {
        let probe: SocketProbe
        var iterator: AsyncStream<ServerSocketMessage>.Iterator
        var nextID = 1

        init(port: Int, token: String) {
            probe = SocketProbe(port: port, token: token)
            iterator = probe.received.makeAsyncIterator()
        }

        /// When this browser's commands are typed, as the server reads them: after now, so taken
        /// as now, and each browser's apart (a browser whose queue was wiped types at new
        /// times). A browser that sends another's commands again takes its `typing`.
        var typing = Int64.max / 2 + Browser.browsers.add(1_000_000, ordering: .relaxed).newValue
        static let browsers = Atomic<Int64>(0)

        func typedAt(id: Int) -> Int64 { typing + Int64(id) }

        mutating func open(_ gameID: String) async throws -> GameOpened {
            probe.send(.open(gameID: gameID))
            guard case let .opened(game) = try await probe.next(&iterator, where: { if case .opened = $0 { true } else { false } }) else {
                throw SocketProbe.ProbeClosed()
            }
            return game
        }

        /// Sends a command; its answer (applied or refused).
        mutating func run(_ gameID: String, _ command: BrowserCommand) async throws -> ServerSocketMessage {
            let id = nextID
            nextID += 1
            probe.send(.command(CommandRequest(gameID: gameID, id: id, command: command, typedAt: typedAt(id: id))))
            return try await probe.next(&iterator) { message in
                switch message {
                case let .applied(answer): answer.id == id
                case let .refused(refusal): refusal.id == id
                default: false
                }
            }
        }

        mutating func applied(_ gameID: String, _ command: BrowserCommand) async throws -> CommandApplied {
            let answer = try await run(gameID, command)
            guard case let .applied(applied) = answer else { throw Unexpected(answer: answer) }
            return applied
        }

        mutating func refused(_ gameID: String, _ command: BrowserCommand) async throws -> CommandRefusal {
            let answer = try await run(gameID, command)
            guard case let .refused(refusal) = answer else { throw Unexpected(answer: answer) }
            return refusal
        }

        mutating func update(where predicate: (GameUpdate) -> Bool) async throws -> GameUpdate {
            guard
                case let .update(update) = try await probe.next(
                    &iterator, where: { if case let .update(update) = $0 { predicate(update) } else { false } })
            else { throw SocketProbe.ProbeClosed() }
            return update
        }
    }

    struct Unexpected: Error, CustomStringConvertible {
        var answer: ServerSocketMessage
        var description: String { "unexpected answer: \(answer)" }
    }

    static func letter(_ row: Int, _ col: Int, _ letter: String, pencil: Bool = false) -> BrowserCommand {
        BrowserCommand(kind: "setLetter", row: row, col: col, letter: letter, pencil: pencil)
    }

    static func scoped(_ kind: String, _ scope: String, _ row: Int = 0, _ col: Int = 0, _ direction: String = "across") -> BrowserCommand {
        // As the wire names them: a scope that is none stays unset, and the command is refused.
        BrowserCommand(
            kind: .init(name: kind), row: row, col: col, scope: BrowserCommand.Extent(rawValue: scope), direction: Direction(rawValue: direction))
    }

    /// A pause stops the player's share of the shared clock, for every device: the browser's
    /// answer, a reopened page and a native device all count to the pause, and another
    /// player's moves keep the clock going.
    @Test func aPauseStopsTheSharedClockUntilSomeoneMoves() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            var browser = Browser(port: port, token: ann.token)
            _ = try await browser.open(game.gameID)
            _ = try await browser.applied(game.gameID, Self.letter(1, 0, "G"))
            server.clock.advance(byMillis: 10_000)
            _ = try await browser.applied(game.gameID, Self.letter(1, 1, "R"))
            server.clock.advance(byMillis: 5_000)
            let paused = try await browser.applied(game.gameID, BrowserCommand(kind: "pause"))
            #expect(paused.timer.seconds == 15 && paused.timer.countsFor == 0)
            let pausedAt = server.clock.now
            server.clock.advance(byMillis: 300_000)
            var again = Browser(port: port, token: ann.token)
            #expect(try await again.open(game.gameID).timer.seconds == 15)
            // A native device reads the pause among the changes.
            let changes: ChangesResponse = try await client.call(.get, "/v1/games/\(game.gameID)/changes", token: bob.token)
            let pauses = changes.changes.compactMap { change -> Pause? in if case let .pause(pause) = change.record { pause } else { nil } }
            #expect(pauses.map(\.at) == [pausedAt] && pauses.first?.authorID == ann.account.authorID)
            // Bob solves while Ann is paused: the shared clock runs with him.
            var bobDevice = TestDevice(bob, puzzle: greenLight, gameID: game.gameID)
            _ = try await client.push(bob, game.gameID, try bobDevice.replica.perform(.setLetter(at(2, 0), "L"), wallMillis: server.clock.now))
            server.clock.advance(byMillis: 20_000)
            _ = try await client.push(bob, game.gameID, try bobDevice.replica.perform(.setLetter(at(3, 0), "A"), wallMillis: server.clock.now))
            let update = try await again.update { $0.squares.contains { $0.row == 3 && $0.col == 0 } }
            #expect(update.timer.seconds == 15 + 20 && update.timer.countsFor == 60)
            // A finished game's clock cannot be paused.
            _ = try await browser.applied(game.gameID, Self.scoped("reveal", "puzzle"))
            #expect(try await browser.refused(game.gameID, BrowserCommand(kind: "pause")).code == .finished)
        }
    }

    /// One hop: a hosted replica folds the changes a poke hands over when they follow on from
    /// what it holds, and reads the store only for a gap or a record other than a move or pause.
    @Test func aPokesChangesAreFoldedWithoutReadingThemBack() throws {
        var replica = GameReplica(puzzle: greenLight, gameID: "game-1", replicaID: "dev-ann", authorID: "acct-ann")
        let moves = try replica.perform(.setLetter(at(1, 0), "G"), wallMillis: 1_000) + replica.perform(.setLetter(at(1, 1), "R"), wallMillis: 1_001)
        let pause = Pause(gameID: "game-1", authorID: "acct-ann", replicaID: "dev-ann", at: 1_002)
        let handed = InlineChanges(
            after: 7,
            changes: [
                EncodedChange(ZoneChange(sequence: 8, record: .move(MoveRecord(moves[0])))),
                EncodedChange(ZoneChange(sequence: 9, record: .move(MoveRecord(moves[1])))),
                EncodedChange(ZoneChange(sequence: 10, record: .pause(pause))),
            ])
        let folded = try #require(try BrowserGame.activity(handed, after: 7, gameID: "game-1"))
        #expect(folded.moves.map(\.sequence) == [8, 9] && folded.moves.map(\.move) == moves && folded.pauses == [pause] && folded.through == 10)
        // A gap, another kind of record, or no changes at all: read from the store.
        #expect(try BrowserGame.activity(handed, after: 6, gameID: "game-1") == nil)
        var roster = handed
        roster.changes.append(EncodedChange(sequence: 11, kind: .participant, json: "{}"))
        #expect(try BrowserGame.activity(roster, after: 7, gameID: "game-1") == nil)
        #expect(try BrowserGame.activity(nil, after: 7, gameID: "game-1") == nil)
    }

    /// A relay decodes its moves once for every replica it reaches: a replica takes those as
    /// they are and decodes only the changes it was not handed decoded.
    @Test func relayedMovesAreTakenAsTheRelayDecodedThem() throws {
        var replica = GameReplica(puzzle: greenLight, gameID: "game-1", replicaID: "dev-ann", authorID: "acct-ann")
        let moves = try replica.perform(.setLetter(at(1, 0), "G"), wallMillis: 1_000) + replica.perform(.setLetter(at(1, 1), "R"), wallMillis: 1_001)
        // The JSON says G at 8; the relay's decoded move for 8 is another (so which one was used shows).
        let handed = InlineChanges(
            after: 7,
            changes: [
                EncodedChange(ZoneChange(sequence: 8, record: .move(MoveRecord(moves[0])))),
                EncodedChange(ZoneChange(sequence: 9, record: .move(MoveRecord(moves[1])))),
            ])
        let folded = try #require(try BrowserGame.activity(handed, after: 7, gameID: "game-1", known: [8: moves[1]]))
        #expect(folded.moves.map(\.sequence) == [8, 9] && folded.moves.map(\.move) == [moves[1], moves[1]] && folded.through == 9)
        // A stored body that does not decode is not read when the relay decoded its move.
        var corrupt = handed
        corrupt.changes[0] = EncodedChange(sequence: 8, kind: .move, json: "{")
        #expect(try BrowserGame.activity(corrupt, after: 7, gameID: "game-1", known: [8: moves[0]])?.moves.map(\.move) == moves)
        #expect(throws: (any Error).self) { try BrowserGame.activity(corrupt, after: 7, gameID: "game-1") }
    }

    /// Moves relayed before their commit and the poke after it hand a replica the same changes,
    /// in either order, with others between: one run from what it holds, each change once.
    @Test func relayedAndPokedChangesMakeOneRunWithoutGapsOrRepeats() {
        func changes(_ after: Int64, _ count: Int64) -> InlineChanges {
            InlineChanges(after: after, changes: (after + 1...after + count).map { EncodedChange(sequence: $0, kind: .move, json: "{}") })
        }
        let sequences = { (run: InlineChanges?) in run?.changes.map(\.sequence) }
        #expect(sequences(InlineChanges.run([changes(9, 2), changes(7, 2)], after: 7)) == [8, 9, 10, 11])
        // The relay of 8–9 was folded; its poke comes with the relay of 10.
        #expect(sequences(InlineChanges.run([changes(7, 2), changes(9, 1)], after: 9)) == [10])
        #expect(InlineChanges.run([changes(7, 2)], after: 9) == nil)
        // Overlapping, and a gap after 9: the run stops where the gap is.
        #expect(sequences(InlineChanges.run([changes(7, 3), changes(8, 1), changes(11, 1)], after: 8)) == [9, 10])
        #expect(InlineChanges.run([changes(9, 1)], after: 7) == nil)
        #expect(InlineChanges.run([], after: 7) == nil)
    }

    @Test func everyCommandIsPerformedAsTheBrowsersOwnMoves() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            var browser = Browser(port: port, token: ann.token)
            browser.probe.send(.ping)
            let opened = try await browser.open(game.gameID)
            #expect(opened.layout.width == 5 && opened.layout.across.first?.number == 1 && opened.layout.hasSolution)
            #expect(opened.squares.count == greenLight.letterPositions.count && opened.squares.allSatisfy { $0.letter.isEmpty })
            #expect(Set(opened.players.map(\.displayName)) == ["Ann", "Bob"] && opened.me == ann.account.authorID)
            #expect(Set(opened.players.map(\.color)).count == 2)
            #expect(!opened.canUndo && !opened.readOnly && opened.completion == nil)

            // Letters (pen and pencil, normalised) and deletes answer with the squares they changed.
            let typed = try await browser.applied(game.gameID, Self.letter(1, 0, "g"))
            #expect(typed.squares == [SquareView(row: 1, col: 0, letter: "G", pencil: false, verdict: .none, authorID: ann.account.authorID)])
            #expect(typed.canUndo && !typed.canRedo)
            #expect(try await browser.applied(game.gameID, Self.letter(1, 1, "R", pencil: true)).squares.first?.pencil == true)
            #expect(try await browser.applied(game.gameID, BrowserCommand(kind: "delete", row: 1, col: 1)).squares.first?.letter == "")
            #expect(try await browser.applied(game.gameID, Self.letter(1, 0, "G")).squares.isEmpty)  // nothing to change

            // Another device's letter arrives as an update, in its author's name.
            var bobDevice = TestDevice(bob, puzzle: greenLight, gameID: game.gameID)
            _ = try await client.push(bob, game.gameID, try bobDevice.replica.perform(.setLetter(at(2, 0), "L"), wallMillis: server.clock.now))
            let update = try await browser.update { $0.squares.contains { $0.row == 2 && $0.col == 0 } }
            #expect(update.squares.first { $0.row == 2 }?.authorID == bob.account.authorID)

            // Overwriting Bob's letter and undoing it brings Bob's letter back; redo writes it again.
            _ = try await browser.applied(game.gameID, Self.letter(2, 0, "X"))
            let undone = try await browser.applied(game.gameID, BrowserCommand(kind: "undo"))
            #expect(undone.squares == [SquareView(row: 2, col: 0, letter: "L", pencil: false, verdict: .none, authorID: bob.account.authorID)])
            #expect(undone.canRedo)
            #expect(try await browser.applied(game.gameID, BrowserCommand(kind: "redo")).squares.first?.letter == "X")

            // Check, reveal and clear at a word, a square and the puzzle.
            let checked = try await browser.applied(game.gameID, Self.scoped("check", "word", 2, 0, "down"))
            #expect(checked.squares.first { $0.row == 2 && $0.col == 0 }?.verdict == .checkedWrong)
            let revealed = try await browser.applied(game.gameID, Self.scoped("reveal", "square", 2, 0))
            #expect(revealed.squares == [SquareView(row: 2, col: 0, letter: "L", pencil: false, verdict: .revealed, authorID: ann.account.authorID)])
            let cleared = try await browser.applied(game.gameID, Self.scoped("clear", "puzzle"))
            #expect(cleared.squares.map { "\($0.row),\($0.col)" } == ["1,0"])  // the revealed square stays

            // Each refusal says why, and changes nothing.
            let refusals: [(BrowserCommand, RefusalCode)] = [
                (Self.letter(2, 0, "Q"), .squareRevealed),
                (Self.letter(0, 0, "A"), .notALetterSquare),
                (Self.letter(1, 0, "A B"), .invalidLetter),
                (BrowserCommand(kind: "setLetter", row: 1, col: 0), .invalid),
                (BrowserCommand(kind: "shout"), .invalid),
                (Self.scoped("check", "everything"), .invalid),
                (BrowserCommand(kind: "redo"), .nothingToRedo),
            ]
            for (command, code) in refusals {
                let refusal = try await browser.refused(game.gameID, command)
                #expect(refusal.code == code, "\(command)")
                #expect(!refusal.reason.isEmpty)
            }
            #expect(try await browser.refused("game-elsewhere", BrowserCommand(kind: "undo")).code == .notOpen)

            // The moves are the browser device's own, stored like any device's.
            let (changes, _) = try await client.allChanges(bob, game.gameID)
            let annMoves = changes.compactMap { change -> MoveRecord? in
                if case let .move(record) = change.record, record.authorID == ann.account.authorID { record } else { nil }
            }
            #expect(!annMoves.isEmpty && annMoves.allSatisfy { $0.replicaID == ann.deviceID })
            #expect(annMoves.map(\.seq) == Array(1...annMoves.count))

            // Removed: the browser hears it is read-only, and its commands are refused.
            var bobBrowser = Browser(port: port, token: bob.token)
            bobBrowser.probe.send(.ping)
            _ = try await bobBrowser.open(game.gameID)
            let _: OKResponse = try await client.call(.delete, "/v1/games/\(game.gameID)/participants/\(bob.account.authorID)", token: ann.token)
            _ = try await bobBrowser.update { $0.readOnly }
            let removed = try await bobBrowser.refused(game.gameID, Self.letter(3, 0, "U"))
            #expect(removed.code == .removed && removed.reason.contains("removed"))

            // Finished: revealing the puzzle solves it; later commands are refused.
            let solved = try await browser.applied(game.gameID, Self.scoped("reveal", "puzzle"))
            #expect(solved.completion?.kind == .solved)
            #expect(solved.scoreboard?.first { $0.authorID == ann.account.authorID }?.revealsUsed == 2)
            #expect(try await browser.refused(game.gameID, Self.letter(3, 0, "U")).code == .gameComplete)
            await browser.probe.close()
            await bobBrowser.probe.close()
        }
    }

    @Test func theRemainingRefusals() async throws {
        let server = try TestServer { $0.rateLimitBurst = 12 }
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            // A puzzle published without its answers cannot be checked or revealed.
            let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("CrossmateFormatsTests/Fixtures/kotwords/puz/test-no-solution.puz")
            let unsolved: GameSummary = try await client.call(
                .post, "/v1/games", token: ann.token,
                json: CreateGameRequest(fileName: "no-solution.puz", fileBase64: try Data(contentsOf: fixture).base64EncodedString()))
            var browser = Browser(port: port, token: ann.token)
            browser.probe.send(.ping)
            _ = try await browser.open(game.gameID)
            let opened = try await browser.open(unsolved.gameID)
            #expect(!opened.layout.hasSolution)
            let square = try #require(opened.squares.first)
            #expect(try await browser.refused(unsolved.gameID, Self.scoped("check", "square", square.row, square.col)).code == .noSolution)
            #expect(try await browser.refused(game.gameID, BrowserCommand(kind: "undo")).code == .nothingToUndo)
            #expect(try await browser.refused(game.gameID, Self.scoped("check", "word", 0, 0)).code == .noWord)
            // Commands take the device's request tokens, as pushes do: past the burst, refused
            // with a reason (the browser keeps such a command and sends it again later).
            var limited: CommandRefusal?
            for col in 0..<40 where limited == nil {
                let answer = try await browser.run(game.gameID, Self.letter(1 + col % 4, col % 5, col.isMultiple(of: 2) ? "A" : "B"))
                if case let .refused(refusal) = answer, refusal.code == .rateLimited { limited = refusal }
            }
            #expect(limited?.reason.contains("retry") == true)
            await browser.probe.close()
        }
    }

    @Test func aCommandSentAgainAfterALostAnswerIsNotPerformedTwice() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var first = Browser(port: port, token: ann.token)
            first.probe.send(.ping)
            _ = try await first.open(game.gameID)
            _ = try await first.applied(game.gameID, Self.letter(1, 0, "G"))
            _ = try await first.applied(game.gameID, Self.letter(1, 1, "R"))
            #expect(try await first.applied(game.gameID, BrowserCommand(kind: "undo")).squares.map(\.letter) == [""])
            await first.probe.close()
            // The browser did not hear the undo answered (its socket dropped), so it sends the
            // same command, same id, on its next socket: answered, not performed again.
            var second = Browser(port: port, token: ann.token)
            second.nextID = 3
            second.typing = first.typing
            second.probe.send(.ping)
            _ = try await second.open(game.gameID)
            let again = try await second.applied(game.gameID, BrowserCommand(kind: "undo"))
            #expect(again.squares.isEmpty && again.canRedo)
            let grid = try await second.open(game.gameID)
            #expect(grid.squares.first { $0.row == 1 && $0.col == 0 }?.letter == "G")
            #expect(grid.squares.first { $0.row == 1 && $0.col == 1 }?.letter == "")
            await second.probe.close()
        }
    }

    @Test func aBrowsersReplicaRebuiltFromStoredMovesKeepsItsUndoAndRedo() async throws {
        let server = try TestServer { $0.browserReplicaGraceMillis = 0 }
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var first = Browser(port: port, token: ann.token)
            first.probe.send(.ping)
            _ = try await first.open(game.gameID)
            for (col, letter) in ["G", "R", "E"].enumerated() { _ = try await first.applied(game.gameID, Self.letter(1, col, letter)) }
            _ = try await first.applied(game.gameID, Self.letter(1, 0, "Q"))
            let undone = try await first.applied(game.gameID, BrowserCommand(kind: "undo"))
            #expect(undone.squares.first?.letter == "G" && undone.canUndo && undone.canRedo)
            await first.probe.close()
            try await eventually("the hosted replica is dropped") {
                String(buffer: try await client.send(.get, "/metrics").body).contains("crossmate_browser_replicas 0")
            }

            // A new socket rebuilds the replica from the store: the same undo and redo stacks.
            var second = Browser(port: port, token: ann.token)
            second.probe.send(.ping)
            let reopened = try await second.open(game.gameID)
            #expect(reopened.canUndo && reopened.canRedo)
            #expect(try await second.applied(game.gameID, BrowserCommand(kind: "redo")).squares.first?.letter == "Q")
            #expect(try await second.applied(game.gameID, BrowserCommand(kind: "undo")).squares.first?.letter == "G")
            #expect(try await second.applied(game.gameID, BrowserCommand(kind: "undo")).squares.map(\.letter) == [""])
            let last = try await second.applied(game.gameID, BrowserCommand(kind: "undo"))
            #expect(last.squares.first?.col == 1 && last.squares.first?.letter == "")
            await second.probe.close()
        }
    }

    /// With PostgreSQL, any instance hosts a browser's replica: two browsers on two instances
    /// see each other's commands, and a browser that reconnects to the other instance carries on
    /// with the same undo stack.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CROSSMATE_TEST_POSTGRES_URL"] != nil, "needs CROSSMATE_TEST_POSTGRES_URL"))
    func browsersOnTwoInstancesPlayTogether() async throws {
        let first = try TestServer(postgres: true)
        let second = try TestServer(postgres: true)
        try await first.application().test(.live) { one in
            try await second.application().test(.live) { two in
                let ann = try await one.account("Ann")
                let game = try await one.newGame(ann)
                let invite: InvitationResponse = try await one.call(
                    .post, "/v1/games/\(game.gameID)/invitations", token: ann.token, json: CreateInvitationRequest())
                let bob = try await two.account("Bob")
                let _: GameSummary = try await two.call(.post, "/v1/invitations/\(invite.token)/accept", token: bob.token)
                var annBrowser = Browser(port: try #require(one.port), token: ann.token)
                var bobBrowser = Browser(port: try #require(two.port), token: bob.token)
                annBrowser.probe.send(.ping)
                bobBrowser.probe.send(.ping)
                _ = try await annBrowser.open(game.gameID)
                _ = try await bobBrowser.open(game.gameID)
                _ = try await annBrowser.applied(game.gameID, Self.letter(1, 0, "G"))
                let heard = try await bobBrowser.update { $0.squares.contains { $0.row == 1 && $0.col == 0 && $0.letter == "G" } }
                #expect(heard.squares.first { $0.row == 1 }?.authorID == ann.account.authorID)
                _ = try await bobBrowser.applied(game.gameID, Self.letter(1, 1, "R"))
                _ = try await annBrowser.update { $0.squares.contains { $0.row == 1 && $0.col == 1 && $0.letter == "R" } }
                await annBrowser.probe.close()

                // Ann comes back through the other instance: her replica is rebuilt there.
                var annAgain = Browser(port: try #require(two.port), token: ann.token)
                annAgain.probe.send(.ping)
                let reopened = try await annAgain.open(game.gameID)
                #expect(reopened.canUndo)
                #expect(try await annAgain.applied(game.gameID, BrowserCommand(kind: "undo")).squares.first?.letter == "")
                await annAgain.probe.close()
                await bobBrowser.probe.close()
            }
        }
    }

    /// A move stored where this instance did not hear of it (another instance wrote it; here, a
    /// second connection to the SQLite file) is folded by the next command's catch-up: the page
    /// that typed and the device's other page both see it, though no relay or poke brings it.
    /// (Before, the catch-up kept it from the screens: the poke that came later found the
    /// replica through it already, and a friend's letter stayed missing until a reload.)
    @Test func aMoveTheInstanceDidNotHearOfReachesThePagesWithTheNextCommand() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            var typing = Browser(port: port, token: ann.token)
            var watching = Browser(port: port, token: ann.token)
            typing.probe.send(.ping)
            watching.probe.send(.ping)
            _ = try await typing.open(game.gameID)
            _ = try await watching.open(game.gameID)

            var bobDevice = TestDevice(bob, puzzle: greenLight, gameID: game.gameID)
            let moves = try bobDevice.replica.perform(.setLetter(at(1, 0), "G"), wallMillis: server.clock.now)
            let elsewhere = Store(database: try SQLiteDatabase(path: server.directory.appendingPathComponent("crossmate.sqlite").path))
            _ = try await elsewhere.appendMoves(gameID: game.gameID, authorID: bob.account.authorID, moves: moves.map(MoveRecord.init))

            let bobs = { (update: GameUpdate) in update.squares.contains { $0.row == 1 && $0.col == 0 && $0.letter == "G" } }
            // A page that never hears of it fails the test, not hangs it: the sockets close first.
            func closing<T>(_ body: () async throws -> T) async throws -> T {
                do { return try await body() } catch {
                    await typing.probe.close()
                    await watching.probe.close()
                    throw error
                }
            }
            typing.probe.send(.command(CommandRequest(gameID: game.gameID, id: 1, command: Self.letter(1, 1, "R"), typedAt: typing.typedAt(id: 1))))
            // The page that typed hears of Bob's letter, then has its answer; the other page
            // hears of both.
            _ = try await closing { try await typing.update(where: bobs) }
            let answer = try await closing { try await typing.probe.next(&typing.iterator) { if case .applied = $0 { true } else { false } } }
            guard case let .applied(applied) = answer else { throw Unexpected(answer: answer) }
            #expect(applied.squares.map(\.letter) == ["R"])
            let other = try await closing { try await watching.update(where: bobs) }
            #expect(other.squares.first { $0.col == 0 }?.authorID == bob.account.authorID)
            await typing.probe.close()
            await watching.probe.close()
        }
    }

    /// Two pages of one browser on one game (two tabs): what one page does shows on the other at
    /// once, its letters and its chat message, not only in the answer to the page that did it.
    @Test func aDevicesOtherPageSeesWhatOnePageDid() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var typing = Browser(port: port, token: ann.token)
            var watching = Browser(port: port, token: ann.token)
            typing.probe.send(.ping)
            watching.probe.send(.ping)
            _ = try await typing.open(game.gameID)
            _ = try await watching.open(game.gameID)

            let typed = try await typing.applied(game.gameID, Self.letter(1, 1, "R"))
            #expect(typed.squares.map(\.letter) == ["R"])
            let letter = try await watching.update { $0.squares.contains { $0.row == 1 && $0.col == 1 && $0.letter == "R" } }
            #expect(letter.squares.count == 1)

            let chat = BrowserCommand(kind: "chat", text: "from the other tab", messageID: "tab-1")
            let said = try await typing.applied(game.gameID, chat)
            #expect(said.messages?.map(\.text) == ["from the other tab"])
            let message = try await watching.update { $0.messages?.isEmpty == false }
            #expect(message.messages?.map(\.text) == ["from the other tab"])
            await typing.probe.close()
            await watching.probe.close()
        }
    }

    /// Ann, with a second device (her phone), in a new game of hers that Bob joined.
    static func annWithAPhoneAndBob(
        _ client: some TestClientProtocol
    ) async throws -> (ann: DeviceSession, annPhone: DeviceSession, bob: DeviceSession, game: GameSummary) {
        let ann = try await client.account("Ann")
        let annPhone = try await client.linkDevice(of: ann)
        let bob = try await client.account("Bob")
        let game = try await client.newGame(ann)
        try await client.join(bob, game.gameID, invitedBy: ann)
        return (ann, annPhone, bob, game)
    }

    /// A viewed game's read horizon is stored at most once a second, not per letter shown: the
    /// letters shown meanwhile are stored by one later pass, without the browser leaving. (The
    /// server's clock is held still here, so every store after the open is such a pass.)
    @Test func aViewedGamesHorizonIsStoredByOneLaterPass() async throws {
        // The phone asks until the horizon is there: more often than a device's rate limit allows.
        let server = try TestServer { $0.rateLimitBurst = 100_000 }
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let (ann, annPhone, bob, game) = try await Self.annWithAPhoneAndBob(client)
            var laptop = Browser(port: port, token: ann.token)
            laptop.probe.send(.ping)
            _ = try await laptop.open(game.gameID)
            var bobDevice = TestDevice(bob, puzzle: greenLight, gameID: game.gameID)
            var last: Int64 = 0
            for (col, letter) in ["G", "R"].enumerated() {
                let pushed = try await client.push(
                    bob, game.gameID, try bobDevice.replica.perform(.setLetter(at(1, col), letter), wallMillis: server.clock.now))
                last = try #require(pushed.results.last?.sequence)
                _ = try await laptop.update { $0.squares.contains { $0.col == col && $0.letter == letter } }
            }
            // The account's horizon (as its phone's presence call reads it) reaches what the
            // laptop showed while the laptop is still in the game.
            let shown = last
            try await eventually("the laptop's horizon is stored") {
                let read: PresenceResponse = try await client.call(
                    .post, "/v1/games/\(game.gameID)/presence", token: annPhone.token, json: PresenceRequest(action: "leave", readThrough: 0))
                return read.previousHorizon == shown
            }
        }
    }

    /// Presence per device: one device leaving never hides a friend's move from a sibling that
    /// is still in the game; the badge shows once every device has left and a friend moves;
    /// the catch-up is shown once, by the first device to come back.
    @Test func presenceIsPerDeviceAndTheCatchUpIsShownOnce() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let (ann, annPhone, bob, game) = try await Self.annWithAPhoneAndBob(client)
            var bobDevice = TestDevice(bob, puzzle: greenLight, gameID: game.gameID)
            func bobTypes(_ row: Int, _ col: Int, _ letter: String) async throws {
                _ = try await client.push(
                    bob, game.gameID, try bobDevice.replica.perform(.setLetter(at(row, col), letter), wallMillis: server.clock.now))
            }
            func unread(_ session: DeviceSession) async throws -> Bool {
                let list: GameListResponse = try await client.call(.get, "/v1/games", token: session.token)
                #expect(list.unreadCount == list.games.count { $0.unread == true || ($0.unreadMessages ?? 0) > 0 })
                return list.games.first { $0.gameID == game.gameID }?.unread == true
            }
            func viewers() async throws -> Int {
                let metrics = String(buffer: try await client.send(.get, "/metrics").body)
                let line = metrics.split(separator: "\n").first { $0.hasPrefix("crossmate_connected_sockets ") }
                return line.flatMap { Double($0.split(separator: " ")[1]) }.map { Int($0) } ?? -1
            }

            // Bob moves before Ann ever looked: unread.
            try await bobTypes(1, 0, "G")
            #expect(try await unread(ann))
            // Both of Ann's devices open the game (the laptop shows the catch-up: nothing before
            // its first visit is "since she left").
            var laptop = Browser(port: port, token: ann.token)
            var phone = Browser(port: port, token: annPhone.token)
            laptop.probe.send(.ping)
            phone.probe.send(.ping)
            _ = try await laptop.open(game.gameID)
            _ = try await phone.open(game.gameID)
            #expect(try await !unread(ann))
            // The laptop leaves; Bob moves while the phone is still in the game: no badge.
            await laptop.probe.close()
            try await eventually("the laptop's socket is gone") { try await viewers() == 1 }
            try await bobTypes(1, 1, "R")
            _ = try await phone.update { $0.squares.contains { $0.col == 1 && $0.letter == "R" } }
            #expect(try await !unread(ann))
            #expect(try await !unread(annPhone))
            // The phone leaves too; Bob's next move shows the badge on both devices' lists.
            await phone.probe.close()
            try await eventually("the phone's socket is gone") { try await viewers() == 0 }
            #expect(try await !unread(ann))  // everything so far was shown on the phone
            try await bobTypes(1, 2, "E")
            try await bobTypes(1, 3, "E")
            #expect(try await unread(ann))
            #expect(try await unread(annPhone))
            // The laptop comes back: the badge clears on both, and it shows the catch-up …
            var back = Browser(port: port, token: ann.token)
            back.probe.send(.ping)
            let reopened = try await back.open(game.gameID)
            #expect(reopened.catchUp?.sentence == "Bob filled 2 squares")
            #expect(reopened.catchUp?.squares == [[1, 2], [1, 3]])
            #expect(try await !unread(ann))
            #expect(try await !unread(annPhone))
            // … which the phone, opening next, does not show again.
            var phoneAgain = Browser(port: port, token: annPhone.token)
            phoneAgain.probe.send(.ping)
            #expect(try await phoneAgain.open(game.gameID).catchUp == nil)
            // A native device's late leave does not mark anything read.
            await back.probe.close()
            await phoneAgain.probe.close()
            try await eventually("both sockets are gone") { try await viewers() == 0 }
            try await bobTypes(2, 0, "L")
            let left: PresenceResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/presence", token: annPhone.token, json: PresenceRequest(action: "leave"))
            #expect(left.horizon == left.previousHorizon)
            #expect(try await unread(ann))
            // The phone's terminal client enters holding everything: the catch-up comes with it,
            // once.
            let list: GameListResponse = try await client.call(.get, "/v1/games", token: annPhone.token)
            let latest = try #require(list.games.first?.token.sequence)
            let entered: PresenceResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/presence", token: annPhone.token, json: PresenceRequest(action: "enter", readThrough: latest))
            #expect(entered.catchUp == "Bob filled 1 square")
            let again: PresenceResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/presence", token: ann.token, json: PresenceRequest(action: "enter", readThrough: latest))
            #expect(again.catchUp == nil)
            let (status, refusal) = try await client.failure(
                .post, "/v1/games/\(game.gameID)/presence", token: annPhone.token, json: PresenceRequest(action: "enter", readThrough: 1_000_000))
            #expect(status == .badRequest && refusal.message.contains("readThrough"))
        }
    }

    /// Who is here, live: a native device that views the game and a browser that has it open
    /// count; a closed socket stops counting at once.
    @Test func whoIsHereFollowsTheSockets() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            var browser = Browser(port: port, token: ann.token)
            browser.probe.send(.ping)
            let opened = try await browser.open(game.gameID)
            #expect(opened.players.first { $0.authorID == ann.account.authorID }?.here == 1)
            #expect(opened.players.first { $0.authorID == bob.account.authorID }?.here == 0)
            // Bob's terminal client views the game.
            let native = SocketProbe(port: port, token: bob.token)
            var nativeIterator = native.received.makeAsyncIterator()
            try await native.subscribe([game.gameID], iterator: &nativeIterator)
            native.send(.viewing(gameID: game.gameID, viewing: true))
            _ = try await browser.update { $0.players.first { $0.authorID == bob.account.authorID }?.here == 1 }
            // Bob's cursor is relayed live and stored; a browser opening the game sees it at once.
            native.send(.cursor(gameID: game.gameID, cursor: CursorPosition(row: 2, col: 3, direction: .down)))
            native.send(.ping)
            _ = try await native.next(&nativeIterator) { if case .pong = $0 { true } else { false } }
            var second = Browser(port: port, token: ann.token)
            second.probe.send(.ping)
            let seen = try await second.open(game.gameID)
            #expect(
                seen.cursors == [
                    PeerCursorView(deviceID: bob.deviceID, authorID: bob.account.authorID, cursor: CursorPosition(row: 2, col: 3, direction: .down))
                ])
            await second.probe.close()
            await native.close()
            _ = try await browser.update { $0.players.first { $0.authorID == bob.account.authorID }?.here == 0 }
            await browser.probe.close()
        }
    }
}

/// The finish is told once (`FinishSummary`, in CrossmateSync): a browser reads what the server
/// computed from every move, and a native device that joined from a snapshot computes the same
/// from the snapshot's tally and the moves after it.
@Suite struct FinishParityTests {
    @Test func aBrowserAndADeviceThatJoinedFromASnapshotTellTheSameFinish() async throws {
        let server = try TestServer(configure: { $0.snapshotInterval = 3 })
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let ben = try await client.account("Ben")
            let game = try await client.newGame(ann)
            // Ann types, checks and reveals over several minutes with a pause, before Ben comes.
            var annDevice = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            func play(_ command: Command, after millis: Int64) async throws {
                server.clock.advance(byMillis: millis)
                _ = try await client.push(ann, game.gameID, try annDevice.replica.perform(command, wallMillis: server.clock.now))
            }
            try await play(.setLetter(at(1, 0), "Q"), after: 1_000)
            try await play(.setLetter(at(1, 1), "R"), after: 20_000)
            try await play(.check(.word(at(1, 0), .across)), after: 5_000)
            try await play(.reveal(.square(at(2, 0))), after: 90_000)
            var browser = BrowserCommandTests.Browser(port: port, token: ann.token)
            _ = try await browser.open(game.gameID)
            _ = try await browser.applied(game.gameID, BrowserCommand(kind: "pause"))
            try await play(.setLetter(at(1, 2), "E"), after: 30_000)
            try await client.join(ben, game.gameID, invitedBy: ann)
            // Ben's device joins as a native client does: the snapshot, then the changes after it.
            let joined: SnapshotResponse = try await client.call(.get, "/v1/games/\(game.gameID)/snapshot", token: ben.token)
            let snapshot = try #require(joined.snapshot)
            #expect(snapshot.coveredMoveCount >= 3)
            var benDevice = TestDevice(ben, puzzle: greenLight, gameID: game.gameID)
            benDevice.replica = GameReplica(
                puzzle: greenLight, gameID: game.gameID, replicaID: ben.deviceID, authorID: ben.account.authorID, snapshot: snapshot, moves: [])
            server.clock.advance(byMillis: 2_000)
            _ = try await client.push(ben, game.gameID, try benDevice.replica.perform(.setLetter(at(3, 0), "U"), wallMillis: server.clock.now))
            try await play(.reveal(.puzzle), after: 4_000)
            let (after, _) = try await client.allChanges(ben, game.gameID, after: joined.token)
            let records = joined.records + after
            let moves = records.compactMap { change -> Move? in if case let .move(record) = change.record { try? record.move() } else { nil } }
            let pauses = records.compactMap { change -> SolvingTime.Stamp? in if case let .pause(pause) = change.record { pause.stamp } else { nil } }
            #expect(moves.count < annDevice.replica.journal.count, "Ben holds only the moves after the snapshot")
            // What the browser is shown.
            var again = BrowserCommandTests.Browser(port: port, token: ann.token)
            let shown = try await again.open(game.gameID)
            let completion = try #require(shown.state.completion).completion
            // What Ben's device tells, from the snapshot's tally and the moves after it.
            var final = snapshot.grid
            final.apply(moves.filter { !snapshot.covers($0) }, notAfter: completion.at)
            let tally = snapshot.tally(adding: moves)
            let seconds = SolvingTime.measure(moves: tally.stamps, pauses: pauses, end: completion.at.wallMillis, now: server.clock.now).seconds
            let told = FinishSummary(completion, finalGrid: final, tally: tally, seconds: seconds)
            #expect(shown.state.headline == told.headline && shown.state.scoreboard == told.scores && shown.state.finish == told.finish)
            #expect(shown.state.timer.seconds == told.seconds)
            #expect(told.headline.hasPrefix("Finished with help (") && told.headline.contains("squares checked"), "\(told.headline)")
            #expect(told.scores.first { $0.authorID == ann.account.authorID }?.checksUsed == 1)
        }
    }
}

/// Pausing from a native device (`POST /v1/games/ID/pauses`): stamped with the server's time,
/// told to the game's devices, and kept at most once per move the device made.
@Suite struct PauseRouteTests {
    /// On SQLite, and on PostgreSQL where the tests have one (a device's pauses are picked by
    /// their key's start, which must not depend on the database's collation).
    @Test(arguments: ProcessInfo.processInfo.environment["CROSSMATE_TEST_POSTGRES_URL"] == nil ? [false] : [false, true])
    func aPauseIsKeptOncePerMoveAndNotInAFinishedGame(postgres: Bool) async throws {
        let server = try TestServer(postgres: postgres)
        defer { server.removeFiles() }
        try await server.application().test(.router) { client in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var device = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            _ = try await client.push(ann, game.gameID, try device.replica.perform(.setLetter(at(1, 0), "G"), wallMillis: server.clock.now))
            server.clock.advance(byMillis: 5_000)
            let first: PauseResponse = try await client.call(.post, "/v1/games/\(game.gameID)/pauses", token: ann.token)
            #expect(first.pause.at == server.clock.now && first.pause.replicaID == ann.deviceID)
            // Pausing again without a move changes nothing: the same pause, none stored.
            server.clock.advance(byMillis: 5_000)
            let again: PauseResponse = try await client.call(.post, "/v1/games/\(game.gameID)/pauses", token: ann.token)
            #expect(again.pause == first.pause)
            func pauses() async throws -> [Pause] {
                try await client.allChanges(ann, game.gameID).0.compactMap { if case let .pause(pause) = $0.record { pause } else { nil } }
            }
            #expect(try await pauses() == [first.pause])
            // After a move, a new pause is kept.
            _ = try await client.push(ann, game.gameID, try device.replica.perform(.setLetter(at(1, 1), "R"), wallMillis: server.clock.now))
            server.clock.advance(byMillis: 1_000)
            let later: PauseResponse = try await client.call(.post, "/v1/games/\(game.gameID)/pauses", token: ann.token)
            let kept = try await pauses()
            #expect(later.pause != first.pause && kept.count == 2)
            // A stranger may not pause it; a finished game's clock has stopped.
            let stranger = try await client.account("Sam")
            let refused = try await client.failure(.post, "/v1/games/\(game.gameID)/pauses", token: stranger.token)
            #expect(refused.0.code == 403, "\(refused.0) \(refused.1.message)")
            let _: CompletionResponse = try await client.call(.post, "/v1/games/\(game.gameID)/resign", token: ann.token)
            let (status, body) = try await client.failure(.post, "/v1/games/\(game.gameID)/pauses", token: ann.token)
            #expect(status.code == 403 && body.message.contains("its clock has stopped"), "\(status) \(body.message)")
        }
    }
}
