import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateServer
import CrossmateSync
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Every endpoint and its errors, against the application `crossmate serve` runs (in process).
@Suite struct RouteTests {
    /// A device's move at `position`, stamped from the test clock.
    func typed(_ device: inout TestDevice, _ position: GridPosition, _ letter: String, now: Int64) throws -> [Move] {
        try device.replica.perform(.setLetter(position, letter), wallMillis: now)
    }

    @Test func healthAndMetrics() async throws {
        try await withServer { client, server in
            let health = try await client.send(.get, "/healthz")
            #expect(health.status == .ok && String(buffer: health.body).contains("ok"))
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var device = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            _ = try await client.push(ann, game.gameID, try device.replica.perform(.setLetter(at(1, 0), "G"), wallMillis: server.clock.now))
            let metrics = String(buffer: try await client.send(.get, "/metrics").body)
            #expect(metrics.contains("crossmate_requests_total"))
            #expect(metrics.contains("crossmate_moves_ingested_total 1"))
            // The push was one group commit of one batch.
            #expect(metrics.contains("crossmate_commit_seconds_count 1"))
            #expect(metrics.contains("crossmate_commit_batches_count 1") && metrics.contains("crossmate_commit_batches_sum 1"))
            // Every metric says what it is; the build and the database are named; requests are
            // counted by their route's pattern (never the path a client chose); the process's
            // own figures are there.
            let names = Set(metrics.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.prefix { $0 != " " && $0 != "{" }) })
            let described = Set(
                metrics.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }.map { String($0.dropFirst(7).prefix { $0 != " " }) })
            let families = Set(names.map { $0.replacingOccurrences(of: #"_(bucket|sum|count)$"#, with: "", options: .regularExpression) })
            #expect(families.subtracting(described).isEmpty, "without # HELP: \(families.subtracting(described).sorted())")
            #expect(metrics.contains(#"crossmate_build_info{version="\#(Release.version)",commit="#) && metrics.contains(#"engine="sqlite""#))
            #expect(metrics.contains("crossmate_database_up 1"))
            #expect(metrics.contains(#"crossmate_http_requests_total{route="/v1/games/{game}/moves",method="POST",status="2xx"} 1"#))
            _ = try await client.send(.get, "/v1/games/\(game.gameID)-\(UUID().uuidString)/changes", token: ann.token)
            let after = String(buffer: try await client.send(.get, "/metrics").body)
            #expect(!after.contains(game.gameID), "a path a client chose became a label")
            for name in ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds", "process_max_fds"] {
                #expect(metrics.contains("\n\(name) "), "\(name)")
            }
        }
    }

    @Test func unknownRoutesAndMethodsAnswerInJSON() async throws {
        try await withServer { client, _ in
            let (status, error) = try await client.failure(.get, "/v1/nothing-here")
            #expect(status == .notFound && error.error == .notFound && error.message.contains("/v1/nothing-here"))
            let ann = try await client.account("Ann")
            let wrongMethod = try await client.send(.put, "/v1/games", token: ann.token)
            let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: wrongMethod.body))
            #expect(wrongMethod.status.code >= 400 && !body.message.isEmpty)
        }
    }

    @Test func accountsAreCreatedWithADeviceAndToken() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("  Ann  ")
            #expect(ann.account.displayName == "Ann")
            #expect(ann.token.count >= 40 && ann.deviceID.hasPrefix("dev-"))
            let me: MeResponse = try await client.call(.get, "/v1/me", token: ann.token)
            #expect(me.account == ann.account && me.deviceID == ann.deviceID)
            let (status, error) = try await client.failure(.post, "/v1/accounts", json: CreateAccountRequest(displayName: "   "))
            #expect(status == .badRequest && error.error == .invalid)
            let long = try await client.failure(.post, "/v1/accounts", json: CreateAccountRequest(displayName: String(repeating: "x", count: 61)))
            #expect(long.1.error == .invalid)
        }
    }

    @Test func malformedJSONIsRefusedWithTheReason() async throws {
        try await withServer { client, _ in
            let (status, broken) = try await client.failure(.post, "/v1/accounts", raw: "{\"displayName\": ")
            #expect(status == .badRequest && broken.error == .invalid && broken.message.contains("not valid JSON"))
            let missing = try await client.failure(.post, "/v1/accounts", raw: "{}")
            #expect(missing.1.message.contains("missing field \"displayName\""))
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            let wrongType = try await client.failure(.post, "/v1/games/\(game.gameID)/moves", token: ann.token, raw: "{\"moves\": 3}")
            #expect(wrongType.0 == .badRequest && wrongType.1.message.contains("expected"))
        }
    }

    @Test func everyRequestNeedsAValidToken() async throws {
        try await withServer { client, _ in
            let none = try await client.failure(.get, "/v1/games")
            #expect(none.0 == .unauthorized && none.1.error == .unauthorized)
            let wrong = try await client.failure(.get, "/v1/games", token: "not-a-real-token")
            #expect(wrong.0 == .unauthorized && wrong.1.message.contains("not valid"))
            let response = try await client.execute(uri: "/v1/games", method: .get, headers: [.authorization: "Basic abc"], body: nil)
            #expect(response.status == .unauthorized)
        }
    }

    @Test func aSecondDeviceJoinsWithAOneTimeLinkCode() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let code: LinkCodeResponse = try await client.call(.post, "/v1/devices/link-codes", token: ann.token)
            let tablet: DeviceSession = try await client.call(.post, "/v1/devices", json: LinkDeviceRequest(code: code.code))
            #expect(tablet.account == ann.account && tablet.deviceID != ann.deviceID)
            let reused = try await client.failure(.post, "/v1/devices", json: LinkDeviceRequest(code: code.code))
            #expect(reused.0 == .gone)
            let late: LinkCodeResponse = try await client.call(.post, "/v1/devices/link-codes", token: ann.token)
            server.clock.advance(byMillis: 11 * 60 * 1000)
            #expect(try await client.failure(.post, "/v1/devices", json: LinkDeviceRequest(code: late.code)).0 == .gone)
            // Both devices see the account's games.
            let game = try await client.newGame(ann)
            let list: GameListResponse = try await client.call(.get, "/v1/games", token: tablet.token)
            #expect(list.games.map(\.gameID) == [game.gameID])
        }
    }

    /// A link code is short and typed as a person types it; an account has one working code at
    /// a time, makes a few a minute, and an address guesses a few a minute.
    @Test func aLinkCodeIsShortOnePerAccountAndBoundedBothWays() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let first: LinkCodeResponse = try await client.call(.post, "/v1/devices/link-codes", token: ann.token)
            #expect(first.code.count == 11 && first.code.dropFirst(5).first == "-")
            // A newer code replaces it.
            let second: LinkCodeResponse = try await client.call(.post, "/v1/devices/link-codes", token: ann.token)
            #expect(try await client.failure(.post, "/v1/devices", json: LinkDeviceRequest(code: first.code)).0 == .gone)
            // Typed in lower case, with a space for the dash.
            let typed = second.code.lowercased().replacingOccurrences(of: "-", with: " ")
            let phone: DeviceSession = try await client.call(.post, "/v1/devices", json: LinkDeviceRequest(code: typed))
            #expect(phone.account == ann.account)
            // What cannot be a code is told so, without echoing it.
            let long = LinkDeviceRequest(code: String(repeating: "Z", count: 5000))
            let (status, error) = try await client.failure(.post, "/v1/devices", json: long)
            #expect(status == .badRequest && error.error == .invalid)
            #expect(error.message.contains("10 letters and digits") && !error.message.contains("ZZZ"))
            // An account makes five codes at once, then one a minute.
            for _ in 0..<3 { let _: LinkCodeResponse = try await client.call(.post, "/v1/devices/link-codes", token: ann.token) }
            let limited = try await client.failure(.post, "/v1/devices/link-codes", token: ann.token)
            #expect(limited.0 == .tooManyRequests && limited.1.message.contains("link codes"))
        }
        // An address guesses as often as it may make accounts: ten at once, then one every 10 s
        // (the server's defaults; the other tests lift them).
        let defaults = ServerConfiguration(storage: .sqlite(path: ""))
        let asShipped: (inout ServerConfiguration) -> Void = {
            $0.accountRateLimitBurst = defaults.accountRateLimitBurst
            $0.accountRateLimitPerSecond = defaults.accountRateLimitPerSecond
        }
        try await withServer(asShipped) { client, _ in
            var refused = 0
            for guess in 0..<12 {
                let code = LinkCode.shown(String(String(guess).padding(toLength: 10, withPad: "0", startingAt: 0)))
                let (status, _) = try await client.failure(.post, "/v1/devices", json: LinkDeviceRequest(code: code))
                if status == .tooManyRequests { refused += 1 } else { #expect(status == .gone) }
            }
            #expect(refused == 2)
        }
    }

    @Test func gamesFromBundledPuzzlesAndUploadedFiles() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let bundled = try await client.newGame(ann, bundled: "daybreak")
            #expect(bundled.width == 9 && bundled.total == 63 && bundled.role == .owner)
            let puz = try PuzWriter.write(BundledPuzzles.puzzle("best-foot-forward"))
            let uploaded: GameSummary = try await client.call(
                .post, "/v1/games", token: ann.token,
                json: CreateGameRequest(fileName: "mini.puz", fileBase64: Data(puz).base64EncodedString()))
            #expect(uploaded.title == "Best Foot Forward")
            var corrupt = puz
            corrupt[0x40] ^= 0xFF
            let broken = try await client.failure(
                .post, "/v1/games", token: ann.token,
                json: CreateGameRequest(fileName: "mini.puz", fileBase64: Data(corrupt).base64EncodedString()))
            #expect(broken.0 == .badRequest && broken.1.message.contains("checksum mismatch"))
            let unknown = try await client.failure(.post, "/v1/games", token: ann.token, json: CreateGameRequest(bundled: "nope"))
            #expect(unknown.1.message.contains("no bundled puzzle"))
            let notBase64 = try await client.failure(
                .post, "/v1/games", token: ann.token, json: CreateGameRequest(fileName: "x.puz", fileBase64: "@@@"))
            #expect(notBase64.1.message.contains("base64"))
            let nothing = try await client.failure(.post, "/v1/games", token: ann.token, json: CreateGameRequest())
            #expect(nothing.0 == .badRequest)
            let list: GameListResponse = try await client.call(.get, "/v1/games", token: ann.token)
            #expect(Set(list.games.map(\.gameID)) == [bundled.gameID, uploaded.gameID])
        }
    }

    /// A locked .puz uploaded with its key makes an unlocked game, rebus answers whole; a wrong
    /// key is refused with what to do; without a key the game is created locked.
    @Test func aLockedUploadWithItsKeyIsUnlockedRebusIncluded() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            var cells = greenLight.cells
            cells[5].solution = "GREEN"  // (1, 0)
            let rebus = try Puzzle(
                title: "Rebus", width: 5, height: 5, cells: cells, across: greenLight.across, down: greenLight.down,
                acceptsRebusFirstLetter: true)
            let file = Data(try PuzWriter.write(rebus, lockKey: 1234)).base64EncodedString()
            let game: GameSummary = try await client.call(
                .post, "/v1/games", token: ann.token, json: CreateGameRequest(fileName: "rebus.puz", fileBase64: file, unlockKey: 1234))
            let snapshot: SnapshotResponse = try await client.call(.get, "/v1/games/\(game.gameID)/snapshot", token: ann.token)
            #expect(snapshot.game.puzzle.lock == nil && snapshot.game.puzzle.cells[5].solution == "GREEN")
            let wrong = try await client.failure(
                .post, "/v1/games", token: ann.token, json: CreateGameRequest(fileName: "rebus.puz", fileBase64: file, unlockKey: 4321))
            #expect(wrong.0 == .badRequest && wrong.1.message.contains("does not unlock"))
            let keyless: GameSummary = try await client.call(
                .post, "/v1/games", token: ann.token, json: CreateGameRequest(fileName: "rebus.puz", fileBase64: file))
            let lockedSnapshot: SnapshotResponse = try await client.call(.get, "/v1/games/\(keyless.gameID)/snapshot", token: ann.token)
            #expect(lockedSnapshot.game.puzzle.lock?.rebusAnswer(at: 5) == "GREEN")
        }
    }

    @Test func movesAreSavedResendsAreDuplicatesAndProgressShows() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var device = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            let moves = try typed(&device, at(1, 0), "G", now: server.clock.now) + typed(&device, at(1, 1), "R", now: server.clock.now)
            let first = try await client.push(ann, game.gameID, moves)
            #expect(first.results.map(\.status) == [.saved, .saved])
            let resent = try await client.push(ann, game.gameID, moves.reversed())
            #expect(resent.results.map(\.status) == [.duplicate, .duplicate])
            let list: GameListResponse = try await client.call(.get, "/v1/games", token: ann.token)
            #expect(list.games.first?.filled == 2)
            let (changes, _) = try await client.allChanges(ann, game.gameID)
            let stored = changes.compactMap { if case let .move(record) = $0.record { record } else { nil } }
            #expect(stored.map(\.seq) == [1, 2])
            #expect(stored.allSatisfy { $0.authorID == ann.account.authorID })
        }
    }

    @Test func theServerStampsTheActingAuthor() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var record = MoveRecord(
                Move(
                    gameID: "other", replicaID: ann.deviceID, authorID: "someone-else", seq: 1,
                    timestamp: HLCTimestamp(wallMillis: server.clock.now), position: at(1, 0), letter: "G",
                    cellAuthorID: ann.account.authorID, kind: .input, batchID: "b"))
            record.authorID = "impostor"
            let response: PushMovesResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/moves", token: ann.token,
                json: PushMovesRequest(moves: [record]))
            #expect(response.results.first?.status == .saved)
            let (changes, _) = try await client.allChanges(ann, game.gameID)
            guard case let .move(stored) = changes.last?.record else {
                Issue.record("no move stored")
                return
            }
            #expect(stored.authorID == ann.account.authorID && stored.gameID == game.gameID)
        }
    }

    @Test func invalidMovesAreRejectedOneByOne() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            let now = HLCTimestamp(wallMillis: server.clock.now)
            func record(
                _ seq: Int, row: Int = 1, col: Int = 0, letter: String = "G", mark: Int = 0, kind: String = "input",
                replica: String? = nil, stamp: HLCTimestamp? = nil
            ) -> MoveRecord {
                var move = MoveRecord(
                    Move(
                        gameID: game.gameID, replicaID: replica ?? ann.deviceID, authorID: "", seq: seq, timestamp: stamp ?? now,
                        position: at(row, col), letter: letter, cellAuthorID: ann.account.authorID, kind: .input, batchID: "b\(seq)"))
                move.mark = mark
                move.kind = kind
                return move
            }
            let batch = [
                record(1), record(2, row: 9), record(2, row: 0, col: 0), record(2, letter: "g"), record(2, letter: "A B"),
                record(2, mark: 42), record(2, kind: "magic"), record(2, replica: "dev-someone-else"), record(0),
                record(5),
                // One character carrying a thousand combining marks: one "letter", 2 KB.
                record(2, letter: "A" + String(repeating: "\u{301}", count: 1_000)),
                // Unix milliseconds read as a wall clock in the wrong unit: 1970.
                record(2, stamp: HLCTimestamp(wallMillis: server.clock.now / 1000)),
                record(2, col: 1, letter: "R"),
            ]
            let response: PushMovesResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/moves", token: ann.token,
                json: PushMovesRequest(moves: batch))
            let statuses = response.results.map(\.status)
            #expect(statuses == [.saved] + Array(repeating: .rejected, count: 11) + [.saved])
            let messages = response.results.compactMap(\.error?.message)
            #expect(messages.contains { $0.contains("outside the 5×5 grid") })
            #expect(messages.contains { $0.contains("not a letter square") })
            #expect(messages.contains { $0.contains("upper case") })
            #expect(messages.contains { $0.contains("unknown mark code 42") })
            #expect(messages.contains { $0.contains("unknown move kind") })
            #expect(messages.contains { $0.contains("writes only its own moves") })
            #expect(messages.contains { $0.contains("leaves a gap: the next seq") })
            #expect(messages.contains { $0.contains("at most \(SquareText.maximumBytes) bytes") })
            #expect(messages.contains { $0.contains("before the game was created") })
        }
    }

    @Test func aSkewedClockIsRefusedWithTheServersTime() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var device = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            let ahead = try typed(&device, at(1, 0), "G", now: server.clock.now + 5 * 60 * 1000)
            let (status, error) = try await client.failure(
                .post, "/v1/games/\(game.gameID)/moves", token: ann.token,
                json: PushMovesRequest(moves: ahead.map(MoveRecord.init)))
            #expect(status == .conflict && error.error == .clockSkew && error.serverTime == server.clock.now)
            // The client corrects its clock and retries: a fresh replica stamps server time.
            var corrected = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            let retry = try await client.push(ann, game.gameID, try typed(&corrected, at(1, 0), "G", now: error.serverTime!))
            #expect(retry.results.first?.status == .saved)
        }
    }

    @Test func oversizedBatchesAreRefused() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            let move = MoveRecord(
                Move(
                    gameID: game.gameID, replicaID: ann.deviceID, authorID: "", seq: 1,
                    timestamp: HLCTimestamp(wallMillis: server.clock.now), position: at(1, 0), letter: "G",
                    cellAuthorID: ann.account.authorID, kind: .input, batchID: "b"))
            let tooMany = try await client.failure(
                .post, "/v1/games/\(game.gameID)/moves", token: ann.token,
                json: PushMovesRequest(moves: Array(repeating: move, count: 401)))
            #expect(tooMany.0 == .contentTooLarge && tooMany.1.error == .limitExceeded && tooMany.1.message.contains("400"))
            var huge = move
            huge.batchID = String(repeating: "x", count: 3 * 1024 * 1024)
            let tooBig = try await client.failure(.post, "/v1/games/\(game.gameID)/moves", token: ann.token, json: PushMovesRequest(moves: [huge]))
            #expect(tooBig.0 == .contentTooLarge && tooBig.1.error == .limitExceeded)
        }
    }

    @Test func someoneElsesGameAndMissingGames() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let eve = try await client.account("Eve")
            let game = try await client.newGame(ann)
            let (status, error) = try await client.failure(
                .post, "/v1/games/\(game.gameID)/moves", token: eve.token,
                json: PushMovesRequest(moves: []))
            #expect(status == .forbidden && error.error == .forbidden)
            #expect(try await client.failure(.get, "/v1/games/\(game.gameID)/changes", token: eve.token).0 == .forbidden)
            #expect(try await client.failure(.get, "/v1/games/game-missing/changes", token: eve.token).0 == .notFound)
        }
    }

    @Test func changesArePagedWithTokens() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var device = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            var moves: [Move] = []
            for (index, position) in greenLight.letterPositions.prefix(7).enumerated() {
                moves += try typed(&device, position, "Q", now: server.clock.now + Int64(index))
            }
            _ = try await client.push(ann, game.gameID, moves)
            let page: ChangesResponse = try await client.call(.get, "/v1/games/\(game.gameID)/changes?limit=4", token: ann.token)
            #expect(page.changes.count == 4 && page.moreComing && page.token.sequence == 4)
            let rest: ChangesResponse = try await client.call(
                .get, "/v1/games/\(game.gameID)/changes?since=\(page.token.encoded)&limit=100", token: ann.token)
            #expect(rest.changes.map(\.sequence) == [5, 6, 7, 8, 9] && !rest.moreComing)
            let empty: ChangesResponse = try await client.call(.get, "/v1/games/\(game.gameID)/changes?since=\(rest.token.encoded)", token: ann.token)
            #expect(empty.changes.isEmpty && empty.token == rest.token)
            let bad = try await client.failure(.get, "/v1/games/\(game.gameID)/changes?since=garbage", token: ann.token)
            #expect(bad.0 == .badRequest && bad.1.message.contains("change token"))
            let otherZone = ChangeToken(zone: "game-other", sequence: 1).encoded
            #expect(try await client.failure(.get, "/v1/games/\(game.gameID)/changes?since=\(otherZone)", token: ann.token).0 == .badRequest)
        }
    }

    @Test func snapshotsEveryFewMovesAndAJoiningDeviceLoadsSnapshotPlusLaterMoves() async throws {
        let everyFiveMoves: (inout ServerConfiguration) -> Void = { $0.snapshotInterval = 5 }
        try await withServer(everyFiveMoves) { client, server in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var device = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            for (index, position) in greenLight.letterPositions.prefix(12).enumerated() {
                _ = try await client.push(ann, game.gameID, try typed(&device, position, "Q", now: server.clock.now + Int64(index)))
            }
            let joining: SnapshotResponse = try await client.call(.get, "/v1/games/\(game.gameID)/snapshot", token: ann.token)
            let snapshot = try #require(joining.snapshot)
            #expect(snapshot.coverage[ann.deviceID] == 10)
            let (after, _) = try await client.allChanges(ann, game.gameID, after: joining.token)
            #expect(after.count == 2)
            let moves = after.compactMap { if case let .move(record) = $0.record { try? record.move() } else { nil } }
            let rebuilt = GameReplica(
                puzzle: joining.game.puzzle, gameID: game.gameID, replicaID: "tablet", authorID: ann.account.authorID,
                snapshot: snapshot, moves: moves)
            #expect(rebuilt.grid == device.replica.grid)
        }
    }

    @Test func solvingCompletesTheGameAndFreezesIt() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var device = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            let moves = try device.replica.perform(.reveal(.puzzle), wallMillis: server.clock.now)
            let response = try await client.push(ann, game.gameID, moves)
            let completion = try #require(response.completion)
            #expect(completion.kind == .solved && completion.by == ann.account.authorID && completion.at == moves.last!.timestamp)
            var late = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            late.replica.receive(device.replica.journal)
            let (status, error) = try await client.failure(.post, "/v1/games/\(game.gameID)/resign", token: ann.token)
            #expect(status == .forbidden && error.error == .readOnly)
            let list: GameListResponse = try await client.call(.get, "/v1/games", token: ann.token)
            #expect(list.games.first?.completion?.kind == .solved)
            let snapshot: SnapshotResponse = try await client.call(.get, "/v1/games/\(game.gameID)/snapshot", token: ann.token)
            #expect(snapshot.game.completion?.kind == .solved)
            #expect(snapshot.snapshot?.grid == device.replica.grid)
        }
    }

    @Test func resignEndsTheGameAndLaterMovesAreRefused() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var device = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            _ = try await client.push(ann, game.gameID, try typed(&device, at(1, 0), "G", now: server.clock.now))
            let resigned: CompletionRecord = try await client.call(
                .post, "/v1/games/\(game.gameID)/resign", token: ann.token,
                as: CompletionResponse.self
            ).completion
            #expect(resigned.kind == .resigned)
            server.clock.advance(byMillis: 1_000)
            let after = try await client.push(ann, game.gameID, try typed(&device, at(1, 1), "R", now: server.clock.now))
            #expect(after.results.first?.status == .rejected && after.results.first?.error?.error == .readOnly)
        }
    }

    /// Any player shares; the owner sees and revokes every link, a player their own; a link
    /// says who invites to what before an account exists, and dies with its maker's place.
    @Test func anyPlayerSharesAndTheOwnerRevokes() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let cat = try await client.account("Cat")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            let annsLink: InvitationResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/invitations", token: ann.token, json: CreateInvitationRequest(expiresInSeconds: 3_600))
            server.clock.advance(byMillis: 1_000)
            let bobsLink: InvitationResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/invitations", token: bob.token, json: CreateInvitationRequest())

            // The preview needs no account.
            let preview: InvitationPreview = try await client.call(.get, "/v1/invitations/\(bobsLink.token)")
            #expect(preview.title == game.title && preview.invitedBy == "Bob" && preview.players == ["Ann", "Bob"] && !preview.joined)
            let asBob: InvitationPreview = try await client.call(.get, "/v1/invitations/\(bobsLink.token)", token: bob.token)
            #expect(asBob.joined)
            #expect(try await client.failure(.get, "/v1/invitations/not-a-link").0 == .notFound)

            // The owner sees both links, Bob his own; no token is ever listed.
            let annSees: InvitationListResponse = try await client.call(.get, "/v1/games/\(game.gameID)/invitations", token: ann.token)
            #expect(annSees.links.map(\.linkID) == [annsLink.linkID, bobsLink.linkID])
            #expect(annSees.links.map(\.createdByName) == ["Ann", "Bob"] && annSees.links[0].expiresAt == annsLink.expiresAt)
            let bobSees: InvitationListResponse = try await client.call(.get, "/v1/games/\(game.gameID)/invitations", token: bob.token)
            #expect(bobSees.links.map(\.linkID) == [bobsLink.linkID])
            let listed = try await client.send(.get, "/v1/games/\(game.gameID)/invitations", token: ann.token)
            #expect(!String(buffer: listed.body).contains(annsLink.token))
            #expect(try await client.failure(.get, "/v1/games/\(game.gameID)/invitations", token: cat.token).0 == .forbidden)

            // Bob cannot revoke Ann's link; Cat, no player, cannot revoke anything; Ann revokes Bob's.
            #expect(try await client.failure(.delete, "/v1/games/\(game.gameID)/invitations/\(annsLink.linkID)", token: bob.token).0 == .forbidden)
            #expect(try await client.failure(.delete, "/v1/games/\(game.gameID)/invitations/\(bobsLink.linkID)", token: cat.token).0 == .forbidden)
            let _: OKResponse = try await client.call(.delete, "/v1/games/\(game.gameID)/invitations/\(bobsLink.linkID)", token: ann.token)
            let dead = try await client.failure(.get, "/v1/invitations/\(bobsLink.token)")
            #expect(dead.0 == .gone && dead.1.message.contains("revoked"))
            #expect(try await client.failure(.post, "/v1/invitations/\(bobsLink.token)/accept", token: cat.token).0 == .gone)
            #expect(try await client.failure(.delete, "/v1/games/\(game.gameID)/invitations/link-nothing", token: ann.token).0 == .notFound)

            // A link dies with its maker's place in the game; an expired one says so.
            let bobsSecond: InvitationResponse = try await client.call(.post, "/v1/games/\(game.gameID)/invitations", token: bob.token)
            let _: OKResponse = try await client.call(.delete, "/v1/games/\(game.gameID)/participants/\(bob.account.authorID)", token: ann.token)
            let orphan = try await client.failure(.post, "/v1/invitations/\(bobsSecond.token)/accept", token: cat.token)
            #expect(orphan.0 == .gone && orphan.1.message.contains("revoked"))
            #expect(try await client.failure(.post, "/v1/games/\(game.gameID)/invitations", token: bob.token).0 == .forbidden)
            server.clock.advance(byMillis: 3_601_000)
            let expired = try await client.failure(.get, "/v1/invitations/\(annsLink.token)")
            #expect(expired.0 == .gone && expired.1.message.contains("expired"))

            // At most twenty working links at once.
            for _ in 0..<ProtocolLimits.liveInvitationsPerGame {
                let _: InvitationResponse = try await client.call(.post, "/v1/games/\(game.gameID)/invitations", token: ann.token)
            }
            let tooMany = try await client.failure(.post, "/v1/games/\(game.gameID)/invitations", token: ann.token)
            #expect(tooMany.1.error == .limitExceeded && tooMany.1.message.contains("revoke one"))
        }
    }

    /// A game takes at most fifty players.
    @Test func aGameTakesFiftyPlayers() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            let invite: InvitationResponse = try await client.call(.post, "/v1/games/\(game.gameID)/invitations", token: ann.token)
            for number in 1..<ProtocolLimits.maximumPlayersPerGame {
                let player = try await client.account("Player \(number)")
                let _: GameSummary = try await client.call(.post, "/v1/invitations/\(invite.token)/accept", token: player.token)
            }
            let late = try await client.account("Late")
            let refused = try await client.failure(.post, "/v1/invitations/\(invite.token)/accept", token: late.token)
            #expect(refused.1.error == .limitExceeded && refused.1.message.contains("50 players"))
        }
    }

    @Test func sharingInvitationsLeavingAndRemoval() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let cat = try await client.account("Cat")
            let game = try await client.newGame(ann)
            let notOwner = try await client.failure(.post, "/v1/games/\(game.gameID)/invitations", token: bob.token, json: CreateInvitationRequest())
            #expect(notOwner.0 == .forbidden)
            let invite: InvitationResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/invitations", token: ann.token,
                json: CreateInvitationRequest())
            #expect(invite.path == "/join/\(invite.token)" && invite.token.count >= 40)
            let joined: GameSummary = try await client.call(.post, "/v1/invitations/\(invite.token)/accept", token: bob.token)
            #expect(joined.gameID == game.gameID && joined.role == .player)
            let again: GameSummary = try await client.call(.post, "/v1/invitations/\(invite.token)/accept", token: bob.token)
            #expect(again.gameID == game.gameID)
            #expect(try await client.failure(.post, "/v1/invitations/no-such-token/accept", token: cat.token).0 == .notFound)

            // Expired and revoked links.
            let short: InvitationResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/invitations", token: ann.token,
                json: CreateInvitationRequest(expiresInSeconds: 60))
            server.clock.advance(byMillis: 61_000)
            #expect(try await client.failure(.post, "/v1/invitations/\(short.token)/accept", token: cat.token).1.message.contains("expired"))
            let revoked: InvitationResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/invitations", token: ann.token,
                json: CreateInvitationRequest())
            #expect(try await client.failure(.delete, "/v1/invitations/\(revoked.token)", token: bob.token).0 == .forbidden)
            let _: OKResponse = try await client.call(.delete, "/v1/invitations/\(revoked.token)", token: ann.token)
            #expect(try await client.failure(.post, "/v1/invitations/\(revoked.token)/accept", token: cat.token).0 == .gone)

            // Bob plays, then is removed: his game turns read-only and his writes are refused.
            var bobDevice = TestDevice(bob, puzzle: greenLight, gameID: game.gameID)
            #expect(
                try await client.push(bob, game.gameID, try typed(&bobDevice, at(1, 0), "G", now: server.clock.now)).results.first?.status == .saved)
            #expect(
                try await client.failure(.delete, "/v1/games/\(game.gameID)/participants/\(ann.account.authorID)", token: bob.token).0 == .forbidden)
            let _: OKResponse = try await client.call(.delete, "/v1/games/\(game.gameID)/participants/\(bob.account.authorID)", token: ann.token)
            let refused = try await client.failure(
                .post, "/v1/games/\(game.gameID)/moves", token: bob.token,
                json: PushMovesRequest(moves: try typed(&bobDevice, at(1, 1), "R", now: server.clock.now).map(MoveRecord.init)))
            #expect(refused.0 == .forbidden && refused.1.error == .readOnly)
            let readable: ChangesResponse = try await client.call(.get, "/v1/games/\(game.gameID)/changes", token: bob.token)
            #expect(!readable.changes.isEmpty)
            let bobsList: GameListResponse = try await client.call(.get, "/v1/games", token: bob.token)
            #expect(bobsList.games.first?.readOnly == true)
            #expect(try await client.failure(.post, "/v1/invitations/\(invite.token)/accept", token: bob.token).0 == .forbidden)
            let feed: FeedResponse = try await client.call(.get, "/v1/feed", token: bob.token)
            #expect(feed.entries.map(\.state) == [.active, .readOnly])

            // Cat joins and leaves; the owner cannot leave.
            let catInvite: InvitationResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/invitations", token: ann.token,
                json: CreateInvitationRequest())
            let _: GameSummary = try await client.call(.post, "/v1/invitations/\(catInvite.token)/accept", token: cat.token)
            let _: OKResponse = try await client.call(.post, "/v1/games/\(game.gameID)/leave", token: cat.token)
            let catsFeed: FeedResponse = try await client.call(.get, "/v1/feed", token: cat.token)
            #expect(catsFeed.entries.map(\.state) == [.active, .removed])
            let catsList: GameListResponse = try await client.call(.get, "/v1/games", token: cat.token)
            #expect(catsList.games.isEmpty)
            #expect(try await client.failure(.post, "/v1/games/\(game.gameID)/leave", token: ann.token).0 == .forbidden)
            let since: FeedResponse = try await client.call(.get, "/v1/feed?since=\(catsFeed.token.encoded)", token: cat.token)
            #expect(since.entries.isEmpty)
        }
    }

    @Test func rateLimitAnswers429WithRetryAfter() async throws {
        let tight: (inout ServerConfiguration) -> Void = {
            $0.rateLimitBurst = 3
            $0.rateLimitPerSecond = 0.5
        }
        try await withServer(tight) { client, server in
            let ann = try await client.account("Ann")
            for _ in 0..<3 { #expect(try await client.send(.get, "/v1/games", token: ann.token).status == .ok) }
            let limited = try await client.send(.get, "/v1/games", token: ann.token)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] == "2")
            let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: limited.body))
            #expect(body.error == .rateLimited)
            server.clock.advance(byMillis: 2_000)
            #expect(try await client.send(.get, "/v1/games", token: ann.token).status == .ok)
        }
    }

    @Test func sealsAreStoredAsZoneRecords() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            let _: OKResponse = try await client.call(.post, "/v1/games/\(game.gameID)/seals", token: ann.token, json: SealRequest(lastSeq: 0))
            let (changes, _) = try await client.allChanges(ann, game.gameID)
            guard case let .seal(seal) = changes.last?.record else {
                Issue.record("no seal")
                return
            }
            #expect(seal.replicaID == ann.deviceID && seal.lastSeq == 0)
            #expect(
                try await client.failure(.post, "/v1/games/\(game.gameID)/seals", token: ann.token, json: SealRequest(lastSeq: -1)).0 == .badRequest)
        }
    }
}
