import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateServer
import CrossmateStore
import CrossmateSync
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// What an attack run against a live server found, each fixed and held here: a crash on a big
/// number, a removed player winning access back, a game's existence leaking, tokens that could
/// not be revoked, and pages and files without bounds.
@Suite struct HardeningTests {
    static let extremes: [String] = [
        "9223372036854775807", "-9223372036854775808", "10000000000000000", "-1", "0",
        "18446744073709551616", "1e300", "-0.5",
    ]

    /// Every number a client can send, at the edges of (and beyond) 64 bits: each request is
    /// answered (success or a JSON error, never a 5xx) and the server is still there afterwards.
    @Test func extremeNumbersInEveryFieldAreAnsweredNotCrashed() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            let now = server.clock.now
            func move(_ field: String, _ value: String) -> String {
                var fields = [
                    "seq": "1", "row": "0", "col": "0", "mark": "0", "wallMillis": "\(now)", "counter": "0",
                    "targetSeq": "null", "prevSeqAtCell": "null",
                ]
                fields[field] = value
                return
                    #"{"moves":[{"gameID":"\#(game.gameID)","replicaID":"\#(ann.deviceID)","authorID":"","seq":\#(fields["seq"]!),"timestamp":{"counter":\#(fields["counter"]!),"wallMillis":\#(fields["wallMillis"]!)},"row":\#(fields["row"]!),"col":\#(fields["col"]!),"letter":"A","mark":\#(fields["mark"]!),"cellAuthorID":"\#(ann.account.authorID)","kind":"input","batchID":"b","targetSeq":\#(fields["targetSeq"]!),"prevSeqAtCell":\#(fields["prevSeqAtCell"]!)}]}"#
            }
            var requests: [(HTTPRequest.Method, String, String)] = []
            for value in Self.extremes {
                requests.append((.post, "/v1/games/\(game.gameID)/invitations", #"{"expiresInSeconds":\#(value)}"#))
                requests.append((.post, "/v1/games/\(game.gameID)/seals", #"{"lastSeq":\#(value)}"#))
                requests.append((.get, "/v1/games/\(game.gameID)/changes?limit=\(value)", ""))
                requests.append((.get, "/v1/feed?limit=\(value)", ""))
                for field in ["seq", "row", "col", "mark", "wallMillis", "counter", "targetSeq", "prevSeqAtCell"] {
                    requests.append((.post, "/v1/games/\(game.gameID)/moves", move(field, value)))
                }
            }
            for (method, uri, body) in requests {
                let response = try await client.send(method, uri, token: ann.token, raw: body.isEmpty ? nil : body)
                #expect(response.status.code < 500, "\(method) \(uri) \(body) → \(response.status)")
                if response.status.code >= 400 {
                    let error = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
                    #expect(!error.message.isEmpty)
                }
            }
            let health = try await client.send(.get, "/healthz")
            #expect(health.status == .ok)
            // The one that crashed: a lifetime beyond a year is refused with the range.
            let (status, error) = try await client.failure(
                .post, "/v1/games/\(game.gameID)/invitations", token: ann.token,
                raw: #"{"expiresInSeconds":9223372036854775807}"#)
            #expect(status == .badRequest && error.message.contains("a year"))
        }
    }

    @Test func anInvitationNeedsNoBody() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            let response = try await client.send(.post, "/v1/games/\(game.gameID)/invitations", token: ann.token)
            #expect(response.status == .created)
            let invitation = try JSONDecoder().decode(InvitationResponse.self, from: Data(buffer: response.body))
            #expect(invitation.expiresAt == nil && invitation.path == "/join/\(invitation.token)")
        }
    }

    /// Rex is removed; leaving and accepting the old invitation again must not give him his pen
    /// back, and his devices may not seal either.
    @Test func aRemovedPlayerStaysRemovedThroughLeavingAndInvitations() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let rex = try await client.account("Rex")
            let game = try await client.newGame(ann)
            let invite: InvitationResponse = try await client.call(.post, "/v1/games/\(game.gameID)/invitations", token: ann.token)
            let _: GameSummary = try await client.call(.post, "/v1/invitations/\(invite.token)/accept", token: rex.token)
            let _: OKResponse = try await client.call(.delete, "/v1/games/\(game.gameID)/participants/\(rex.account.authorID)", token: ann.token)
            var device = TestDevice(rex, puzzle: greenLight, gameID: game.gameID)
            let moves = try device.replica.perform(.setLetter(at(1, 0), "G"), wallMillis: server.clock.now)
            let refused = try await client.failure(
                .post, "/v1/games/\(game.gameID)/moves", token: rex.token,
                json: PushMovesRequest(moves: moves.map(MoveRecord.init)))
            #expect(refused.1.error == .readOnly)
            let sealed = try await client.failure(.post, "/v1/games/\(game.gameID)/seals", token: rex.token, json: SealRequest(lastSeq: 0))
            #expect(sealed.1.error == .readOnly)

            let _: OKResponse = try await client.call(.post, "/v1/games/\(game.gameID)/leave", token: rex.token)
            let list: GameListResponse = try await client.call(.get, "/v1/games", token: rex.token)
            #expect(list.games.isEmpty)
            let again = try await client.failure(.post, "/v1/invitations/\(invite.token)/accept", token: rex.token)
            #expect(again.0 == .forbidden && again.1.message.contains("removed"))
            let fresh: InvitationResponse = try await client.call(.post, "/v1/games/\(game.gameID)/invitations", token: ann.token)
            let other = try await client.failure(.post, "/v1/invitations/\(fresh.token)/accept", token: rex.token)
            #expect(other.0 == .forbidden)
            let pushed = try await client.failure(
                .post, "/v1/games/\(game.gameID)/moves", token: rex.token,
                json: PushMovesRequest(moves: moves.map(MoveRecord.init)))
            #expect(pushed.0 == .forbidden)
            let (changes, _) = try await client.allChanges(ann, game.gameID)
            #expect(!changes.contains { if case .move = $0.record { true } else { false } })
        }
    }

    /// The game list comes in pages: every game once, newest first, whatever the page size,
    /// games created in the same millisecond included.
    @Test func theGameListIsPaged() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            var created: [String] = []
            for index in 0..<5 {
                created.append(try await client.newGame(ann).gameID)
                if index == 2 { server.clock.advance(byMillis: 1) }
            }
            var seen: [String] = []
            var after: String?
            for _ in 0..<10 {
                let page: GameListResponse = try await client.call(.get, "/v1/games?limit=2" + (after.map { "&after=\($0)" } ?? ""), token: ann.token)
                #expect(page.games.count <= 2)
                seen += page.games.map(\.gameID)
                guard let next = page.next else { break }
                after = next.encoded
            }
            #expect(seen.count == 5 && Set(seen) == Set(created))
            #expect(Set(seen.prefix(2)) == Set(created.suffix(2)))  // the two created last come first
            let whole: GameListResponse = try await client.call(.get, "/v1/games", token: ann.token)
            #expect(whole.games.map(\.gameID) == seen && whole.next == nil)
            let (status, error) = try await client.failure(.get, "/v1/games?after=not-a-cursor", token: ann.token)
            #expect(status == .badRequest && error.message.contains("cursor"))
        }
    }

    /// The server believes only what a move can prove: a letter passed off as a friend's, a wrong
    /// letter locked in as revealed or marked right, a stranger named as a letter's writer are each
    /// refused; an honest check of a player who has since left is saved.
    @Test func forgedMovesAreRefusedAndHonestOnesKept() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            var bobDevice = TestDevice(bob, puzzle: greenLight, gameID: game.gameID)
            let bobs = try bobDevice.replica.perform(.setLetter(at(1, 1), "X"), wallMillis: server.clock.now)
            #expect(try await client.push(bob, game.gameID, bobs).results.map(\.status) == [.saved])
            let _: OKResponse = try await client.call(.post, "/v1/games/\(game.gameID)/leave", token: bob.token)

            var annDevice = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            annDevice.replica.receive(bobs)
            let now = HLCTimestamp(wallMillis: server.clock.now)
            func forged(_ seq: Int, _ kind: MoveKind, _ letter: String, _ verdict: CellMark.Verdict, by author: String) -> Move {
                Move(
                    gameID: game.gameID, replicaID: ann.deviceID, authorID: ann.account.authorID, seq: seq, timestamp: now,
                    position: at(1, 0), letter: letter, mark: CellMark(verdict: verdict), cellAuthorID: author, kind: kind, batchID: "f\(seq)")
            }
            let forgeries = [
                forged(1, .input, "Q", .none, by: bob.account.authorID),
                forged(1, .reveal, "Q", .revealed, by: ann.account.authorID),
                forged(1, .check, "Q", .checkedRight, by: ann.account.authorID),
                forged(1, .check, "G", .checkedRight, by: "acct-nobody"),
            ]
            let refused = try await client.push(ann, game.gameID, forgeries)
            #expect(refused.results.map(\.status) == Array(repeating: .rejected, count: 4))
            let messages = refused.results.compactMap(\.error?.message)
            #expect(messages[0].contains("typing writes the typist's own letter"))
            #expect(messages[1].contains("cannot be marked revealed") && messages[2].contains("cannot be marked checkedRight"))
            #expect(messages[3].contains("not a player of this game"))

            // Ann checks the word holding Bob's letter: it names Bob, who left, and is believed.
            let check = try annDevice.replica.perform(.check(.square(at(1, 1))), wallMillis: server.clock.now)
            #expect(check.first?.cellAuthorID == bob.account.authorID && check.first?.mark.verdict == .checkedWrong)
            #expect(try await client.push(ann, game.gameID, check).results.map(\.status) == [.saved])
        }
    }

    /// A stranger's move stamped far in the future is refused for who they are, not for their
    /// clock: a clockSkew answer would tell them the game exists.
    @Test func aStrangersFutureMoveIsForbiddenNotClockSkew() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let eve = try await client.account("Eve")
            let game = try await client.newGame(ann)
            // Ann's own push loads the game's projection, as on a busy server.
            var annDevice = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            _ = try await client.push(ann, game.gameID, try annDevice.replica.perform(.setLetter(at(1, 0), "G"), wallMillis: server.clock.now))
            var eveDevice = TestDevice(eve, puzzle: greenLight, gameID: game.gameID)
            let future = try eveDevice.replica.perform(.setLetter(at(1, 1), "R"), wallMillis: server.clock.now + 3_600_000)
            let (status, error) = try await client.failure(
                .post, "/v1/games/\(game.gameID)/moves", token: eve.token,
                json: PushMovesRequest(moves: future.map(MoveRecord.init)))
            #expect(status == .forbidden && error.error == .forbidden && error.serverTime == nil)
        }
    }

    /// A lost phone is revoked from another device; signing out revokes the device itself.
    @Test func devicesAreListedAndRevoked() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let phone = try await client.linkDevice(of: ann)
            let list: DeviceListResponse = try await client.call(.get, "/v1/devices", token: ann.token)
            #expect(Set(list.devices.map(\.deviceID)) == [ann.deviceID, phone.deviceID])
            #expect(list.devices.first { $0.current }?.deviceID == ann.deviceID)
            // Used once, so the phone's token is in the cache when it is revoked.
            let _: MeResponse = try await client.call(.get, "/v1/me", token: phone.token)
            let _: OKResponse = try await client.call(.delete, "/v1/devices/\(phone.deviceID)", token: ann.token)
            #expect(try await client.failure(.get, "/v1/me", token: phone.token).0 == .unauthorized)
            #expect(try await client.failure(.delete, "/v1/devices/\(phone.deviceID)", token: ann.token).0 == .notFound)
            let bob = try await client.account("Bob")
            #expect(try await client.failure(.delete, "/v1/devices/\(ann.deviceID)", token: bob.token).0 == .notFound)
            let _: OKResponse = try await client.call(.delete, "/v1/devices/\(ann.deviceID)", token: ann.token)
            #expect(try await client.failure(.get, "/v1/me", token: ann.token).0 == .unauthorized)
        }
    }

    @Test func accountCreationIsLimitedPerAddress() async throws {
        let threeAccounts: (inout ServerConfiguration) -> Void = { $0.accountRateLimitBurst = 3 }
        try await withServer(threeAccounts) { client, _ in
            for name in ["A", "B", "C"] { _ = try await client.account(name) }
            let response = try await client.send(.post, "/v1/accounts", json: CreateAccountRequest(displayName: "D"))
            #expect(response.status == .tooManyRequests && response.headers[.retryAfter] != nil)
        }
    }

    @Test func displayNamesAreLimitedInBytes() async throws {
        try await withServer { client, _ in
            let marks = "A" + String(repeating: "\u{301}", count: 2_000)
            let (status, error) = try await client.failure(.post, "/v1/accounts", json: CreateAccountRequest(displayName: marks))
            #expect(status == .badRequest && error.message.contains("bytes"))
            #expect(try await client.failure(.post, "/v1/accounts", json: CreateAccountRequest(displayName: "Ann\nBob")).0 == .badRequest)
        }
    }

    /// A page of changes stops at about a megabyte, however few records that is. (Uploads now
    /// cut each clue to 2 KB, so the wordy game is put in the store as one made before that.)
    @Test func aChangesPageIsCappedInBytes() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            var cells = [Cell](repeating: .letter("A"), count: 25)
            cells[6] = .block
            let long = String(repeating: "a long clue ", count: 10_000)
            let puzzle = try Puzzle(
                title: "Wordy", width: 5, height: 5, cells: cells,
                clueTexts: [
                    .across: Dictionary(uniqueKeysWithValues: (1...12).map { ($0, long) }),
                    .down: Dictionary(uniqueKeysWithValues: (1...12).map { ($0, long) }),
                ])
            guard case let .sqlite(path) = server.configuration.storage else { return }
            let store = Store(database: try SQLiteDatabase(path: path))
            let game = GameRecord(gameID: "game-wordy", ownerID: ann.account.authorID, createdAt: server.clock.now, puzzle: puzzle)
            _ = try await store.createGame(
                game, title: "Wordy", owner: ParticipantRecord(gameID: game.gameID, authorID: ann.account.authorID, displayName: "Ann", role: .owner))
            #expect(JSONText.sorted(game).utf8.count > ProtocolLimits.maximumChangesPageBytes)
            let first: ChangesResponse = try await client.call(.get, "/v1/games/\(game.gameID)/changes", token: ann.token)
            #expect(first.changes.count == 1 && first.moreComing)
            let rest: ChangesResponse = try await client.call(.get, "/v1/games/\(game.gameID)/changes?since=\(first.token.encoded)", token: ann.token)
            #expect(rest.changes.count == 1 && !rest.moreComing)
        }
    }

    /// The data directory and the database files are the owner's alone.
    @Test func theDatabaseIsOwnerOnly() async throws {
        var server = try TestServer()
        server.configuration.storage = .sqlite(path: server.directory.appendingPathComponent("nested/crossmate.sqlite").path)
        defer { server.removeFiles() }
        try await server.application().test(.router) { [server] client in
            _ = try await client.account("Ann")
            let base = server.directory.appendingPathComponent("nested")
            func permissions(_ path: String) throws -> Int {
                try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
            }
            #expect(try permissions(base.path) == 0o700)
            for name in ["crossmate.sqlite", "crossmate.sqlite-wal", "crossmate.sqlite-shm"] {
                let path = base.appendingPathComponent(name).path
                #expect(FileManager.default.fileExists(atPath: path), "\(name)")
                #expect(try permissions(path) == 0o600, "\(name)")
            }
        }
    }
}
