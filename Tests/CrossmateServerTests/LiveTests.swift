import CrossmateCore
import CrossmateProtocol
import CrossmateServer
import CrossmateSync
import CrossmateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Real servers on loopback (port 0) with real WebSocket clients.
@Suite struct LiveTests {
    /// Waits for a poke of `game` at or beyond `sequence`.
    @discardableResult
    func awaitPoke(
        _ probe: SocketProbe, _ iterator: inout AsyncStream<ServerSocketMessage>.Iterator, game: String, atLeast sequence: Int64
    ) async throws -> ServerSocketMessage {
        try await probe.next(&iterator) { message in
            if case let .poke(zone, token, _, _) = message { return zone == game && token.sequence >= sequence }
            return false
        }
    }

    @Test func twoAccountsOneWithTwoDevicesConvergeThroughPokes() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let annTablet = try await client.linkDevice(of: ann)
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann, bundled: "daybreak")
            try await client.join(bob, game.gameID, invitedBy: ann)
            let puzzle = daybreak

            var devices = [ann, annTablet, bob].map { TestDevice($0, puzzle: puzzle, gameID: game.gameID) }
            let probes = devices.map { SocketProbe(port: port, token: $0.session.token) }
            var iterators = probes.map { $0.received.makeAsyncIterator() }
            for index in probes.indices { try await probes[index].subscribe([game.gameID], iterator: &iterators[index]) }
            var tokens = [ChangeToken?](repeating: nil, count: devices.count)
            // Where each device's own saved moves sit in the zone (from its push results).
            var ownSequences = [Set<Int64>](repeating: [], count: devices.count)
            var inlineChecked = 0
            var everyMove: [Move] = []

            var random = SeededRandomNumberGenerator(seed: 11)
            let squares = puzzle.letterPositions
            for round in 0..<30 {
                let writer = round % devices.count
                var batch: [Move] = []
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let square = squares.randomElement(using: &random)!
                    let letter = String("ABCDEGNORST".randomElement(using: &random)!)
                    batch += (try? devices[writer].replica.perform(.setLetter(square, letter), wallMillis: server.clock.now + Int64(round))) ?? []
                }
                if round % 7 == 3 { batch += (try? devices[writer].replica.perform(.undo, wallMillis: server.clock.now + Int64(round))) ?? [] }
                guard !batch.isEmpty else { continue }
                everyMove += batch
                let pushed = try await client.push(devices[writer].session, game.gameID, batch)
                #expect(pushed.results.allSatisfy { $0.status == .saved })
                ownSequences[writer].formUnion(pushed.results.compactMap(\.sequence))
                if round % 5 == 0 {
                    // A duplicated, reordered resend changes nothing.
                    let resent = try await client.push(devices[writer].session, game.gameID, batch.reversed())
                    #expect(resent.results.allSatisfy { $0.status == .duplicate })
                }
                // Every other device hears the poke, fetches what is new and merges it. The poke
                // carries the new moves, exactly as the fetch returns them after its `after`,
                // which a device that is up to date (skipping its own moves) has reached.
                for reader in devices.indices where reader != writer {
                    let poke = try await awaitPoke(probes[reader], &iterators[reader], game: game.gameID, atLeast: pushed.token.sequence)
                    let (changes, token) = try await client.allChanges(devices[reader].session, game.gameID, after: tokens[reader])
                    var reached = tokens[reader]?.sequence ?? 0
                    while ownSequences[reader].contains(reached + 1) { reached += 1 }
                    if tokens[reader] != nil, case let .poke(_, pokeToken, after?, inline?) = poke, after.sequence == reached {
                        #expect(pokeToken == token)
                        #expect(inline == changes.filter { $0.sequence > after.sequence })
                        inlineChecked += 1
                    }
                    devices[reader].receive(changes)
                    tokens[reader] = token
                }
            }
            #expect(inlineChecked > 20)
            var merged = GameGrid(puzzle: puzzle)
            merged.apply(everyMove)
            for device in devices { #expect(device.replica.grid == merged) }

            // The writing device is not poked about its own write (its response has the token);
            // the account's other device is. The pong follows anything queued before it.
            let own = try devices[0].replica.perform(.setLetter(squares[0], "Z"), wallMillis: server.clock.now + 100)
            let ownPush = try await client.push(ann, game.gameID, own)
            try await awaitPoke(probes[1], &iterators[1], game: game.gameID, atLeast: ownPush.token.sequence)
            probes[0].send(.ping)
            var beforePong: [ServerSocketMessage] = []
            _ = try await probes[0].next(&iterators[0]) { message in
                if case .pong = message { return true }
                beforePong.append(message)
                return false
            }
            #expect(!beforePong.contains { if case let .poke(_, token, _, _) = $0 { token.sequence >= ownPush.token.sequence } else { false } })

            // Cursors go live to the game's other devices, the same account's other device included.
            probes[0].send(.cursor(gameID: game.gameID, cursor: CursorPosition(row: 4, col: 2, direction: .across)))
            for index in [1, 2] {
                let message = try await probes[index].next(&iterators[index]) { if case .cursor = $0 { true } else { false } }
                guard case let .cursor(gameID, deviceID, authorID, cursor) = message else { continue }
                #expect(gameID == game.gameID && deviceID == ann.deviceID && authorID == ann.account.authorID && cursor.col == 2)
            }
            // A socket may not watch someone else's game.
            let eve = try await client.account("Eve")
            let eveProbe = SocketProbe(port: port, token: eve.token)
            var eveIterator = eveProbe.received.makeAsyncIterator()
            eveProbe.send(.subscribe(games: [game.gameID]))
            let refusal = try await eveProbe.next(&eveIterator) { if case .error = $0 { true } else { false } }
            #expect(refusal == .error(ErrorBody(.forbidden, "you are not a player in game \(game.gameID)")))
            await eveProbe.close()
            for probe in probes { await probe.close() }
        }
    }

    @Test func devicesPushOverTheirSocketUnderTheSameRulesAsHTTP() async throws {
        let server = try TestServer { $0.rateLimitBurst = 40 }
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            let (annProbe, bobProbe) = (SocketProbe(port: port, token: ann.token), SocketProbe(port: port, token: bob.token))
            var (annIterator, bobIterator) = (annProbe.received.makeAsyncIterator(), bobProbe.received.makeAsyncIterator())
            try await annProbe.subscribe([game.gameID], iterator: &annIterator)
            try await bobProbe.subscribe([game.gameID], iterator: &bobIterator)
            func answer(
                _ probe: SocketProbe, _ iterator: inout AsyncStream<ServerSocketMessage>.Iterator, id: Int
            ) async throws -> ServerSocketMessage {
                try await probe.next(&iterator) { message in
                    switch message {
                    case let .pushed(answered, _, _), let .pushFailed(answered, _, _, _): answered == id
                    default: false
                    }
                }
            }

            // Saved, answered with the zone sequences, and poked to Bob with the moves inline.
            var annDevice = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            let squares = greenLight.letterPositions
            let moves =
                try annDevice.replica.perform(.setLetter(squares[0], "G"), wallMillis: server.clock.now)
                + annDevice.replica.perform(.setLetter(squares[1], "R"), wallMillis: server.clock.now)
            annProbe.send(.push(gameID: game.gameID, id: 1, moves: moves.map(MoveRecord.init)))
            guard case let .pushed(_, _, response) = try await answer(annProbe, &annIterator, id: 1) else {
                Issue.record("not pushed")
                return
            }
            #expect(response.results.map(\.status) == [.saved, .saved])
            let sequences = response.results.compactMap(\.sequence)
            #expect(sequences.count == 2 && sequences[1] == sequences[0] + 1 && response.token.sequence == sequences[1])
            let poke = try await awaitPoke(bobProbe, &bobIterator, game: game.gameID, atLeast: sequences[1])
            guard case let .poke(_, _, after?, inline?) = poke else {
                Issue.record("the poke carries no moves")
                return
            }
            #expect(after.sequence == sequences[0] - 1)
            #expect(inline.map(\.record) == moves.map { .move(MoveRecord($0)) })

            // A resend is a duplicate; HTTP sees the same zone.
            annProbe.send(.push(gameID: game.gameID, id: 2, moves: moves.map(MoveRecord.init)))
            guard case let .pushed(_, _, resent) = try await answer(annProbe, &annIterator, id: 2) else {
                Issue.record("not pushed")
                return
            }
            #expect(resent.results.map(\.status) == [.duplicate, .duplicate])
            let (changes, _) = try await client.allChanges(bob, game.gameID, after: nil)
            #expect(changes.filter { if case .move = $0.record { true } else { false } }.count == 2)

            // Refusals name the push they answer.
            annProbe.send(raw: #"{"type":"push","id":3,"gameID":"\#(game.gameID)","moves":[{"row":"x"}]}"#)
            guard case let .pushFailed(_, _, malformed, _) = try await answer(annProbe, &annIterator, id: 3) else {
                Issue.record("not refused")
                return
            }
            #expect(malformed.error == .invalid && malformed.message.hasPrefix("malformed push"))
            let tooMany = Array(repeating: MoveRecord(moves[0]), count: ProtocolLimits.maximumRecordsPerBatch + 1)
            annProbe.send(.push(gameID: game.gameID, id: 4, moves: tooMany))
            guard case let .pushFailed(_, _, oversized, _) = try await answer(annProbe, &annIterator, id: 4) else {
                Issue.record("not refused")
                return
            }
            #expect(oversized.error == .limitExceeded)
            annProbe.send(.push(gameID: "game-nonesuch", id: 5, moves: moves.map(MoveRecord.init)))
            guard case let .pushFailed(_, _, missing, _) = try await answer(annProbe, &annIterator, id: 5) else {
                Issue.record("not refused")
                return
            }
            #expect(missing.error == .notFound)

            // A removed player's pushes are refused as read-only.
            let _: OKResponse = try await client.call(.delete, "/v1/games/\(game.gameID)/participants/\(bob.account.authorID)", token: ann.token)
            var bobDevice = TestDevice(bob, puzzle: greenLight, gameID: game.gameID)
            let late = try bobDevice.replica.perform(.setLetter(squares[2], "E"), wallMillis: server.clock.now)
            bobProbe.send(.push(gameID: game.gameID, id: 1, moves: late.map(MoveRecord.init)))
            guard case let .pushFailed(_, _, removed, _) = try await answer(bobProbe, &bobIterator, id: 1) else {
                Issue.record("not refused")
                return
            }
            #expect(removed.error == .readOnly)

            // The device's token bucket covers socket pushes too (the test clock stands still).
            var limited: (ErrorBody, Int?)?
            for id in 10..<60 where limited == nil {
                annProbe.send(.push(gameID: game.gameID, id: id, moves: moves.map(MoveRecord.init)))
                if case let .pushFailed(_, _, error, retryAfter) = try await answer(annProbe, &annIterator, id: id) { limited = (error, retryAfter) }
            }
            #expect(limited?.0.error == .rateLimited)
            #expect((limited?.1 ?? 0) >= 1)
            await annProbe.close()
            await bobProbe.close()
        }
    }

    @Test func anAccountsSocketsHearOfGamesAddedAndRemoved() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let probe = SocketProbe(port: try #require(client.port), token: bob.token)
            var iterator = probe.received.makeAsyncIterator()
            try await probe.subscribe([], iterator: &iterator)
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            let added = try await probe.next(&iterator) { if case .feed = $0 { true } else { false } }
            #expect(added == .feed(token: ChangeToken(zone: "feed", sequence: 1)))
            let _: OKResponse = try await client.call(.delete, "/v1/games/\(game.gameID)/participants/\(bob.account.authorID)", token: ann.token)
            let removed = try await probe.next(&iterator) { if case .feed = $0 { true } else { false } }
            #expect(removed == .feed(token: ChangeToken(zone: "feed", sequence: 2)))
            let feed: FeedResponse = try await client.call(.get, "/v1/feed", token: bob.token)
            #expect(feed.entries.map(\.state) == [.active, .readOnly])
            await probe.close()
        }
    }

    @Test func aDeviceThatStopsReadingIsDisconnectedAndTheOthersCarryOn() async throws {
        // Cursors and pings are what fill the stalled socket here, so their limit is out of the way.
        let server = try TestServer {
            $0.socketBufferBytes = 32 * 1024
            $0.socketRateLimitBurst = 1_000_000
        }
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            let stalled = try StalledSocket(port: port, token: bob.token, subscribeTo: [game.gameID])
            let probe = SocketProbe(port: port, token: ann.token)
            var iterator = probe.received.makeAsyncIterator()
            try await probe.subscribe([game.gameID], iterator: &iterator)
            func connectedSockets() async throws -> Int? {
                let metrics = String(buffer: try await client.send(.get, "/metrics").body)
                let line = metrics.split(separator: "\n").first { $0.hasPrefix("crossmate_connected_sockets ") }
                return line.flatMap { Double($0.split(separator: " ")[1]) }.map { Int($0) }
            }
            // Bob's upgrade may still be on its way: each check is a round trip on Ann's socket.
            var checks = 0
            while try await connectedSockets() != 2, checks < 500 {
                checks += 1
                probe.send(.ping)
                _ = try await probe.next(&iterator) { if case .pong = $0 { true } else { false } }
            }
            #expect(try await connectedSockets() == 2)

            // Ann's cursor goes to Bob's stalled socket until more than the buffer waits there
            // (the kernel's buffers take some first); then the server lets go of it.
            var relayed = 0
            while try await connectedSockets() == 2, relayed < 50_000 {
                for index in 0..<200 {
                    let square = greenLight.letterPositions[index % greenLight.letterPositions.count]
                    probe.send(.cursor(gameID: game.gameID, cursor: CursorPosition(row: square.row, col: square.col, direction: .across)))
                }
                relayed += 200
                probe.send(.ping)
                _ = try await probe.next(&iterator) { if case .pong = $0 { true } else { false } }
            }
            #expect(try await connectedSockets() == 1)
            #expect(stalled.drainUntilClosed())

            // Ann's socket is still served.
            probe.send(.ping)
            _ = try await probe.next(&iterator) { if case .pong = $0 { true } else { false } }
            await probe.close()
        }
    }

    /// A refused socket says why (a bare 400 is all a refused upgrade can be), then closes.
    @Test func aSocketNeedsAValidTokenOrTicketAndSaysWhyNot() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            // A client that speaks first is answered at once; a silent one after a short wait.
            for (index, probe) in [SocketProbe(port: port, token: "wrong"), SocketProbe(port: port), SocketProbe(port: port, ticket: "made-up")]
                .enumerated()
            {
                var iterator = probe.received.makeAsyncIterator()
                if index < 2 { probe.send(.ping) }
                let refusal = try await probe.next(&iterator) { _ in true }
                guard case let .error(body) = refusal else {
                    Issue.record("expected an error, got \(refusal)")
                    continue
                }
                #expect(body.error == .unauthorized)
                await #expect(throws: SocketProbe.ProbeClosed.self) { _ = try await probe.next(&iterator) { _ in true } }
                await probe.close()
            }
            // A ticket opens one socket, once; a token in the URL opens none.
            let ann = try await client.account("Ann")
            let ticket: SocketTicketResponse = try await client.call(.post, "/v1/socket-tickets", token: ann.token)
            let browser = SocketProbe(port: port, ticket: ticket.ticket)
            var iterator = browser.received.makeAsyncIterator()
            browser.send(.ping)
            let pong = try await browser.next(&iterator) { _ in true }
            guard case .pong = pong else {
                Issue.record("expected a pong, got \(pong)")
                return
            }
            await browser.close()
            let again = SocketProbe(port: port, ticket: ticket.ticket)
            var second = again.received.makeAsyncIterator()
            again.send(.ping)
            let refused = try await again.next(&second) { _ in true }
            #expect(
                refused
                    == .error(ErrorBody(.unauthorized, "the socket ticket is unknown, used or expired; ask for a new one (POST /v1/socket-tickets)")))
            await again.close()
            let (status, _) = try await client.failure(.get, "/v1/me?token=\(ann.token)")
            #expect(status == .unauthorized)
        }
    }

    /// Every number a socket message carries, at the edges of (and beyond) 64 bits: a push's
    /// id, a cursor's row and column, every field of a pushed move. Each is answered (an error
    /// or a refused push), never a crash or a silent drop of the socket, and the socket still
    /// answers a ping afterwards.
    @Test func extremeNumbersOverTheSocketAreAnsweredNotCrashed() async throws {
        let server = try TestServer {
            $0.socketRateLimitBurst = 10_000
            $0.rateLimitBurst = 10_000
        }
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            let probe = SocketProbe(port: try #require(client.port), token: ann.token)
            var iterator = probe.received.makeAsyncIterator()
            try await probe.subscribe([game.gameID], iterator: &iterator)
            let extremes = [
                "9223372036854775807", "-9223372036854775808", "10000000000000000", "-1", "0",
                "18446744073709551616", "1e300", "-0.5",
            ]
            let now = server.clock.now
            var messages: [String] = []
            for value in extremes {
                messages.append(#"{"type":"cursor","gameID":"\#(game.gameID)","cursor":{"row":\#(value),"col":1,"direction":"across"}}"#)
                messages.append(#"{"type":"cursor","gameID":"\#(game.gameID)","cursor":{"row":1,"col":\#(value),"direction":"down"}}"#)
                messages.append(#"{"type":"push","id":\#(value),"gameID":"\#(game.gameID)","moves":[]}"#)
                for field in ["seq", "row", "col", "mark", "wallMillis", "counter", "targetSeq", "prevSeqAtCell"] {
                    var fields = [
                        "seq": "1", "row": "1", "col": "0", "mark": "0", "wallMillis": "\(now)", "counter": "0",
                        "targetSeq": "null", "prevSeqAtCell": "null",
                    ]
                    fields[field] = value
                    messages.append(
                        #"{"type":"push","id":7,"gameID":"\#(game.gameID)","moves":[{"gameID":"\#(game.gameID)","replicaID":"\#(ann.deviceID)","authorID":"","seq":\#(fields["seq"]!),"timestamp":{"counter":\#(fields["counter"]!),"wallMillis":\#(fields["wallMillis"]!)},"row":\#(fields["row"]!),"col":\#(fields["col"]!),"letter":"G","mark":\#(fields["mark"]!),"cellAuthorID":"\#(ann.account.authorID)","kind":"input","batchID":"b","targetSeq":\#(fields["targetSeq"]!),"prevSeqAtCell":\#(fields["prevSeqAtCell"]!)}]}"#
                    )
                }
            }
            for message in messages {
                probe.send(raw: message)
                probe.send(.ping)
                // The answer to the message (if it has one) comes before the pong: the socket is
                // read in order, and a dropped socket would end the stream instead.
                var answered = false
                while true {
                    let next = try await probe.next(&iterator) { _ in true }
                    if case .pong = next { break }
                    if case let .error(error) = next { #expect(error.error != .serverError, "\(message) → \(error)") }
                    if case let .pushFailed(_, _, error, _) = next { #expect(error.error != .serverError, "\(message) → \(error)") }
                    answered = true
                }
                // A cursor on a letter square is relayed silently; every other message here is answered.
                let valid = message.contains(#""row":0,"col":1"#) || message.contains(#""row":1,"col":0,"direction""#)
                #expect(answered || valid, "no answer to \(message)")
            }
            await probe.close()
            let health = try await client.send(.get, "/healthz")
            #expect(health.status == .ok)
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["CROSSMATE_TEST_POSTGRES_URL"] != nil, "needs CROSSMATE_TEST_POSTGRES_URL"))
    func twoInstancesOnOnePostgresPushToEachOthersDevices() async throws {
        let first = try TestServer(postgres: true)
        let second = try TestServer(postgres: true)
        try await first.application().test(.live) { one in
            try await second.application().test(.live) { two in
                let ann = try await one.account("Ann")
                let game = try await one.newGame(ann)
                let invite: InvitationResponse = try await one.call(
                    .post, "/v1/games/\(game.gameID)/invitations", token: ann.token,
                    json: CreateInvitationRequest())
                let bob = try await two.account("Bob")
                let _: GameSummary = try await two.call(.post, "/v1/invitations/\(invite.token)/accept", token: bob.token)

                // Ann's own move loads the game's projection on instance one.
                var annFirst = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
                _ = try await one.push(ann, game.gameID, try annFirst.replica.perform(.setLetter(at(4, 0), "E"), wallMillis: first.clock.now))

                // Ann listens on instance one; Bob writes through instance two.
                let probe = SocketProbe(port: try #require(one.port), token: ann.token)
                var iterator = probe.received.makeAsyncIterator()
                try await probe.subscribe([game.gameID], iterator: &iterator)
                var bobDevice = TestDevice(bob, puzzle: greenLight, gameID: game.gameID)
                let moves = try bobDevice.replica.perform(.setLetter(at(1, 0), "G"), wallMillis: second.clock.now)
                let pushed = try await two.push(bob, game.gameID, moves)
                try await awaitPoke(probe, &iterator, game: game.gameID, atLeast: pushed.token.sequence)
                var annDevice = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
                let (changes, _) = try await one.allChanges(ann, game.gameID)
                annDevice.receive(changes)
                bobDevice.receive(changes)
                #expect(annDevice.replica.grid == bobDevice.replica.grid)
                // Instance one's projection folds the write instance two made: its game list
                // shows both letters without any write of its own.
                try await eventually("instance one's projection hears of instance two's move") {
                    let list: GameListResponse = try await one.call(.get, "/v1/games", token: ann.token)
                    return list.games.first?.filled == 2
                }

                // A cursor crosses instances too.
                let bobProbe = SocketProbe(port: try #require(two.port), token: bob.token)
                var bobIterator = bobProbe.received.makeAsyncIterator()
                try await bobProbe.subscribe([game.gameID], iterator: &bobIterator)
                bobProbe.send(.cursor(gameID: game.gameID, cursor: CursorPosition(row: 1, col: 0, direction: .down)))
                let cursor = try await probe.next(&iterator) { if case .cursor = $0 { true } else { false } }
                #expect(
                    cursor
                        == .cursor(
                            gameID: game.gameID, deviceID: bob.deviceID, authorID: bob.account.authorID,
                            cursor: CursorPosition(row: 1, col: 0, direction: .down)))
                // A nudge and (below) the next puzzle started together reach an account's
                // sockets on the other instance.
                let _: NudgeView = try await two.call(.post, "/v1/games/\(game.gameID)/nudges", token: bob.token, json: NudgeRequest(message: "hi"))
                let nudge = try await probe.next(&iterator) { if case .nudge = $0 { true } else { false } }
                guard case let .nudge(heard) = nudge else { return }
                #expect(heard.fromAuthor == bob.account.authorID && heard.message == "hi")
                // The LISTEN connection drops (here: killed by the database); the instance
                // reconnects and catches up, so Ann still hears of Bob's next move.
                try await terminateListeners()
                let later = try bobDevice.replica.perform(.setLetter(at(1, 1), "R"), wallMillis: second.clock.now + 1)
                let pushedLater = try await two.push(bob, game.gameID, later)
                try await awaitPoke(probe, &iterator, game: game.gameID, atLeast: pushedLater.token.sequence)
                // (The next puzzle together follows a finished game.)
                let _: CompletionResponse = try await two.call(.post, "/v1/games/\(game.gameID)/resign", token: bob.token)
                let next: GameSummary = try await two.call(
                    .post, "/v1/games", token: bob.token, json: CreateGameRequest(bundled: "daybreak", with: game.gameID))
                let told = try await probe.next(&iterator) { if case .nextGame = $0 { true } else { false } }
                guard case let .nextGame(started) = told else { return }
                #expect(started.gameID == next.gameID && started.fromGameID == game.gameID && started.byName == "Bob")
                await bobProbe.close()
                await probe.close()
            }
        }
    }

    /// Ends every LISTEN session on the test database, as a network failure would.
    func terminateListeners() async throws {
        let url = ProcessInfo.processInfo.environment["CROSSMATE_TEST_POSTGRES_URL"]!
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = [
            "psql", url, "-qAt", "-c",
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
        ]
        let output = Pipe()
        psql.standardOutput = output
        try psql.run()
        let terminated = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        psql.waitUntilExit()
        #expect(psql.terminationStatus == 0)
        #expect(Int(terminated.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 >= 1, "no LISTEN session was found to end")
    }
}
