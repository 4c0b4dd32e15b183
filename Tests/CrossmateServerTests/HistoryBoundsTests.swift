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

/// What one account can make the server do with a game's history or with what other players
/// wrote, held to bounds: replays come in pages and are assembled once, an opened game's frame
/// fits whatever its chat holds, a player who left hears nothing more, and names of time zones
/// are only the names the system knows.
@Suite struct HistoryBoundsTests {
    typealias Browser = BrowserCommandTests.Browser

    /// A finished game of `count` moves (Ann typing A and B over one square, then Ann resigns).
    static func finishedGame(
        _ client: some TestClientProtocol, _ ann: DeviceSession, moves count: Int, clock: TestClock
    ) async throws
        -> GameSummary
    {
        let game = try await client.newGame(ann)
        var device = TestDevice(ann, puzzle: greenLight, gameID: game.gameID)
        var moves: [Move] = []
        for index in 0..<count {
            moves += try device.replica.perform(.setLetter(at(1, 0), index % 2 == 0 ? "A" : "B", pencil: false), wallMillis: clock.now + Int64(index))
        }
        for start in stride(from: 0, to: moves.count, by: ProtocolLimits.maximumRecordsPerBatch) {
            _ = try await client.push(ann, game.gameID, Array(moves[start..<min(moves.count, start + ProtocolLimits.maximumRecordsPerBatch)]))
        }
        let _: CompletionResponse = try await client.call(.post, "/v1/games/\(game.gameID)/resign", token: ann.token)
        return game
    }

    static func replay(_ browser: inout Browser, _ gameID: String, from: Int) async throws -> ReplayView {
        browser.probe.send(.replay(gameID: gameID, from: from))
        let answer = try await browser.probe.next(&browser.iterator) { message in
            switch message {
            case .replay, .error: true
            default: false
            }
        }
        guard case let .replay(view) = answer else { throw BrowserCommandTests.Unexpected(answer: answer) }
        return view
    }

    static func metric(_ client: some TestClientProtocol, _ name: String) async throws -> Double? {
        let metrics = String(buffer: try await client.send(.get, "/metrics").body)
        return metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }

    /// 2,500 moves: three pages, each at most `ReplayView.pageSteps` steps, assembled once for
    /// both of Ann's devices.
    @Test func aLongReplayComesInPagesAssembledOnce() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let game = try await Self.finishedGame(client, ann, moves: 2_500, clock: server.clock)
            var laptop = Browser(port: port, token: ann.token)
            _ = try await laptop.open(game.gameID)
            var pages: [ReplayView] = []
            for from in [0, 1_000, 2_000] { pages.append(try await Self.replay(&laptop, game.gameID, from: from)) }
            #expect(pages.allSatisfy { $0.ready && $0.total == 2_500 })
            #expect(pages.map(\.from) == [0, 1_000, 2_000])
            #expect(pages.map(\.steps.count) == [1_000, 1_000, 500])
            #expect(pages.allSatisfy { $0.times.count == $0.steps.count })
            #expect(pages.allSatisfy { BoundsTests.size(.replay($0)) < 200 * 1024 })
            #expect(pages.last?.steps.last?.letter == "B")
            // Past the end: an empty page that says how many there are.
            let past = try await Self.replay(&laptop, game.gameID, from: 9_999)
            #expect(past.steps.isEmpty && past.total == 2_500 && past.from == 2_500)

            let phone = try await client.linkDevice(of: ann)
            var other = Browser(port: port, token: phone.token)
            _ = try await other.open(game.gameID)
            #expect(try await Self.replay(&other, game.gameID, from: 0) == pages[0])
            #expect(try await Self.metric(client, "crossmate_replays_assembled_total") == 1)
            await laptop.probe.close()
            await other.probe.close()
        }
    }

    /// Two devices of one account asking for a long replay as fast as their sockets allow do
    /// not hold up another player's moves.
    @Test func replayFloodsLeaveOtherPlayersTyping() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let game = try await Self.finishedGame(client, ann, moves: 8_000, clock: server.clock)
            let phone = try await client.linkDevice(of: ann)
            var flooders: [Browser] = []
            for session in [ann, phone] {
                var browser = Browser(port: port, token: session.token)
                _ = try await browser.open(game.gameID)
                flooders.append(browser)
            }
            // Each floods its whole socket bucket with replay requests, pipelined.
            for flooder in flooders {
                for index in 0..<100 { flooder.probe.send(.replay(gameID: game.gameID, from: (index % 8) * 1_000)) }
            }
            // Meanwhile Bob types in a game of his own, one letter at a time.
            let bob = try await client.account("Bob")
            let own = try await client.newGame(bob)
            var device = TestDevice(bob, puzzle: greenLight, gameID: own.gameID)
            var slowest = Duration.zero
            for column in 0..<10 {
                let move = try device.replica.perform(.setLetter(at(1, column % 5), "Q", pencil: false), wallMillis: server.clock.now)
                let started = ContinuousClock.now
                _ = try await client.push(bob, own.gameID, move)
                slowest = max(slowest, started.duration(to: .now))
            }
            #expect(slowest < .milliseconds(1_000), "a bystander's push took \(slowest) during a replay flood")
            #expect(try await Self.metric(client, "crossmate_replays_assembled_total") == 1)
            for flooder in flooders { await flooder.probe.close() }
        }
    }

    /// A game whose chat holds the longest messages that escape to twice their size still
    /// opens, with the newest messages that fit and nothing over the frame budget.
    @Test func chatCannotMakeAGameImpossibleToOpen() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let game = try await client.newGame(ann, bundled: "daybreak")
            let text = String(repeating: "\\", count: Chat.maximumBytes)
            for index in 0..<MessageView.maximumOpened {
                server.clock.advance(byMillis: 2_100)  // within the chat rate
                let _: PostMessageResponse = try await client.call(
                    .post, "/v1/games/\(game.gameID)/messages", token: ann.token,
                    json: PostMessageRequest(messageID: "m\(index)", text: text, timestamp: HLCTimestamp(wallMillis: server.clock.now)))
            }
            var browser = Browser(port: port, token: ann.token)
            let opened = try await browser.open(game.gameID)
            #expect(BoundsTests.size(.opened(opened)) <= FrameBudget.maximumFrameBytes)
            let shown = try #require(opened.messages)
            #expect(shown.count > 10 && shown.count < MessageView.maximumOpened)
            #expect(shown.last?.key.hasSuffix(":m\(MessageView.maximumOpened - 1)") == true)
            #expect(shown.map(\.index) == Array(0..<shown.count))
            await browser.probe.close()
        }
    }

    /// The conversation's budget holds reactions too: one message with 20,000 reactions
    /// keeps as many kinds as fit.
    @Test func reactionsCountTowardTheConversationBudget() {
        let message = ChatMessage(gameID: "g", authorID: "a", replicaID: "r", messageID: "m", text: "hi", timestamp: HLCTimestamp(wallMillis: 1))
        let authors = (0..<500).map { String(format: "%032d", $0) }
        let tallies = (0..<40).map { Chat.Tally(emoji: "e\($0)", authors: authors) }
        let (messages, kept) = FrameBudget.fitConversation([message], tallies: [message.key: tallies])
        #expect(messages == [message])
        let keptTallies = kept[message.key] ?? []
        #expect(!keptTallies.isEmpty && keptTallies.count < 40)
        let bytes = try! JSONEncoder().encode(MessageReactions(key: message.key, tallies: keptTallies)).count
        #expect(bytes <= FrameBudget.conversationBytes)
    }

    /// A frame that would be over the budget is refused in words, never sent.
    @Test func aFrameOverTheBudgetIsRefusedInWords() {
        let square = SquareView(row: 0, col: 0, letter: "A", pencil: false, verdict: .none, authorID: String(repeating: "a", count: 32))
        let huge = ServerSocketMessage.replay(
            ReplayView(
                gameID: "g", ready: true, waitingFor: 0, steps: Array(repeating: square, count: 20_000), times: Array(repeating: 1, count: 20_000)))
        let frame = FrameBudget.encode(huge)
        #expect(frame.utf8.count < 1_024)
        #expect(frame.contains("limitExceeded"))
    }

    /// A socket past its limit is told so once until its wait is over, not once per message
    /// (every answer would cost what the limit saves).
    @Test func aSocketPastItsLimitIsToldOnce() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let ann = try await client.account("Ann")
            var browser = Browser(port: try #require(client.port), token: ann.token)
            let burst = Int(server.configuration.socketRateLimitBurst)
            for _ in 0..<(burst + 40) { browser.probe.send(.ping) }
            // A push takes the request bucket, not the socket one: answered, it marks the end.
            browser.probe.send(.push(gameID: "game-none", id: 99, moves: []))
            var pongs = 0
            var limited = 0
            _ = try await browser.probe.next(&browser.iterator) { message in
                switch message {
                case .pong: pongs += 1
                case let .error(error) where error.error == .rateLimited: limited += 1
                case .pushFailed(99, _, _, _): return true
                default: break
                }
                return false
            }
            #expect(pongs == burst && limited == 1)
            await browser.probe.close()
        }
    }

    /// A player who leaves from another device: the page they left open is told and hears
    /// nothing more, chat written after the leave included.
    @Test func aPlayerWhoLeftStopsReading() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            let bobPhone = try await client.linkDevice(of: bob)
            var page = Browser(port: port, token: bob.token)
            _ = try await page.open(game.gameID)
            let _: OKResponse = try await client.call(.post, "/v1/games/\(game.gameID)/leave", token: bobPhone.token)
            let closed = try await page.probe.next(&page.iterator) { if case .closed = $0 { true } else { false } }
            #expect(closed == .closed(gameID: game.gameID, reason: "You left this game."))
            // Ann writes; Ann's own page sees it, Bob's hears nothing of it.
            var annPage = Browser(port: port, token: ann.token)
            _ = try await annPage.open(game.gameID)
            _ = try await annPage.applied(game.gameID, BrowserCommand(kind: "chat", text: "secret plan", messageID: "after-leave"))
            _ = try await annPage.applied(game.gameID, BrowserCommandTests.letter(1, 0, "G"))
            page.probe.send(.ping)
            var heard: [ServerSocketMessage] = []
            _ = try await page.probe.next(&page.iterator) { message in
                heard.append(message)
                if case .pong = message { return true } else { return false }
            }
            #expect(!heard.contains { if case .update = $0 { true } else { false } }, "Bob's page heard \(heard)")
            // A command on the closed game is refused as not open.
            let refusal = try await page.refused(game.gameID, BrowserCommandTests.letter(1, 1, "R"))
            #expect(refusal.code == .notOpen)
            await page.probe.close()
            await annPage.probe.close()
        }
    }

    /// Only the names of time zones the system knows: a known name with anything after a NUL
    /// is refused, not echoed or kept.
    @Test func timeZonesAreOnlyKnownNames() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let paris: StatsResponse = try await client.call(.get, "/v1/stats?timeZone=Europe/Paris", token: ann.token)
            #expect(paris.timeZone == "Europe/Paris")
            for bad in ["Europe/Paris%00b", "Europe/Paris%1B", "Europe/Paris%00%00", "Mars/Olympus", String(repeating: "A", count: 65)] {
                let (status, error) = try await client.failure(.get, "/v1/stats?timeZone=\(bad)", token: ann.token)
                #expect(status == .badRequest && error.error == .invalid, "\(bad) was \(status)")
                #expect(!error.message.contains("\u{0}"))
            }
        }
    }
}
