import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import CrossmateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CrossmateServer

/// Friends, Decisions (pins and blocks) across an account's devices, and nudges.
@Suite struct SocialTests {
    /// Settings are the account's: any of its devices sets one, every one reads it (last write
    /// wins), and a setting or choice that does not exist is refused with the list.
    @Test func settingsAreTheAccountsOnEveryDevice() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let phone = try await client.linkDevice(of: ann)
            let fresh: SettingsResponse = try await client.call(.get, "/v1/settings", token: ann.token)
            #expect(fresh.settings["autocheck"] == "off" && fresh.keyOptions.skipFilledSquares && !fresh.autocheck)
            #expect(fresh.available.map(\.name) == SolverSettings.all.map(\.name))
            let _: SettingsResponse = try await client.call(
                .put, "/v1/settings", token: ann.token, json: SettingRequest(name: "autocheck", value: "on", writtenAt: 2_000))
            let _: SettingsResponse = try await client.call(
                .put, "/v1/settings", token: phone.token, json: SettingRequest(name: "skipFilled", value: "off", writtenAt: 2_001))
            let stale: SettingsResponse = try await client.call(
                .put, "/v1/settings", token: phone.token, json: SettingRequest(name: "autocheck", value: "off", writtenAt: 1_999))
            #expect(stale.autocheck)
            let onPhone: SettingsResponse = try await client.call(.get, "/v1/settings", token: phone.token)
            #expect(onPhone.autocheck && !onPhone.keyOptions.skipFilledSquares && onPhone.settings["skipFilled"] == "off")
            let (status, body) = try await client.failure(.put, "/v1/settings", token: ann.token, json: SettingRequest(name: "volume", value: "11"))
            #expect(status == .badRequest && body.message.contains("not a setting") && body.message.contains("autocheck"))
            let (choiceStatus, choiceBody) = try await client.failure(
                .put, "/v1/settings", token: ann.token, json: SettingRequest(name: "theme", value: String(repeating: "x", count: 5_00)))
            #expect(choiceStatus == .badRequest && choiceBody.message.contains("system or light or dark") && choiceBody.message.utf8.count < 200)
        }
    }

    @Test func pinsSyncAcrossDevicesLastWriterWinsAndDeletionClears() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let annPhone = try await client.linkDevice(of: ann)
            let bob = try await client.account("Bob")
            let cy = try await client.account("Cy")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            try await client.join(cy, game.gameID, invitedBy: ann)

            // Friends: everyone Ann played with, with colours as she sees them.
            let before: FriendsResponse = try await client.call(.get, "/v1/friends", token: ann.token)
            #expect(before.friends.map(\.displayName).sorted() == ["Bob", "Cy"])
            #expect(before.friends.allSatisfy { $0.gamesTogether == 1 && !$0.blocked && $0.pinned == nil })
            let bobID = bob.account.authorID
            // Ann pins Bob red on her laptop; her phone sees the pin.
            let pinned: FriendsResponse = try await client.call(
                .post, "/v1/decisions", token: ann.token, json: DecisionRequest(kind: "color", key: bobID, value: "0", writtenAt: 1_000))
            #expect(pinned.friends.first { $0.authorID == bobID }?.pinned == 0)
            let onPhone: FriendsResponse = try await client.call(.get, "/v1/friends", token: annPhone.token)
            #expect(onPhone.friends.first { $0.authorID == bobID }?.color == PlayerColors.palette[0].hex)
            // An older write from the phone loses; a newer one wins; a deletion clears the pin
            // and an older write after it does not bring it back.
            let older: FriendsResponse = try await client.call(
                .post, "/v1/decisions", token: annPhone.token, json: DecisionRequest(kind: "color", key: bobID, value: "4", writtenAt: 999))
            #expect(older.friends.first { $0.authorID == bobID }?.pinned == 0)
            let newer: FriendsResponse = try await client.call(
                .post, "/v1/decisions", token: annPhone.token, json: DecisionRequest(kind: "color", key: bobID, value: "4", writtenAt: 1_001))
            #expect(newer.friends.first { $0.authorID == bobID }?.pinned == 4)
            let cleared: FriendsResponse = try await client.call(
                .post, "/v1/decisions", token: ann.token, json: DecisionRequest(kind: "color", key: bobID, deleted: true, writtenAt: 1_002))
            #expect(cleared.friends.first { $0.authorID == bobID }?.pinned == nil)
            let stale: FriendsResponse = try await client.call(
                .post, "/v1/decisions", token: annPhone.token, json: DecisionRequest(kind: "color", key: bobID, value: "7", writtenAt: 1_001))
            #expect(stale.friends.first { $0.authorID == bobID }?.pinned == nil)
            // A preferred colour is Ann's own; pins win even when they collide with it.
            let _: FriendsResponse = try await client.call(.put, "/v1/preferences", token: ann.token, json: PreferencesRequest(color: 2))
            let both: FriendsResponse = try await client.call(
                .post, "/v1/decisions", token: ann.token, json: DecisionRequest(kind: "color", key: bobID, value: "2", writtenAt: 1_003))
            #expect(both.preferredColor == 2 && both.friends.first { $0.authorID == bobID }?.colorIndex == 2)
            // Bad Decisions are refused with the reason.
            let (status, body) = try await client.failure(
                .post, "/v1/decisions", token: ann.token, json: DecisionRequest(kind: "color", key: bobID, value: "9"))
            #expect(status == .badRequest && body.message.contains("palette index"))
            let (selfStatus, _) = try await client.failure(
                .post, "/v1/decisions", token: ann.token, json: DecisionRequest(kind: "block", key: ann.account.authorID))
            #expect(selfStatus == .badRequest)
        }
    }

    @Test func nudgesAreLiveListedRateLimitedAndNeverFromABlockedAccount() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let cy = try await client.account("Cy")
            let game = try await client.newGame(ann)
            try await client.join(bob, game.gameID, invitedBy: ann)
            try await client.join(cy, game.gameID, invitedBy: ann)
            // Cy has blocked Ann.
            let _: FriendsResponse = try await client.call(
                .post, "/v1/decisions", token: cy.token, json: DecisionRequest(kind: "block", key: ann.account.authorID))
            let bobSocket = SocketProbe(port: port, token: bob.token)
            var bobIterator = bobSocket.received.makeAsyncIterator()
            try await bobSocket.subscribe([game.gameID], iterator: &bobIterator)
            let cySocket = SocketProbe(port: port, token: cy.token)
            var cyIterator = cySocket.received.makeAsyncIterator()
            try await cySocket.subscribe([game.gameID], iterator: &cyIterator)

            let sent: NudgeView = try await client.call(
                .post, "/v1/games/\(game.gameID)/nudges", token: ann.token, json: NudgeRequest(message: "come and help with 5-Across"))
            guard case let .nudge(live) = try await bobSocket.next(&bobIterator, where: { if case .nudge = $0 { true } else { false } }) else {
                Issue.record("no nudge")
                return
            }
            #expect(live == sent && live.fromName == "Ann" && live.message == "come and help with 5-Across")
            let bobList: GameListResponse = try await client.call(.get, "/v1/games", token: bob.token)
            #expect(bobList.games.first?.nudges?.map(\.nudgeID) == [sent.nudgeID])
            // Cy blocked Ann: nothing live (her next message is the pong to a later ping) and
            // nothing listed.
            cySocket.send(.ping)
            let first = try await cySocket.next(&cyIterator) { if case .nudge = $0 { true } else if case .pong = $0 { true } else { false } }
            if case .nudge = first { Issue.record("a blocked account's nudge reached Cy") }
            let cyList: GameListResponse = try await client.call(.get, "/v1/games", token: cy.token)
            #expect(cyList.games.first?.nudges == [])
            // The sender does not see her own nudge as a notice.
            let annList: GameListResponse = try await client.call(.get, "/v1/games", token: ann.token)
            #expect(annList.games.first?.nudges == [])
            // Rate limited per sender, with Retry-After.
            var limited: TestResponse?
            for _ in 0..<5 where limited == nil {
                let response = try await client.send(.post, "/v1/games/\(game.gameID)/nudges", token: ann.token, json: NudgeRequest())
                if response.status == .tooManyRequests { limited = response }
            }
            #expect(limited?.headers[.retryAfter].flatMap { Int($0) }.map { $0 >= 1 } == true)
            // A blocked account's invitations cannot be used.
            let other = try await client.newGame(ann)
            let invite: InvitationResponse = try await client.call(
                .post, "/v1/games/\(other.gameID)/invitations", token: ann.token, json: CreateInvitationRequest())
            let (status, refusal) = try await client.failure(.post, "/v1/invitations/\(invite.token)/accept", token: cy.token)
            #expect(status == .forbidden && refusal.message.contains("blocked"))
            await bobSocket.close()
            await cySocket.close()
        }
    }

    @Test func aNewNameReachesEveryGameAndEveryPlayer() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let bob = try await client.account("Bob")
            let first = try await client.newGame(ann)
            let second = try await client.newGame(ann, bundled: "daybreak")
            try await client.join(bob, first.gameID, invitedBy: ann)
            try await client.join(bob, second.gameID, invitedBy: ann)
            let renamed: MeResponse = try await client.call(.put, "/v1/me", token: ann.token, json: RenameRequest(displayName: "  Annie "))
            #expect(renamed.account.displayName == "Annie")
            let me: MeResponse = try await client.call(.get, "/v1/me", token: ann.token)
            #expect(me.account.displayName == "Annie")
            for game in [first, second] {
                let (changes, _) = try await client.allChanges(bob, game.gameID)
                let names = changes.compactMap { change -> String? in
                    if case let .participant(record) = change.record, record.authorID == ann.account.authorID { record.displayName } else { nil }
                }
                #expect(names.last == "Annie")
                let list: GameListResponse = try await client.call(.get, "/v1/games", token: bob.token)
                #expect(list.games.first { $0.gameID == game.gameID }?.players?.contains("Annie") == true)
            }
            let friends: FriendsResponse = try await client.call(.get, "/v1/friends", token: bob.token)
            #expect(friends.friends.map(\.displayName) == ["Annie"])
            let (status, body) = try await client.failure(.put, "/v1/me", token: ann.token, json: RenameRequest(displayName: "  "))
            #expect(status == .badRequest && body.message.contains("display name"))
        }
    }

    /// A finished puzzle takes nobody new: no new link, and a link made before says why it no
    /// longer works (the players are told where to go on together instead).
    @Test func aFinishedGameTakesNoNewInvitations() async throws {
        try await withServer { client, _ in
            let ann = try await client.account("Ann")
            let cat = try await client.account("Cat")
            let game = try await client.newGame(ann)
            let early: InvitationResponse = try await client.call(
                .post, "/v1/games/\(game.gameID)/invitations", token: ann.token, json: CreateInvitationRequest())
            let _: CompletionResponse = try await client.call(.post, "/v1/games/\(game.gameID)/resign", token: ann.token)
            let (status, refusal) = try await client.failure(
                .post, "/v1/games/\(game.gameID)/invitations", token: ann.token, json: CreateInvitationRequest())
            #expect(status.code == 403 || status.code == 409)
            #expect(refusal.message.contains("finished") && refusal.message.contains("next puzzle"))
            let (previewStatus, preview) = try await client.failure(.get, "/v1/invitations/\(early.token)")
            #expect(previewStatus.code == 410 && preview.message.contains("already finished"))
            let (acceptStatus, _) = try await client.failure(.post, "/v1/invitations/\(early.token)/accept", token: cat.token)
            #expect(acceptStatus.code == 410)
        }
    }
}
