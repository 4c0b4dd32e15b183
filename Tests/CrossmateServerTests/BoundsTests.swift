import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import CrossmateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CrossmateServer

/// What an attack run from outside the team found in the server, each held here: answers that
/// quoted megabytes of input, link codes outliving their device, socket messages without a cost,
/// lists and parses that cost whatever a client chose, commands performed twice after a
/// restart, stamps and gestures the server refused as its own errors, and text that carried
/// terminal escapes.
@Suite struct BoundsTests {
    typealias Browser = BrowserCommandTests.Browser

    /// Sends a command with an id and time of its own choosing; the answer.
    static func send(
        _ browser: inout Browser, _ gameID: String, id: Int, typedAt: Int64?, _ command: BrowserCommand
    ) async throws
        -> ServerSocketMessage
    {
        browser.probe.send(.command(CommandRequest(gameID: gameID, id: id, command: command, typedAt: typedAt)))
        return try await browser.probe.next(&browser.iterator) { message in
            switch message {
            case let .applied(answer): answer.id == id
            case let .refused(refusal): refusal.id == id
            default: false
            }
        }
    }

    static func size(_ message: ServerSocketMessage) -> Int { SocketHub.encode(message).utf8.count }

    // MARK: Answers quote a few dozen bytes at most

    @Test func answersQuoteAtMostAFewDozenBytesOfWhatWasSent() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var browser = Browser(port: port, token: ann.token)
            _ = try await browser.open(game.gameID)

            // A command whose kind is a megabyte, and a letter that is one 200 KB grapheme.
            let hugeKind = String(repeating: "k", count: 1 << 20)
            let kind = try await browser.run(game.gameID, BrowserCommand(kind: .init(name: hugeKind)))
            #expect(Self.size(kind) < 1_024, "a 1 MB kind was answered with \(Self.size(kind)) bytes")
            let grapheme = "A" + String(repeating: "\u{301}", count: 100_000)
            let letter = try await browser.run(game.gameID, BrowserCommand(kind: "setLetter", row: 1, col: 0, letter: grapheme))
            #expect(Self.size(letter) < 1_024, "a 200 KB letter was answered with \(Self.size(letter)) bytes")
            guard case let .refused(refusal) = letter else { throw BrowserCommandTests.Unexpected(answer: letter) }
            #expect(refusal.code == .invalidLetter)

            // A game id of a megabyte, over the socket and in a URL; a file name of 10 KB.
            let hugeID = String(repeating: "g", count: 1 << 20)
            browser.probe.send(.open(gameID: hugeID))
            let opened = try await browser.probe.next(&browser.iterator) { if case .error = $0 { true } else { false } }
            #expect(Self.size(opened) < 1_024)
            let command = try await browser.run(hugeID, Self.letterCommand)
            #expect(Self.size(command) < 1_024)
            let longID = String(repeating: "g", count: 6_000)
            let (_, changes) = try await client.failure(.get, "/v1/games/\(longID)/changes", token: ann.token)
            #expect(changes.message.utf8.count < 200)
            let (_, upload) = try await client.failure(
                .post, "/v1/games", token: ann.token,
                json: CreateGameRequest(fileName: String(repeating: "f", count: 10_000) + ".puz", fileBase64: "AAAA"))
            #expect(upload.message.utf8.count < 400, "a 10 KB file name was answered with \(upload.message.utf8.count) bytes")
            await browser.probe.close()
        }
    }

    static let letterCommand = BrowserCommand(kind: "setLetter", row: 0, col: 0, letter: "A")

    /// A replica nobody views is freed on the server's timer, though no other socket closes.
    @Test func idleReplicasAreFreedOnATimer() async throws {
        let server = try TestServer {
            $0.browserReplicaGraceMillis = 60_000
            $0.housekeepingInterval = .milliseconds(20)
        }
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var browser = Browser(port: port, token: ann.token)
            _ = try await browser.open(game.gameID)
            browser.probe.send(.close(gameID: game.gameID))
            browser.probe.send(.ping)
            _ = try await browser.probe.next(&browser.iterator) { if case .pong = $0 { true } else { false } }
            func replicas() async throws -> Double? {
                let metrics = String(buffer: try await client.send(.get, "/metrics").body)
                return metrics.split(separator: "\n").first { $0.hasPrefix("crossmate_browser_replicas ") }.flatMap {
                    Double($0.split(separator: " ")[1])
                }
            }
            #expect(try await replicas() == 1)
            server.clock.advance(byMillis: 61_000)
            try await eventually("the idle replica is freed") { try await replicas() == 0 }
            await browser.probe.close()
        }
    }

    // MARK: Revocation is final

    @Test func revokingADeviceVoidsTheLinkCodesItMade() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let code: LinkCodeResponse = try await client.call(.post, "/v1/devices/link-codes", token: ann.token)
            let phone: DeviceSession = try await client.call(.post, "/v1/devices", json: LinkDeviceRequest(code: code.code))
            // The phone makes a code, and is then reported lost and revoked.
            let stolen: LinkCodeResponse = try await client.call(.post, "/v1/devices/link-codes", token: phone.token)
            let _: OKResponse = try await client.call(.delete, "/v1/devices/\(phone.deviceID)", token: ann.token)
            let (status, error) = try await client.failure(.post, "/v1/devices", json: LinkDeviceRequest(code: stolen.code))
            #expect(status == .gone && error.error == .gone)
            // A code made by a device still signed in works as before.
            let fresh: LinkCodeResponse = try await client.call(.post, "/v1/devices/link-codes", token: ann.token)
            let laptop: DeviceSession = try await client.call(.post, "/v1/devices", json: LinkDeviceRequest(code: fresh.code))
            #expect(laptop.account.authorID == ann.account.authorID)
        }
    }

    // MARK: Every socket message costs a token

    @Test func commandsThatMakeNoMoveAreRateLimitedToo() async throws {
        let server = try TestServer {
            $0.rateLimitBurst = 20
            $0.rateLimitPerSecond = 0.001
        }
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var browser = Browser(port: port, token: ann.token)
            _ = try await browser.open(game.gameID)
            var codes: [RefusalCode?] = []  // nil: applied
            for _ in 0..<40 {
                switch try await browser.run(game.gameID, BrowserCommand(kind: "undo")) {
                case let .refused(refusal): codes.append(refusal.code)
                case .applied: codes.append(nil)
                default: break
                }
            }
            #expect(codes.prefix(10).allSatisfy { $0 == .nothingToUndo })
            #expect(codes.suffix(10).allSatisfy { $0 == .rateLimited }, "undo with nothing to undo cost nothing: \(codes)")
            await browser.probe.close()
        }
    }

    // MARK: Renames and Decisions

    @Test func renamesAreRateLimitedAndDecisionsNameFriendsOnly() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            for name in ["Annie", "Anna", "Ann"] {
                let _: MeResponse = try await client.call(.put, "/v1/me", token: ann.token, json: RenameRequest(displayName: name))
            }
            let (status, error) = try await client.failure(.put, "/v1/me", token: ann.token, json: RenameRequest(displayName: "Nan"))
            #expect(status == .tooManyRequests && error.error == .rateLimited)

            let (refused, why) = try await client.failure(
                .post, "/v1/decisions", token: ann.token, json: DecisionRequest(kind: "block", key: "acct-made-up"))
            #expect(refused == .badRequest && why.message.contains("played a game with"))
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            let friends: FriendsResponse = try await client.call(
                .post, "/v1/decisions", token: ann.token, json: DecisionRequest(kind: "color", key: bob.account.authorID, value: "2"))
            #expect(friends.decisions.map(\.key) == [bob.account.authorID])
        }
    }

    // MARK: Answered once, across restarts

    /// An undo whose answer was lost is sent again after the server restarted: it is answered,
    /// not performed a second time (which would undo the letter before it too).
    @Test func aCommandResentAfterARestartIsAnsweredNotPerformedAgain() async throws {
        let first = try TestServer()
        defer { first.removeFiles() }
        var second = try TestServer()
        second.configuration.storage = first.configuration.storage
        let typed = first.clock.now
        let (token, gameID) = try await first.application().test(.live) { client in
            let ann = try await client.account("Ann")
            let gameID = try await client.newGame(ann).gameID
            var browser = Browser(port: try #require(client.port), token: ann.token)
            _ = try await browser.open(gameID)
            _ = try await Self.send(&browser, gameID, id: 1, typedAt: typed, BrowserCommand(kind: "setLetter", row: 1, col: 0, letter: "G"))
            _ = try await Self.send(&browser, gameID, id: 2, typedAt: typed + 1, BrowserCommand(kind: "setLetter", row: 1, col: 1, letter: "R"))
            _ = try await Self.send(&browser, gameID, id: 3, typedAt: typed + 2, BrowserCommand(kind: "undo"))
            await browser.probe.close()
            return (ann.token, gameID)
        }
        second.clock.advance(byMillis: typed + 5_000 - second.clock.now)
        try await second.application().test(.live) { client in
            var browser = Browser(port: try #require(client.port), token: token)
            _ = try await browser.open(gameID)
            let again = try await Self.send(&browser, gameID, id: 3, typedAt: typed + 2, BrowserCommand(kind: "undo"))
            guard case let .applied(applied) = again else { throw BrowserCommandTests.Unexpected(answer: again) }
            #expect(applied.squares.isEmpty)
            let grid = try await browser.open(gameID)
            #expect(grid.squares.first { $0.row == 1 && $0.col == 0 }?.letter == "G", "the resent undo was performed again")
            await browser.probe.close()
        }
    }

    // MARK: Refusals a client causes are never server errors

    /// A browser whose clock offset is stale stamps a letter two minutes before the game was
    /// made: the stamp is clamped and the letter saved (it was refused as a server error, and
    /// resent every second for ever).
    @Test func aLetterStampedBeforeTheGameExistedIsSaved() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var browser = Browser(port: try #require(client.port), token: ann.token)
            _ = try await browser.open(game.gameID)
            let answer = try await Self.send(
                &browser, game.gameID, id: 1, typedAt: server.clock.now - 120_000, BrowserCommand(kind: "setLetter", row: 1, col: 0, letter: "B"))
            guard case let .applied(applied) = answer else { throw BrowserCommandTests.Unexpected(answer: answer) }
            #expect(applied.squares.first?.letter == "B")
            await browser.probe.close()
        }
    }

    /// A square puzzle of `side` whose every answer is "A".
    static func allA(side: Int) throws -> Puzzle {
        try Puzzle(
            title: "Big", width: side, height: side, cells: [Cell](repeating: .letter("A"), count: side * side), clueTexts: [:])
    }

    static func upload(_ client: some TestClientProtocol, _ session: DeviceSession, _ puzzle: Puzzle) async throws -> TestResponse {
        let file = try PuzzleFormat.ipuz.write(puzzle)
        return try await client.send(
            .post, "/v1/games", token: session.token,
            json: CreateGameRequest(fileName: "big.ipuz", fileBase64: Data(file).base64EncodedString()))
    }

    /// Checking or revealing a 25×25 grid is one gesture of 625 moves: stored as one batch (one
    /// undo step), not refused as over the 400-record limit pushes have.
    @Test func revealingAWholeLargeGridIsOneGesture() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let ann = try await client.account("Ann")
            let response = try await Self.upload(client, ann, try Self.allA(side: 25))
            #expect(response.status == .created)
            let game = try JSONDecoder().decode(GameSummary.self, from: Data(buffer: response.body))
            var browser = Browser(port: try #require(client.port), token: ann.token)
            _ = try await browser.open(game.gameID)
            _ = try await browser.applied(game.gameID, BrowserCommand(kind: "setLetter", row: 0, col: 0, letter: "B"))
            let checked = try await browser.applied(game.gameID, BrowserCommand(kind: "check", scope: .puzzle))
            #expect(checked.squares.count == 1)
            let revealed = try await browser.applied(game.gameID, BrowserCommand(kind: "reveal", scope: .puzzle))
            #expect(revealed.squares.count == 625 && revealed.completion != nil)
            let (changes, _) = try await client.allChanges(ann, game.gameID)
            let batches = Set(
                changes.compactMap { change -> String? in
                    if case let .move(record) = change.record, record.kind == "reveal" { return record.batchID }
                    return nil
                })
            #expect(batches.count == 1)
            await browser.probe.close()
        }
    }

    /// A grid whose state could not be sent to a browser is refused when it is uploaded, with a
    /// reason, instead of closing the browser's socket mid-frame on every open.
    @Test func aGridTooLargeToOpenIsRefusedAtUpload() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let response = try await Self.upload(client, ann, try Self.allA(side: 255))
            #expect(response.status == .contentTooLarge)
            let error = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
            #expect(error.error == .limitExceeded && error.message.contains("too large to play here"))
        }
    }

    // MARK: One rule for text

    @Test func textWithEscapesOrNothingVisibleIsRefusedOrCleaned() async throws {
        try await withServer { client, _ in
            for name in ["\u{200B}\u{200B}\u{200B}", "\u{202E}nimda", "Ann\u{1B}[2J"] {
                let (status, _) = try await client.failure(.post, "/v1/accounts", json: CreateAccountRequest(displayName: name))
                #expect(status == .badRequest, "the name \(name.debugDescription) was accepted")
            }
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            let (nudged, _) = try await client.failure(
                .post, "/v1/games/\(game.gameID)/nudges", token: ann.token, json: NudgeRequest(message: "\u{1B}]0;PWNED\u{07}\u{1B}[2J"))
            #expect(nudged == .badRequest)

            var puzzle = try Self.allA(side: 5)
            puzzle.title = "\u{1B}]0;PWNED\u{07}\u{1B}[2JTitle"
            puzzle.across[0].text = "Clue\u{1B}[31m red"
            let response = try await Self.upload(client, ann, puzzle)
            let made = try JSONDecoder().decode(GameSummary.self, from: Data(buffer: response.body))
            #expect(made.title == "]0;PWNED[2JTitle")
            let snapshot: SnapshotResponse = try await client.call(.get, "/v1/games/\(made.gameID)/snapshot", token: ann.token)
            #expect(snapshot.game.puzzle.across[0].text == "Clue[31m red")
        }
    }

    // MARK: The games list reads stored summaries

    /// Listing games builds no game's grid: a restarted server lists them (with their progress)
    /// from stored summaries, and holds no projection afterwards.
    @Test func theGamesListBuildsNoGrids() async throws {
        let first = try TestServer()
        defer { first.removeFiles() }
        var second = try TestServer()
        second.configuration.storage = first.configuration.storage
        let token = try await first.application().test(.live) { client in
            let ann = try await client.account("Ann")
            for _ in 0..<3 { _ = try await client.newGame(ann) }
            let game = try await client.newGame(ann)
            // An hour later, letters: the list says when the game last changed.
            first.clock.advance(byMillis: 3_600_000)
            var device = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            let moves = try ["G", "R"].enumerated().map {
                try device.replica.perform(.setLetter(at(1, $0.offset), $0.element, pencil: false), wallMillis: first.clock.now)
            }
            _ = try await client.push(ann, game.gameID, moves.flatMap { $0 })
            return ann.token
        }
        try await second.application().test(.live) { client in
            let list: GameListResponse = try await client.call(.get, "/v1/games", token: token)
            #expect(list.games.count == 4)
            #expect(list.games.map(\.filled).sorted() == [0, 0, 0, 2])
            #expect(list.games.allSatisfy { $0.picture?.isEmpty == false })
            let created = list.games.filter { $0.filled == 0 }.compactMap(\.lastActivity)
            #expect(created.count == 3 && Set(created).count == 1)
            #expect(list.games.first { $0.filled == 2 }?.lastActivity == created[0] + 3_600_000)
            let metrics = String(buffer: try await client.send(.get, "/metrics").body)
            #expect(metrics.contains("crossmate_game_projections 0"), "the list built grids")
        }
    }

    /// A browser's moves are all on the server (it made them), so a finished game seals a
    /// browser device at once, open or not: the replay never waits for a browser.
    @Test func aBrowserDeviceNeverHoldsAReplayBack() async throws {
        let server = try TestServer { $0.browserReplicaGraceMillis = 0 }
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            var browser = Browser(port: try #require(client.port), token: ann.token)
            _ = try await browser.open(game.gameID)
            _ = try await browser.applied(game.gameID, BrowserCommand(kind: "setLetter", row: 1, col: 0, letter: "G"))
            await browser.probe.close()
            try await eventually("Ann's browser has left") {
                String(buffer: try await client.send(.get, "/metrics").body).contains("crossmate_browser_replicas 0")
            }
            let _: CompletionResponse = try await client.call(.post, "/v1/games/\(game.gameID)/resign", token: bob.token)
            let (changes, _) = try await client.allChanges(bob, game.gameID)
            let seals = changes.compactMap { change -> Seal? in
                if case let .seal(seal) = change.record { return seal }
                return nil
            }
            #expect(seals.map(\.replicaID) == [ann.deviceID] && seals.first?.lastSeq == 1)
            var again = Browser(port: try #require(client.port), token: bob.token)
            _ = try await again.open(game.gameID)
            again.probe.send(.replay(gameID: game.gameID))
            let replay = try await again.probe.next(&again.iterator) { if case .replay = $0 { true } else { false } }
            guard case let .replay(view) = replay else { return }
            #expect(view.ready && view.steps.count == 1)
            await again.probe.close()
        }
    }

}
