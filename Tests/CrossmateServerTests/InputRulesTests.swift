import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import CrossmateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CrossmateServer

/// Rules the server holds every player's input to, found loose from outside: chat stamped
/// before its game, commands without a time of typing, link codes that read as options, flags
/// of blocked accounts, and a finished game's stats worked out once.
@Suite struct InputRulesTests {
    typealias Browser = BrowserCommandTests.Browser

    /// Messages, reactions and flags are held to the rule moves are: not stamped before their
    /// game (a message stamped 1970 sorted first in the conversation).
    @Test func chatIsNotStampedBeforeItsGame() async throws {
        try await withServer { client, server in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            for millis: Int64 in [0, 1_000, server.clock.now - 24 * 3_600_000] {
                let (status, error) = try await client.failure(
                    .post, "/v1/games/\(game.gameID)/messages", token: ann.token,
                    json: PostMessageRequest(messageID: "old\(millis)", text: "first!", timestamp: HLCTimestamp(wallMillis: millis)))
                #expect(status == .badRequest && error.error == .invalid && error.message.contains("before the game was created"))
                let (flagStatus, _) = try await client.failure(
                    .post, "/v1/games/\(game.gameID)/flags", token: ann.token,
                    json: PostFlagRequest(number: 1, direction: .across, on: true, timestamp: HLCTimestamp(wallMillis: millis)))
                #expect(flagStatus == .badRequest)
            }
            let (changes, _) = try await client.allChanges(ann, game.gameID)
            #expect(!changes.contains { if case .message = $0.record { true } else { false } })
            let kept: PostMessageResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/messages", token: ann.token,
                json: PostMessageRequest(messageID: "now", text: "hi", timestamp: HLCTimestamp(wallMillis: server.clock.now)))
            #expect(kept.message.text == "hi")
            // Something visible: marks alone are not.
            let (status, error) = try await client.failure(
                .post, "/v1/games/\(game.gameID)/messages", token: ann.token,
                json: PostMessageRequest(messageID: "marks", text: "\u{034F}\u{034F}\u{034F}", timestamp: HLCTimestamp(wallMillis: server.clock.now)))
            #expect(status == .badRequest && error.message.contains("visible"))
            let (reactionStatus, _) = try await client.failure(
                .post, "/v1/games/\(game.gameID)/reactions", token: ann.token,
                json: PostReactionRequest(
                    messageKey: kept.message.key, emoji: "👍" + String(repeating: "\u{301}", count: 14), on: true,
                    timestamp: HLCTimestamp(wallMillis: server.clock.now)))
            #expect(reactionStatus == .badRequest)
        }
    }

    /// A command without the time it was typed cannot be told from a new one when sent again
    /// after a restart, so it is refused, and nothing is performed.
    @Test func aCommandWithoutItsTimeIsRefused() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var browser = Browser(port: try #require(client.port), token: ann.token)
            _ = try await browser.open(game.gameID)
            let answer = try await BoundsTests.send(&browser, game.gameID, id: 1, typedAt: nil, BrowserCommandTests.letter(1, 0, "G"))
            guard case let .refused(refusal) = answer else { throw BrowserCommandTests.Unexpected(answer: answer) }
            #expect(refusal.code == .invalid && refusal.reason.contains("typedAt"))
            let (changes, _) = try await client.allChanges(ann, game.gameID)
            #expect(!changes.contains { if case .move = $0.record { true } else { false } })
            await browser.probe.close()
        }
    }

    /// No secret starts with "-" or "_": a link code is typed after `crossmate link`, where a
    /// leading "-" read as an option (about 1 in 32 codes).
    @Test func noSecretReadsAsAnOption() {
        for _ in 0..<5_000 {
            let token = Secrets.token()
            #expect(token.first != "-" && token.first != "_", "\(token)")
            #expect(token.count == 43)
        }
    }

    /// A clue flag of an account the viewer blocked does not show, as its messages do not.
    @Test func aBlockedAccountsFlagsDoNotShow() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            for (number, direction) in [(1, Direction.across), (1, .down)] {
                let _: PostFlagResponse = try await client.call(
                    .post, "/v1/games/\(game.gameID)/flags", token: bob.token,
                    json: PostFlagRequest(number: number, direction: direction, on: true, timestamp: HLCTimestamp(wallMillis: server.clock.now)))
            }
            var before = Browser(port: try #require(client.port), token: ann.token)
            #expect(try await before.open(game.gameID).flags?.count == 2)
            await before.probe.close()
            let _: FriendsResponse = try await client.call(
                .post, "/v1/decisions", token: ann.token, json: DecisionRequest(kind: "block", key: bob.account.authorID))
            // Opening again reads the account's decisions again.
            var after = Browser(port: try #require(client.port), token: ann.token)
            #expect(try await after.open(game.gameID).flags ?? [] == [])
            await after.probe.close()
        }
    }

    /// A second Ana in a game is told apart from the first wherever the server names players:
    /// the roster (and so chat) and the next-puzzle notice.
    @Test func twoPlayersNeverShareAName() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let ana = try await client.account("Ana")
            let other = try await client.account("ana")
            let ben = try await client.account("Ben")
            let game = try await client.newGame(ben)
            try await client.join(ana, game.gameID, invitedBy: ben)
            try await client.join(other, game.gameID, invitedBy: ben)
            var page = Browser(port: try #require(client.port), token: ben.token)
            let opened = try await page.open(game.gameID)
            let names = Dictionary(uniqueKeysWithValues: opened.players.map { ($0.authorID, $0.displayName) })
            #expect(names[ana.account.authorID] == "Ana ·\(ana.account.authorID.suffix(4))")
            #expect(names[other.account.authorID] == "ana ·\(other.account.authorID.suffix(4))")
            #expect(names[ben.account.authorID] == "Ben")
            await page.probe.close()
            let _: CompletionResponse = try await client.call(.post, "/v1/games/\(game.gameID)/resign", token: ben.token)
            let next: GameSummary = try await client.call(
                .post, "/v1/games", token: ben.token, json: CreateGameRequest(bundled: "daybreak", with: game.gameID))
            #expect(Set(next.players ?? []) == ["Ben", "Ana ·\(ana.account.authorID.suffix(4))", "ana ·\(other.account.authorID.suffix(4))"])
        }
    }

    /// The next puzzle together follows a finished game (it moved other players' open pages out
    /// of a game in progress), and an account starts a few, then one a minute.
    @Test func theNextPuzzleFollowsAFinishedGameAtItsOwnRate() async throws {
        try await withServer { client, server in
            let ana = try await client.account("Ana")
            let ben = try await client.account("Ben")
            let game = try await client.newGame(ana)
            try await client.join(ben, game.gameID, invitedBy: ana)
            let (early, refusal) = try await client.failure(
                .post, "/v1/games", token: ana.token, json: CreateGameRequest(bundled: "daybreak", with: game.gameID))
            #expect(early == .badRequest && refusal.message.contains("follows a finished game"))
            let _: CompletionResponse = try await client.call(.post, "/v1/games/\(game.gameID)/resign", token: ana.token)
            let burst = Int(Limits.nextGame.perAccount!.burst)
            for _ in 0..<burst {
                let _: GameSummary = try await client.call(
                    .post, "/v1/games", token: ana.token, json: CreateGameRequest(bundled: "daybreak", with: game.gameID))
            }
            let (limited, wait) = try await client.failure(
                .post, "/v1/games", token: ana.token, json: CreateGameRequest(bundled: "daybreak", with: game.gameID))
            #expect(limited == .tooManyRequests && wait.error == .rateLimited)
            // Ben is in Ana's games once per start, no more.
            let list: GameListResponse = try await client.call(.get, "/v1/games", token: ben.token)
            #expect(list.games.count == burst + 1)
            server.clock.advance(byMillis: 60_000)
            let _: GameSummary = try await client.call(
                .post, "/v1/games", token: ana.token, json: CreateGameRequest(bundled: "daybreak", with: game.gameID))
        }
    }

    /// What a finished game contributes to stats is kept as it finishes: asking for stats does
    /// not read the game's history again, and says the same.
    @Test func aFinishedGamesStatsAreKeptAsItFinishes() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.router) { client in
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann)
            var device = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
            _ = try await client.push(
                ann, game.gameID, try device.replica.perform(.setLetter(GridPosition(row: 1, col: 0), "G"), wallMillis: server.clock.now))
            let _: CompletionResponse = try await client.call(.post, "/v1/games/\(game.gameID)/resign", token: ann.token)
            let store = Store(database: try SQLiteDatabase(path: server.directory.appendingPathComponent("crossmate.sqlite").path))
            try await eventually("the finished game's stats are kept") { try await store.finishedGames([game.gameID])[game.gameID] != nil }
            let kept = try #require(try await store.finishedGames([game.gameID])[game.gameID])
            #expect(kept.players == [ann.account.authorID] && !kept.solved && kept.width == 5)
            let answer: StatsResponse = try await client.call(.get, "/v1/stats?timeZone=UTC", token: ann.token)
            #expect(answer.stats.finished == 1 && answer.stats.solved == 0 && answer.gamesRead == 1)
        }
    }
}
