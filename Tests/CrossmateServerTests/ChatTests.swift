import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import CrossmateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CrossmateServer

/// A game's chat through the server: messages are zone records kept once, read as moves are
/// (the account's horizon), and never shown from a blocked account; and the next puzzle
/// started together.
@Suite struct ChatTests {
    func post(
        _ client: some TestClientProtocol, _ session: DeviceSession, _ gameID: String, _ id: String, _ text: String, at millis: Int64? = nil
    ) async throws -> PostMessageResponse {
        try await client.call(
            .post, "/v1/games/\(gameID)/messages", token: session.token,
            json: PostMessageRequest(
                messageID: id, text: text, timestamp: HLCTimestamp(wallMillis: millis ?? 1_800_000_000_000)))
    }

    @Test func messagesAreKeptOnceReadAcrossDevicesAndHiddenWhenBlocked() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let cy = try await client.account("Cy")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            try await client.join(cy, game.gameID, invitedBy: ann)
            let bobPhone = try await client.linkDevice(of: bob)
            // Bob has looked at the game (his horizon is where it stands); Cy blocked Ann.
            let (_, seen) = try await client.allChanges(bob, game.gameID)
            let _: PresenceResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/presence", token: bob.token, json: PresenceRequest(action: "leave", readThrough: seen.sequence))
            let _: FriendsResponse = try await client.call(
                .post, "/v1/decisions", token: cy.token, json: DecisionRequest(kind: "block", key: ann.account.authorID))

            let first = try await post(client, ann, game.gameID, "m1", "  try 17 Across \u{1F440} ")
            #expect(first.message.text == "try 17 Across \u{1F440}" && first.message.authorID == ann.account.authorID)
            #expect(first.message.replicaID == ann.deviceID)
            // Sent again after a lost answer: the same message, the same sequence, nothing new.
            let again = try await post(client, ann, game.gameID, "m1", "a different text")
            #expect(again.sequence == first.sequence && again.message == first.message)
            let second = try await post(client, ann, game.gameID, "m2", "or 3 Down")
            #expect(second.sequence == first.sequence + 1)
            let (changes, token) = try await client.allChanges(bob, game.gameID, after: seen)
            #expect(changes.map(\.record) == [.message(first.message), .message(second.message)])
            #expect(token.sequence == second.sequence)

            // Unread: two for Bob, none for Ann (her own) and none for Cy (blocked Ann).
            func unread(_ session: DeviceSession) async throws -> Int? {
                let list: GameListResponse = try await client.call(.get, "/v1/games", token: session.token)
                return list.games.first { $0.gameID == game.gameID }?.unreadMessages
            }
            #expect(try await unread(bob) == 2)
            #expect(try await unread(ann) == 0)
            #expect(try await unread(cy) == 0)
            // Bob's phone shows the game: the catch-up names the messages, and his laptop's list
            // no longer counts them.
            let entered: PresenceResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/presence", token: bobPhone.token, json: PresenceRequest(action: "enter", readThrough: token.sequence)
            )
            #expect(entered.catchUp == "Ann wrote 2 messages")
            let _: PresenceResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/presence", token: bobPhone.token, json: PresenceRequest(action: "leave", readThrough: token.sequence)
            )
            #expect(try await unread(bob) == 0)
        }
    }

    @Test func aMessageThatBreaksTheRulesIsRefusedInWords() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            let now = game.serverTime
            func refusal(
                _ session: DeviceSession, _ id: String, _ text: String, at millis: Int64? = nil
            ) async throws -> (HTTPResponse.Status, ErrorBody) {
                try await client.failure(
                    .post, "/v1/games/\(game.gameID)/messages", token: session.token,
                    json: PostMessageRequest(messageID: id, text: text, timestamp: HLCTimestamp(wallMillis: millis ?? now)))
            }
            let (escape, escapeBody) = try await refusal(ann, "m1", "hi\u{1B}[2J")
            #expect(escape == .badRequest && escapeBody.message.contains("control characters"))
            let (empty, emptyBody) = try await refusal(ann, "m1", "   ")
            #expect(empty == .badRequest && emptyBody.message.contains("cannot be empty"))
            let long = String(repeating: "é", count: 501)
            let (tooLong, tooLongBody) = try await refusal(ann, "m1", long)
            #expect(tooLong == .contentTooLarge && tooLongBody.message.contains("1000 bytes"))
            #expect(!tooLongBody.message.contains(long))
            let (badID, badIDBody) = try await refusal(ann, String(repeating: "x/", count: 100), "hello")
            #expect(badID == .badRequest && badIDBody.message.contains("messageID") && badIDBody.message.utf8.count < 300)
            let (ahead, aheadBody) = try await refusal(ann, "m1", "hello", at: now + 3_600_000)
            #expect(ahead.code == 409 && aheadBody.error == .clockSkew && aheadBody.serverTime == now)
            // Someone who is not a player cannot write in it.
            let (stranger, strangerBody) = try await refusal(bob, "m1", "hello")
            #expect(stranger == .forbidden && strangerBody.message.contains("not a player"))
            // Rate limited per account, with a wait to say.
            var limited: ErrorBody?
            for index in 0..<Int(Chat.burst) + 5 where limited == nil {
                let response = try await client.send(
                    .post, "/v1/games/\(game.gameID)/messages", token: ann.token,
                    json: PostMessageRequest(messageID: "burst\(index)", text: "hi \(index)", timestamp: HLCTimestamp(wallMillis: now)))
                if response.status == .tooManyRequests { limited = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body)) }
            }
            #expect(limited?.message.contains("you can send again") == true)
        }
    }

    @Test func reactionsDecideByTheLatestAndNameAMessageThatExists() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            let now = game.serverTime
            let said = try await post(client, ann, game.gameID, "m1", "17 Across?", at: now)
            func react(_ session: DeviceSession, _ emoji: String, on: Bool, at millis: Int64, to key: String? = nil) async throws -> TestResponse {
                try await client.send(
                    .post, "/v1/games/\(game.gameID)/reactions", token: session.token,
                    json: PostReactionRequest(messageKey: key ?? said.message.key, emoji: emoji, on: on, timestamp: HLCTimestamp(wallMillis: millis)))
            }
            let given = try JSONDecoder().decode(PostReactionResponse.self, from: Data(buffer: try await react(bob, "👍", on: true, at: now + 2).body))
            #expect(given.reaction.authorID == bob.account.authorID && given.reaction.on)
            // An older "take it back" from another device of Bob's arrives late: it changes nothing.
            let late = try JSONDecoder().decode(PostReactionResponse.self, from: Data(buffer: try await react(bob, "👍", on: false, at: now + 1).body))
            #expect(late.sequence == given.sequence && late.reaction == given.reaction)
            let taken = try JSONDecoder().decode(
                PostReactionResponse.self, from: Data(buffer: try await react(bob, "👍", on: false, at: now + 3).body))
            #expect(taken.sequence > given.sequence && !taken.reaction.on)
            let (changes, _) = try await client.allChanges(ann, game.gameID)
            let reactions = changes.compactMap { if case let .reaction(reaction) = $0.record { reaction } else { nil } }
            #expect(reactions == [taken.reaction])
            let notEmoji = try await react(bob, "lol", on: true, at: now)
            #expect(notEmoji.status == .badRequest && String(buffer: notEmoji.body).contains("one emoji"))
            let nowhere = try await react(bob, "👍", on: true, at: now, to: "dev-x:nothing")
            #expect(nowhere.status == .badRequest && String(buffer: nowhere.body).contains("no message"))
        }
    }

    @Test func theNextPuzzleTakesThePlayersAlongAndTellsTheirSockets() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let cy = try await client.account("Cy")
            let dan = try await client.account("Dan")
            let eve = try await client.account("Eve")
            let game = try await client.newGame(ann)
            for player in [bob, cy, dan] { try await client.join(player, game.gameID, invitedBy: ann) }
            // Cy blocked Bob (who starts the next one); Dan left; Eve was never in it.
            let _: FriendsResponse = try await client.call(
                .post, "/v1/decisions", token: cy.token, json: DecisionRequest(kind: "block", key: bob.account.authorID))
            let _: OKResponse = try await client.call(.post, "/v1/games/\(game.gameID)/leave", token: dan.token)
            let bobSocket = SocketProbe(port: port, token: bob.token)
            var bobIterator = bobSocket.received.makeAsyncIterator()
            try await bobSocket.subscribe([game.gameID], iterator: &bobIterator)

            // The next puzzle follows a finished game.
            let _: CompletionResponse = try await client.call(.post, "/v1/games/\(game.gameID)/resign", token: ann.token)
            let (refused, refusal) = try await client.failure(
                .post, "/v1/games", token: eve.token, json: CreateGameRequest(bundled: "daybreak", with: game.gameID))
            #expect(refused == .forbidden && refusal.message.contains("not a player"))
            let next: GameSummary = try await client.call(
                .post, "/v1/games", token: bob.token, json: CreateGameRequest(bundled: "daybreak", with: game.gameID))
            #expect(next.players == ["Bob", "Ann"])
            // Ann's list has it, as news until she opens it.
            let annList: GameListResponse = try await client.call(.get, "/v1/games", token: ann.token)
            #expect(annList.games.first { $0.gameID == next.gameID }?.unread == true)
            let cyList: GameListResponse = try await client.call(.get, "/v1/games", token: cy.token)
            #expect(!cyList.games.contains { $0.gameID == next.gameID })
            let danList: GameListResponse = try await client.call(.get, "/v1/games", token: dan.token)
            #expect(!danList.games.contains { $0.gameID == next.gameID })

            let annSocket = SocketProbe(port: port, token: ann.token)
            var annIterator = annSocket.received.makeAsyncIterator()
            try await annSocket.subscribe([game.gameID], iterator: &annIterator)
            let _: CompletionResponse = try await client.call(.post, "/v1/games/\(next.gameID)/resign", token: ann.token)
            let third: GameSummary = try await client.call(
                .post, "/v1/games", token: bob.token, json: CreateGameRequest(bundled: "green-light", with: next.gameID))
            guard case let .nextGame(told) = try await annSocket.next(&annIterator, where: { if case .nextGame = $0 { true } else { false } })
            else {
                Issue.record("no nextGame")
                return
            }
            #expect(
                told
                    == NextGameView(
                        fromGameID: next.gameID, gameID: third.gameID, title: "Green Light", byAuthor: bob.account.authorID, byName: "Bob"))
            await bobSocket.close()
            await annSocket.close()
        }
    }

    @Test func aFlagNamesAClueOfThePuzzleAndTheLatestDecides() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            let now = game.serverTime
            func flag(_ number: Int, _ direction: Direction, on: Bool, at millis: Int64) async throws -> TestResponse {
                try await client.send(
                    .post, "/v1/games/\(game.gameID)/flags", token: ann.token,
                    json: PostFlagRequest(number: number, direction: direction, on: on, timestamp: HLCTimestamp(wallMillis: millis)))
            }
            let raised = try JSONDecoder().decode(PostFlagResponse.self, from: Data(buffer: try await flag(1, .across, on: true, at: now).body))
            #expect(raised.flag.authorID == ann.account.authorID && raised.flag.on)
            let stale = try JSONDecoder().decode(PostFlagResponse.self, from: Data(buffer: try await flag(1, .across, on: false, at: now - 5).body))
            #expect(stale.sequence == raised.sequence && stale.flag.on)
            let nowhere = try await flag(42, .down, on: true, at: now)
            #expect(nowhere.status == .badRequest && String(buffer: nowhere.body).contains("no 42 Down"))
            let (changes, _) = try await client.allChanges(ann, game.gameID)
            #expect(changes.contains { $0.record == .flag(raised.flag) })
        }
    }

    /// Stats from the account's finished games, its days in the time zone it names.
    @Test func statsComeFromTheFinishedGames() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let ben = try await client.account("Ben")
            let game = try await client.newGame(ann)
            try await client.join(ben, game.gameID, invitedBy: ann)
            var benDevice = TestDevice(ben, puzzle: greenLight, gameID: game.gameID)
            _ = try await client.push(
                ben, game.gameID, try benDevice.replica.perform(.setLetter(GridPosition(row: 1, col: 0), "G"), wallMillis: server.clock.now))
            // Ann reveals one square, then types the rest: solved, with help (a grid finished by
            // a reveal would not be a solve).
            var device = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            var moves = try device.replica.perform(.reveal(.square(GridPosition(row: 0, col: 1))), wallMillis: server.clock.now + 1)
            for square in greenLight.letterPositions where device.replica.grid.letter(at: square).isEmpty {
                moves += try device.replica.perform(.setLetter(square, greenLight.cell(at: square).solution!), wallMillis: server.clock.now + 2)
            }
            let solved = try await client.push(ann, game.gameID, moves)
            #expect(solved.completion?.kind == .solved)
            let unfinished = try await client.newGame(ann)
            _ = unfinished
            let answer: StatsResponse = try await client.call(.get, "/v1/stats?timeZone=Pacific/Auckland", token: ann.token)
            #expect(answer.stats.finished == 1 && answer.stats.solved == 1 && answer.stats.withReveals == 1 && answer.stats.clean == 0)
            #expect(answer.stats.together.map(\.authorID) == [ben.account.authorID] && answer.names == [ben.account.authorID: "Ben"])
            #expect(answer.stats.currentStreak == 1 && answer.recentDates.count == Stats.recentDays && answer.timeZone == "Pacific/Auckland")
            #expect(answer.stats.bySize.first?.size == "5×5" && answer.gamesRead == 1)
            let (status, refusal) = try await client.failure(.get, "/v1/stats?timeZone=Mars/Olympus_Mons", token: ann.token)
            #expect(status == .badRequest && refusal.message.contains("not one"))
        }
    }
}
