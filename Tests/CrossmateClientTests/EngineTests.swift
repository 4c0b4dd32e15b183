import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import CrossmateTestSupport
import Foundation
import Synchronization
import Testing

/// The sync engine against the real `crossmate serve` on loopback: what one device types reaches
/// the others, offline typing converges, and neither a killed server nor a killed client loses
/// a letter.
@Suite(.startsProcesses, .serialized) struct EngineTests {
    /// Green Light: `#ALSO / GREEN / LEGAL / UNITY / EATS#`.
    static let solution = ["#ALSO", "GREEN", "LEGAL", "UNITY", "EATS#"]

    /// Two accounts in one game: Ann owns it, Bob joined by link.
    func twoPlayers(_ server: ServerProcess, _ directory: TemporaryDirectory) async throws -> (TestPlayer, TestPlayer, String) {
        let ann = try await TestPlayer.login("Ann", server: server.baseURL, in: directory)
        let bob = try await TestPlayer.login("Bob", server: server.baseURL, in: directory)
        let gameID = try await ann.engine.createGame(CreateGameRequest(bundled: "green-light"))
        let link = try await ann.engine.invite(gameID)
        #expect(link.hasPrefix(server.baseURL + "/join/"))
        #expect(try await bob.engine.join(link) == gameID)
        return (ann, bob, gameID)
    }

    @Test func lettersReachTheOtherPlayerLive() async throws {
        try await withLiveServer { server, directory in
            let (ann, bob, gameID) = try await twoPlayers(server, directory)
            await ann.engine.start()
            await bob.engine.start()
            let bobEvents = await bob.engine.events()
            let annSession = try await ann.engine.open(gameID)
            let bobSession = try await bob.engine.open(gameID)
            try await type("GREEN", at: GridPosition(row: 1, col: 0), in: annSession)
            // Bob hears of the squares (whose they are) and his grid holds them.
            var heard: Set<GridPosition> = []
            for await event in bobEvents {
                if case let .gridChanged(game, squares) = event, game == gameID {
                    for square in squares where square.authorID == ann.identity.authorID { heard.insert(square.position) }
                }
                if heard.count == 5 { break }
            }
            #expect(try await bobSession.view().grid.letters[5..<10] == ["G", "R", "E", "E", "N"])
            // Cursors go live too.
            await annSession.moveCursor(to: GridPosition(row: 2, col: 3), direction: .down)
            try await eventually("Bob sees Ann's cursor") {
                await bob.engine.peerCursors(gameID).contains { $0.authorID == ann.identity.authorID && $0.position == GridPosition(row: 2, col: 3) }
            }
            try await eventually("everything sent") { await ann.engine.status.unsent == 0 }
            #expect(try await bobSession.view().players.map(\.displayName).sorted() == ["Ann", "Bob"])
            await ann.engine.stop()
            await bob.engine.stop()
        }
    }

    /// A player who opens a game sees where the others are at once, where they last were —
    /// not where a throttled store last caught them — before anyone moves.
    @Test func aPlayerWhoOpensTheGameSeesTheOthersLatestCursors() async throws {
        try await withLiveServer { server, directory in
            let (ann, bob, gameID) = try await twoPlayers(server, directory)
            await ann.engine.start()
            await bob.engine.start()
            let annSession = try await ann.engine.open(gameID)
            _ = try await bob.engine.open(gameID)
            // Each shows the game on screen, as `crossmate play` does.
            await ann.engine.viewing(gameID, true)
            await bob.engine.viewing(gameID, true)
            // Two moves inside the server's store interval, each seen live: the second counts.
            for square in [GridPosition(row: 2, col: 3), GridPosition(row: 4, col: 1)] {
                await annSession.moveCursor(to: square, direction: .across)
                try await eventually("Bob sees Ann at \(square)") {
                    await bob.engine.peerCursors(gameID).contains { $0.authorID == ann.identity.authorID && $0.position == square }
                }
            }
            let cy = try await TestPlayer.login("Cy", server: server.baseURL, in: directory)
            #expect(try await cy.engine.join(try await ann.engine.invite(gameID)) == gameID)
            await cy.engine.start()
            _ = try await cy.engine.open(gameID)
            await cy.engine.viewing(gameID, true)
            try await eventually("Cy sees Ann's latest cursor on opening") {
                await cy.engine.peerCursors(gameID).contains { $0.authorID == ann.identity.authorID && $0.position == GridPosition(row: 4, col: 1) }
            }
            for player in [ann, bob, cy] { await player.engine.stop() }
        }
    }

    @Test func typingOfflineConvergesOnReconnect() async throws {
        let directory = try TemporaryDirectory("crossmate-engine")
        defer { directory.remove() }
        var server = try ServerProcess(dataDirectory: directory.path + "/server")
        let (ann, bob, gameID) = try await twoPlayers(server, directory)
        await ann.engine.start()
        await bob.engine.start()
        let annSession = try await ann.engine.open(gameID)
        let bobSession = try await bob.engine.open(gameID)
        // The server goes away; both keep typing (different squares, and one the same).
        server.kill()
        try await eventually("Ann sees she is offline") {
            if case .offline = await ann.engine.status.connection { true } else { false }
        }
        try await type("ALSO", at: GridPosition(row: 0, col: 1), in: annSession)
        try await type("EATS", at: GridPosition(row: 4, col: 0), in: bobSession)
        try await bobSession.type("X", at: GridPosition(row: 0, col: 1))
        #expect(await ann.engine.status.unsent == 4)
        #expect(await bob.engine.status.unsent == 5)
        // Back on the same port: both reconnect, push and fetch, and agree.
        server = try ServerProcess(dataDirectory: directory.path + "/server", port: server.port)
        defer { server.kill() }
        try await eventually("both sent everything", within: .seconds(60)) {
            let annUnsent = await ann.engine.status.unsent
            let bobUnsent = await bob.engine.status.unsent
            return annUnsent == 0 && bobUnsent == 0
        }
        try await eventually("both grids agree", within: .seconds(30)) {
            let mine = try await ann.letters(gameID)
            return try await mine == bob.letters(gameID) && mine[20...23] == ["E", "A", "T", "S"]
        }
        let letters = try await ann.letters(gameID)
        // Both wrote (0,1) within a millisecond or so: the merge's order decides, the same on both.
        // Every other letter typed offline is there.
        #expect(["A", "X"].contains(letters[1]) && letters[2...4] == ["L", "S", "O"])
        await ann.engine.stop()
        await bob.engine.stop()
    }

    @Test func aClientKilledAndRestartedResendsWhatItStored() async throws {
        try await withLiveServer { server, directory in
            let (ann, bob, gameID) = try await twoPlayers(server, directory)
            // Ann types without a connection to the server (never started): her moves are only
            // in her store. A new engine on the same store, as after `kill -9`, sends them.
            let session = try await ann.engine.open(gameID)
            try await type("LEGAL", at: GridPosition(row: 2, col: 0), in: session)
            #expect(try ann.store.unsentCount() == 5)
            let again = try ann.restarted()
            #expect(try await again.engine.view(gameID).grid.letters[10..<15] == ["L", "E", "G", "A", "L"])
            await again.engine.start()
            try await eventually("the restarted device sent its moves") { try again.store.unsentCount() == 0 }
            _ = try await bob.engine.fetch(gameID)
            #expect(try await bob.letters(gameID)[10..<15] == ["L", "E", "G", "A", "L"])
            // Its next move carries on its seq: the journal was rebuilt from the store.
            let next = try await again.engine.open(gameID).type("U", at: GridPosition(row: 3, col: 0))
            #expect(next.map(\.seq) == [6])
            await again.engine.stop()
        }
    }

    /// Chat through the engine: messages written offline among letters (a seeded schedule, both
    /// players, the server down) are kept, survive a restart, are sent once, and every device
    /// shows the same conversation; one device showing it clears the account's unread count.
    @Test func chatWrittenOfflineAmongMovesReachesEveryoneInOneOrder() async throws {
        let directory = try TemporaryDirectory("crossmate-engine")
        defer { directory.remove() }
        var server = try ServerProcess(dataDirectory: directory.path + "/server")
        let (ann, bob, gameID) = try await twoPlayers(server, directory)
        let bobPhone = try await TestPlayer.link(to: bob, in: directory)
        _ = try await bobPhone.engine.syncOnce()
        // Bob has looked at the game on his phone: what comes later is news to him.
        _ = await bobPhone.engine.presence(gameID, entering: true)
        _ = await bobPhone.engine.presence(gameID, entering: false)
        await bob.engine.start()
        let annSession = try await ann.engine.open(gameID)
        let bobSession = try await bob.engine.open(gameID)
        server.kill()
        try await eventually("Bob sees he is offline") {
            if case .offline = await bob.engine.status.connection { true } else { false }
        }
        // Ann's engine was never started: she is offline too. Each writes letters and messages
        // in a seeded order.
        var random = SeededRandomNumberGenerator(seed: 24)
        var written: [String] = []
        let squares = (0..<5).flatMap { row in (0..<5).map { GridPosition(row: row, col: $0) } }.filter {
            $0 != GridPosition(row: 0, col: 0) && $0 != GridPosition(row: 4, col: 4)
        }
        for step in 0..<30 {
            let (player, session) = random.next() % 2 == 0 ? (ann, annSession) : (bob, bobSession)
            if random.next() % 3 == 0 {
                let text = "\(player.identity.displayName) says \(step)"
                try await player.engine.send(message: text, in: gameID)
                written.append(text)
            } else {
                let square = squares[Int(random.next() % UInt64(squares.count))]
                try await session.type(String(UnicodeScalar(UInt8(65 + step % 26))), at: square)
            }
        }
        #expect(written.count >= 5)
        #expect(try ann.store.unsentMessages().count + bob.store.unsentMessages().count == written.count)
        // Ann's device is killed and started again; the server comes back on the same port.
        let annAgain = try ann.restarted()
        server = try ServerProcess(dataDirectory: directory.path + "/server", port: server.port)
        defer { server.kill() }
        await annAgain.engine.start()
        try await eventually("both sent everything", within: .seconds(60)) {
            try annAgain.store.unsentMessages().isEmpty && bob.store.unsentMessages().isEmpty && annAgain.store.unsentCount() == 0
                && bob.store.unsentCount() == 0
        }
        _ = try await annAgain.engine.syncOnce()
        _ = try await bob.engine.syncOnce()
        _ = try await bobPhone.engine.syncOnce()
        let onAnn = await annAgain.engine.conversation(gameID)
        let onBob = await bob.engine.conversation(gameID)
        let onPhone = await bobPhone.engine.conversation(gameID)
        #expect(onAnn.map(\.message) == onBob.map(\.message) && onBob.map(\.message) == onPhone.map(\.message))
        #expect(Set(onAnn.map(\.message.text)) == Set(written) && onAnn.count == written.count)
        #expect(onAnn.allSatisfy { $0.sent && $0.refusal == nil })
        #expect(try await annAgain.letters(gameID) == bob.letters(gameID))
        // Bob reacts on his phone, then takes it back on his laptop: every device ends the same.
        let first = try #require(onPhone.first)
        try await bobPhone.engine.react(to: first.message.key, with: "👍", in: gameID)
        _ = try await bobPhone.engine.syncOnce()
        _ = try await bob.engine.syncOnce()
        #expect(await bob.engine.conversation(gameID).first?.reactions == [Chat.Tally(emoji: "👍", authors: [bob.identity.authorID])])
        try await bob.engine.react(to: first.message.key, with: "👍", on: false, in: gameID)
        _ = try await bob.engine.syncOnce()
        _ = try await bobPhone.engine.syncOnce()
        _ = try await annAgain.engine.syncOnce()
        #expect(await bobPhone.engine.conversation(gameID).first?.reactions == [])
        #expect(await annAgain.engine.conversation(gameID).first?.reactions == [])
        // Ann flags 6 Across (LEGAL, not all filled); Bob's devices show it, in her name.
        try await annAgain.engine.flag(GridPosition(row: 2, col: 0), .across, on: true, in: gameID)
        _ = try await annAgain.engine.syncOnce()
        _ = try await bob.engine.syncOnce()
        let flagged = try await bob.engine.view(gameID).flags
        #expect(flagged.map(\.number) == [6] && flagged.first?.authorID == annAgain.identity.authorID)
        // A reaction the server refuses for good (its message does not exist) leaves the outbox;
        // the game stays writable.
        try await annAgain.engine.react(to: "dev-nobody:gone", with: "👍", in: gameID)
        _ = try? await annAgain.engine.syncOnce()
        #expect(try annAgain.store.unsentReactions().isEmpty)
        #expect(try annAgain.store.game(gameID)?.readOnly == false)
        // Bob's laptop lists Ann's messages as unread until his phone shows the game.
        let fromAnn = written.count { $0.hasPrefix("Ann") }
        await bob.engine.stop()
        _ = try await bob.engine.syncOnce()
        #expect(await bob.engine.unreadMessages[gameID] == fromAnn)
        let entered = await bobPhone.engine.presence(gameID, entering: true)
        #expect(entered?.catchUp?.hasPrefix("Ann ") == true && entered?.catchUp?.contains("wrote \(fromAnn) message") == true)
        _ = await bobPhone.engine.presence(gameID, entering: false)
        _ = try await bob.engine.syncOnce()
        #expect(await bob.engine.unreadMessages[gameID] == 0)
        await annAgain.engine.stop()
    }

    @Test func aClockTenMinutesFastStillWritesAcceptedMoves() async throws {
        try await withLiveServer { server, directory in
            let (ann, _, gameID) = try await twoPlayers(server, directory)
            let fast: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) + 600_000 }
            // Moves made before the device has heard the server's time are stamped 10 minutes
            // ahead; the server refuses them as skewed, the engine corrects and resends.
            try ann.store.setServerOffsetMillis(0)
            let skewed = try ann.restarted(localNow: fast)
            try await type("UNITY", at: GridPosition(row: 3, col: 0), in: skewed.engine.open(gameID))
            await skewed.engine.start()
            try await eventually("the skewed device's moves are accepted") { try skewed.store.unsentCount() == 0 }
            let stored = try skewed.store.moves(gameID: gameID).filter { $0.replicaID == skewed.identity.deviceID }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(stored.count == 5 && stored.allSatisfy { $0.timestamp.wallMillis < now + 60_000 })
            // Later moves use the learned offset from the start.
            let later = try await skewed.engine.open(gameID).type("E", at: GridPosition(row: 4, col: 0))
            #expect(later.allSatisfy { $0.timestamp.wallMillis < Int64(Date().timeIntervalSince1970 * 1000) + 60_000 })
            await skewed.engine.stop()
        }
    }

    @Test func aRemovedPlayerTurnsReadOnlyAndKeepsTheGrid() async throws {
        try await withLiveServer { server, directory in
            let (ann, bob, gameID) = try await twoPlayers(server, directory)
            await bob.engine.start()
            let bobSession = try await bob.engine.open(gameID)
            try await type("GREEN", at: GridPosition(row: 1, col: 0), in: bobSession)
            try await eventually("Bob's letters are sent") { await bob.engine.status.unsent == 0 }
            let events = await bob.engine.events()
            try await ann.engine.remove(bob.identity.authorID, from: gameID)
            for await event in events {
                if case let .becameReadOnly(game, _) = event, game == gameID { break }
            }
            let view = try await bobSession.view()
            #expect(view.readOnly && view.grid.letters[5..<10] == ["G", "R", "E", "E", "N"])
            await #expect(throws: SessionRefusal.readOnly(gameID)) { try await bobSession.type("A", at: GridPosition(row: 0, col: 1)) }
            await bob.engine.stop()
        }
    }

    @Test func aThrottledClientWaitsThenSendsOneBatch() async throws {
        // A small request budget: a burst of 8, then one request every 2 s.
        let environment = ["CROSSMATE_RATE_LIMIT_BURST": "8", "CROSSMATE_RATE_LIMIT_PER_SECOND": "0.5"]
        try await withLiveServer(environment: environment) { server, directory in
            let ann = try await TestPlayer.login("Ann", server: server.baseURL, in: directory)
            let gameID = try await ann.engine.createGame(CreateGameRequest(bundled: "green-light"))
            let session = try await ann.engine.open(gameID)
            for position in try await session.view().puzzle.letterPositions { try await session.type("A", at: position) }
            #expect(try ann.store.unsentCount() == 23)
            // Another client of the same device spends the budget.
            let api = ServerAPI(baseURL: server.baseURL, token: ann.identity.token)
            while true {
                do { _ = try await api.me() } catch let error as ServerFailure {
                    #expect(error.errorBody?.error == .rateLimited)
                    break
                }
            }
            let events = await ann.engine.events()
            let started = ContinuousClock.now
            await ann.engine.start()
            var throttled = false
            var unsentSeen: [Int] = []
            for await event in events {
                guard case let .status(status) = event else { continue }
                if case .throttled = status.connection { throttled = true }
                if unsentSeen.last != status.unsent { unsentSeen.append(status.unsent) }
                if status.unsent == 0 { break }
            }
            // It waited for the server's Retry-After, then everything went in one batch.
            #expect(throttled && ContinuousClock.now - started >= .seconds(1))
            #expect(unsentSeen == [23, 0])
            await ann.engine.stop()
        }
    }

    /// Moves both players' cursors until each engine shows the other's: then each socket takes
    /// relays (asked before subscribing, and one socket's messages are taken in order), and each
    /// engine has done the fetches it makes on connecting (its socket's events are taken one at a
    /// time, connecting first). Moved again until seen: a socket may subscribe after the other's
    /// first move.
    func seeEachOther(
        _ ann: TestPlayer, _ annSession: GameSession, _ bob: TestPlayer, _ bobSession: GameSession, in gameID: String
    )
        async throws
    {
        var row = 2
        try await eventually("Ann and Bob see each other's cursors") {
            row = 5 - row
            await bobSession.moveCursor(to: GridPosition(row: row, col: 3), direction: .down)
            await annSession.moveCursor(to: GridPosition(row: row, col: 4), direction: .down)
            let annSeesBob = await ann.engine.peerCursors(gameID).contains { $0.authorID == bob.identity.authorID }
            let bobSeesAnn = await bob.engine.peerCursors(gameID).contains { $0.authorID == ann.identity.authorID }
            return annSeesBob && bobSeesAnn
        }
    }

    /// Ann and Bob in a game on a server that holds its second group commit of moves before
    /// COMMIT (for crash tests only): Ann's G is stored, her R is ordered and held, and Bob's
    /// grid shows both — R a commit's fsync before it is on disk.
    struct RelayedBeforeCommit {
        var server: ServerProcess
        var ann: TestPlayer
        var bob: TestPlayer
        var gameID: String
        var bobSession: GameSession
        let g = GridPosition(row: 1, col: 0)
        let r = GridPosition(row: 1, col: 1)
    }

    func relayedBeforeCommit(_ directory: TemporaryDirectory) async throws -> RelayedBeforeCommit {
        let server = try ServerProcess(dataDirectory: directory.path + "/server", environment: ["CROSSMATE_TEST_HOLD_GROUP_COMMIT": "2"])
        let (ann, bob, gameID) = try await twoPlayers(server, directory)
        await ann.engine.start()
        await bob.engine.start()
        let annSession = try await ann.engine.open(gameID)
        let held = RelayedBeforeCommit(server: server, ann: ann, bob: bob, gameID: gameID, bobSession: try await bob.engine.open(gameID))
        try await annSession.type("G", at: held.g)
        try await eventually("Ann's G is stored") { try ann.store.unsentCount(gameID: gameID) == 0 }
        try await eventually("Bob sees G") { try await held.bobSession.view().grid.letter(at: held.g) == "G" }
        try await annSession.type("R", at: held.r)
        try await eventually("Bob sees R before it is on disk") { try await held.bobSession.view().grid.letter(at: held.r) == "R" }
        return held
    }

    /// A move reaches the other player when it is ordered, and a crash before its commit loses
    /// nothing: while Ann's push is unanswered Bob's store does not take R; the server is killed
    /// there; after the restart Ann's outbox sends R again, and Bob's store holds both letters
    /// once each (read back by a restarted engine).
    @Test func aLetterRelayedBeforeItsCommitSurvivesAKillThere() async throws {
        let directory = try TemporaryDirectory("crossmate-engine")
        defer { directory.remove() }
        let held = try await relayedBeforeCommit(directory)
        let (ann, bob, gameID) = (held.ann, held.bob, held.gameID)
        #expect(try ann.store.unsentCount(gameID: gameID) == 1)
        #expect(try !bob.store.moves(gameID: gameID).contains { $0.letter == "R" })

        held.server.kill()
        let server = try ServerProcess(dataDirectory: directory.path + "/server", port: held.server.port)
        defer { server.kill() }
        try await eventually("Ann's R is sent again and stored", within: .seconds(60)) { try ann.store.unsentCount(gameID: gameID) == 0 }
        let annID = ann.identity.authorID
        try await eventually("Bob's store holds G and R", within: .seconds(60)) {
            let fromAnn: [String] = try bob.store.moves(gameID: gameID).filter { $0.authorID == annID }.map(\.letter)
            return fromAnn.sorted() == ["G", "R"]
        }
        await ann.engine.stop()
        await bob.engine.stop()
        let reopened = try bob.restarted()
        #expect(try await reopened.letters(gameID)[5..<7] == ["G", "R"])
        #expect(try await held.bobSession.view().grid.letters[5..<7] == ["G", "R"])
    }

    /// A relayed move whose commit never happened, and whose sender is gone too (her device
    /// stopped before the server came back), is not left on the other screen: Bob's engine
    /// reconnects, forgets what it held uncommitted and reads the game again.
    @Test func aRelayedMoveNeverStoredLeavesTheOtherScreen() async throws {
        let directory = try TemporaryDirectory("crossmate-engine")
        defer { directory.remove() }
        let held = try await relayedBeforeCommit(directory)
        await held.ann.engine.stop()
        held.server.kill()
        let server = try ServerProcess(dataDirectory: directory.path + "/server", port: held.server.port)
        defer { server.kill() }
        try await eventually("R leaves Bob's screen", within: .seconds(60)) { try await held.bobSession.view().grid.letter(at: held.r) == "" }
        #expect(try await held.bobSession.view().grid.letter(at: held.g) == "G")
        #expect(try !held.bob.store.moves(gameID: held.gameID).contains { $0.letter == "R" })
        await held.bob.engine.stop()
    }

    /// A relayed move that was stored stays on the other screen through a reconnect: Bob's
    /// token has not reached Ann's G (the server stands for one that died before telling him it
    /// is on disk: `CROSSMATE_TEST_NO_COMMIT_NOTICES`), the server restarts,
    /// and while his engine reconnects and fetches his grid never changes at G's square.
    @Test func aStoredRelayDoesNotBlinkOffOnReconnect() async throws {
        let directory = try TemporaryDirectory("crossmate-engine")
        defer { directory.remove() }
        let first = try ServerProcess(dataDirectory: directory.path + "/server", environment: ["CROSSMATE_TEST_NO_COMMIT_NOTICES": "1"])
        let (ann, bob, gameID) = try await twoPlayers(first, directory)
        await ann.engine.start()
        await bob.engine.start()
        let annSession = try await ann.engine.open(gameID)
        let bobSession = try await bob.engine.open(gameID)
        let g = GridPosition(row: 1, col: 0)
        // Bob's socket takes relays, and his engine's fetches on connecting are done: a fetch
        // still under way when G is committed would store G, and there would be no blink to test.
        try await seeEachOther(ann, annSession, bob, bobSession, in: gameID)
        try await annSession.type("G", at: g)
        try await eventually("Ann's G is stored") { try ann.store.unsentCount(gameID: gameID) == 0 }
        try await eventually("Bob sees G") { try await bobSession.view().grid.letter(at: g) == "G" }
        #expect(try !bob.store.moves(gameID: gameID).contains { $0.letter == "G" })
        let changedAtG = Mutex(0)
        let events = await bob.engine.events()
        let watching = Task {
            for await event in events {
                if case let .gridChanged(game, squares) = event, game == gameID, squares.contains(where: { $0.position == g }) {
                    changedAtG.withLock { $0 += 1 }
                }
            }
        }
        first.kill()
        let server = try ServerProcess(dataDirectory: directory.path + "/server", port: first.port)
        defer { server.kill() }
        try await eventually("Bob's store holds G after reconnecting", within: .seconds(60)) {
            try bob.store.moves(gameID: gameID).contains { $0.letter == "G" }
        }
        await ann.engine.stop()
        await bob.engine.stop()
        watching.cancel()
        #expect(changedAtG.withLock { $0 } == 0)
        #expect(try await bobSession.view().grid.letter(at: g) == "G")
    }

    /// A device that takes relays stores the last letters it was relayed once they are
    /// committed, though nothing is typed after them: the server tells it of the commit.
    @Test func theLastRelayedLettersAreStoredWhenTheTypingStops() async throws {
        try await withLiveServer { server, directory in
            let (ann, bob, gameID) = try await twoPlayers(server, directory)
            await ann.engine.start()
            await bob.engine.start()
            let annSession = try await ann.engine.open(gameID)
            let bobSession = try await bob.engine.open(gameID)
            try await seeEachOther(ann, annSession, bob, bobSession, in: gameID)
            try await type("UNI", at: GridPosition(row: 3, col: 0), in: annSession)
            try await eventually("Ann's letters are stored") { try ann.store.unsentCount(gameID: gameID) == 0 }
            try await eventually("Bob's store holds all three, as his screen shows them") {
                let stored = try bob.store.moves(gameID: gameID).filter { $0.authorID == ann.identity.authorID }.map(\.letter)
                return stored.sorted() == ["I", "N", "U"]
            }
            #expect(try await bobSession.view().grid.letters[15..<18] == ["U", "N", "I"])
            await ann.engine.stop()
            await bob.engine.stop()
        }
    }

    /// A device that types is told of commits by its own pushes' answers: with no commit
    /// notices at all, the letters it was relayed before its push are stored once it is answered.
    @Test func aPushAnswerStoresTheLettersRelayedBeforeIt() async throws {
        try await withLiveServer(environment: ["CROSSMATE_TEST_NO_COMMIT_NOTICES": "1"]) { server, directory in
            let (ann, bob, gameID) = try await twoPlayers(server, directory)
            await ann.engine.start()
            await bob.engine.start()
            let annSession = try await ann.engine.open(gameID)
            let bobSession = try await bob.engine.open(gameID)
            try await seeEachOther(ann, annSession, bob, bobSession, in: gameID)
            try await type("UNI", at: GridPosition(row: 3, col: 0), in: annSession)
            try await eventually("Bob sees Ann's letters") { try await bobSession.view().grid.letters[15..<18] == ["U", "N", "I"] }
            try await eventually("Ann's letters are stored on the server") { try ann.store.unsentCount(gameID: gameID) == 0 }
            try await bobSession.type("X", at: GridPosition(row: 1, col: 0))
            try await eventually("Bob's store holds Ann's three letters after his push is answered") {
                let stored = try bob.store.moves(gameID: gameID).filter { $0.authorID == ann.identity.authorID }.map(\.letter)
                return stored.sorted() == ["I", "N", "U"]
            }
            await ann.engine.stop()
            await bob.engine.stop()
        }
    }
}

/// Whole games: three devices to completion, and a late joiner loading a snapshot.
@Suite(.startsProcesses, .serialized) struct EngineGameTests {
    @Test func threeDevicesSolveTogetherAndAgreeOnEverything() async throws {
        try await withLiveServer { server, directory in
            let phone = try await TestPlayer.login("Ann", server: server.baseURL, in: directory)
            let bob = try await TestPlayer.login("Bob", server: server.baseURL, in: directory)
            let gameID = try await phone.engine.createGame(CreateGameRequest(bundled: "green-light"))
            _ = try await bob.engine.join(try await phone.engine.invite(gameID))
            var laptop = try await TestPlayer.link(to: phone, in: directory)
            _ = try await laptop.engine.syncOnce()
            for player in [phone, bob, laptop] { await player.engine.start() }
            let annSession = try await phone.engine.open(gameID)
            let bobSession = try await bob.engine.open(gameID)

            // Ann writes GREEN; Bob overwrites her G, then undoes: her G comes back, hers.
            try await type("GREEN", at: GridPosition(row: 1, col: 0), in: annSession)
            try await eventually("Bob has Ann's row") { try await bob.letters(gameID)[5..<10] == ["G", "R", "E", "E", "N"] }
            try await bobSession.type("X", at: GridPosition(row: 1, col: 0))
            try await bobSession.undo()
            let square = try await bobSession.view().grid.state(at: GridPosition(row: 1, col: 0))
            #expect(square.letter == "G" && square.cellAuthorID == phone.identity.authorID)
            try await bobSession.redo()
            try await bobSession.undo()
            try await type("LEGAL", at: GridPosition(row: 2, col: 0), in: bobSession)

            // The laptop goes offline, types a row, and comes back as a new process would.
            await laptop.engine.stop()
            try await type("UNITY", at: GridPosition(row: 3, col: 0), in: laptop.engine.open(gameID))
            try await type("ALSO", at: GridPosition(row: 0, col: 1), in: annSession)
            laptop = try laptop.restarted()
            await laptop.engine.start()
            try await type("EATS", at: GridPosition(row: 4, col: 0), in: annSession)

            // Every device ends with the authority's completion, the same grid and scoreboard.
            let players = [phone, bob, laptop]
            // A device that filled the last square holds its own proposal until the authority's
            // record arrives; every device then adopts the authority's.
            try await eventually("all three hold the authority's completion", within: .seconds(60)) {
                var completions: Set<Completion?> = []
                for player in players { completions.insert(try await player.engine.view(gameID).completion) }
                return completions.count == 1 && completions.first! != nil
            }
            let views = try await [phone.engine.view(gameID), bob.engine.view(gameID), laptop.engine.view(gameID)]
            #expect(Set(views.map(\.completion)).count == 1 && views[0].completion?.kind == .solved)
            #expect(Set(views.map(\.grid)).count == 1)
            #expect(views[0].grid.letters.joined() == "ALSOGREENLEGALUNITYEATS")
            // Replay is ready on every device once every device has sealed.
            try await eventually("every device sealed and the replay is ready", within: .seconds(60)) {
                for player in players {
                    _ = try? await player.engine.fetch(gameID)
                    guard case .ready = try await player.engine.replay(gameID) else { return false }
                }
                return true
            }
            var boards: [[PlayerScore]] = []
            for player in players { boards.append(try #require(try await player.engine.summary(gameID)).scores) }
            #expect(boards[0] == boards[1] && boards[1] == boards[2])
            #expect(boards[0].first { $0.authorID == bob.identity.authorID }?.lettersAuthored == 5)
            if case let .ready(timeline) = try await bob.engine.replay(gameID) {
                #expect(timeline.state(through: timeline.count).letters == views[0].grid.letters)
            }
            for player in players { await player.engine.stop() }
        }
    }

    @Test func aServerKilledMidPushLosesNothing() async throws {
        let directory = try TemporaryDirectory("crossmate-engine")
        defer { directory.remove() }
        var server = try ServerProcess(dataDirectory: directory.path + "/server")
        let ann = try await TestPlayer.login("Ann", server: server.baseURL, in: directory)
        let gameID = try await ann.engine.createGame(CreateGameRequest(bundled: "daybreak"))
        let session = try await ann.engine.open(gameID)
        let squares = try await session.view().puzzle.letterPositions
        await ann.engine.start()
        // Typing while pushes are in flight; the server dies once some are acknowledged.
        for (index, square) in squares.enumerated() {
            try await session.type(index % 2 == 0 ? "A" : "B", at: square)
            if index == 30 {
                try await eventually("some moves acknowledged") { try ann.store.unsentCount() < 31 }
                server.kill()
            }
        }
        server = try ServerProcess(dataDirectory: directory.path + "/server", port: server.port)
        defer { server.kill() }
        try await eventually("everything sent after the restart", within: .seconds(60)) { try ann.store.unsentCount() == 0 }
        // A device that never saw the game loads it from the server: every letter is there.
        let bob = try await TestPlayer.login("Bob", server: server.baseURL, in: directory)
        _ = try await bob.engine.join(try await ann.engine.invite(gameID))
        #expect(try await bob.letters(gameID) == ann.letters(gameID))
        #expect(try await bob.engine.view(gameID).progress.filled == squares.count)
        await ann.engine.stop()
    }

    @Test func aGameJoinedAfterAThousandMovesLoadsBySnapshotPlusTail() async throws {
        try await withLiveServer { server, directory in
            let ann = try await TestPlayer.login("Ann", server: server.baseURL, in: directory)
            let gameID = try await ann.engine.createGame(CreateGameRequest(bundled: "daybreak"))
            let session = try await ann.engine.open(gameID)
            let squares = try await session.view().puzzle.letterPositions
            for index in 0..<1_000 {
                try await session.type(index % 2 == 0 ? "A" : "B", at: squares[index % squares.count])
            }
            _ = try await ann.engine.syncOnce()
            #expect(try ann.store.unsentCount() == 0)
            let bob = try await TestPlayer.login("Bob", server: server.baseURL, in: directory)
            _ = try await bob.engine.join(try await ann.engine.invite(gameID))
            // Bob holds a snapshot and only the moves after it, and the same grid.
            #expect(try bob.store.snapshot(gameID: gameID) != nil)
            #expect(try bob.store.moveCount(gameID: gameID) < 1_000)
            #expect(try await bob.letters(gameID) == ann.letters(gameID))
            #expect(try await bob.engine.view(gameID).players.count == 2)
        }
    }
}
