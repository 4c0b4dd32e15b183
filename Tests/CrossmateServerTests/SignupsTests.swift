import CrossmateProtocol
import CrossmateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CrossmateServer

/// Who may make an account (`Signups`): anyone, only with an invitation (the server's first
/// account excepted: its host's), or no one new; another device always joins an account by a
/// link code. Every refusal says how to get in.
@Suite(.startsProcesses) struct SignupsTests {
    @Test func byInvitationTheFirstAccountIsTheHostsAndEveryLaterOneNeedsALiveInvitation() async throws {
        try await withServer(
            { $0.signups = .invite },
            { client, _ in
                let info: [String: String] = try await client.call(.get, "/v1")
                #expect(info["signups"] == "first")
                let ann = try await client.account("Ann")
                let after: [String: String] = try await client.call(.get, "/v1")
                #expect(after["signups"] == "invite")

                let (status, refusal) = try await client.failure(.post, "/v1/accounts", json: CreateAccountRequest(displayName: "Stranger"))
                #expect(status == .forbidden)
                #expect(refusal.message.contains("only through an invitation") && refusal.message.contains("link code"))
                let (_, unknown) = try await client.failure(
                    .post, "/v1/accounts", json: CreateAccountRequest(displayName: "Guess", invitation: "not-a-token"))
                #expect(unknown.message.contains("unknown, revoked or expired"))

                let game = try await client.newGame(ann)
                let invite: InvitationResponse = try await client.call(
                    .post, "/v1/games/\(game.gameID)/invitations", token: ann.token, json: CreateInvitationRequest())
                let ben: DeviceSession = try await client.call(
                    .post, "/v1/accounts", json: CreateAccountRequest(displayName: "Ben", invitation: invite.token))
                let _: GameSummary = try await client.call(.post, "/v1/invitations/\(invite.token)/accept", token: ben.token)

                // A revoked invitation admits no one more.
                let revoking = try await client.send(.delete, "/v1/invitations/\(invite.token)", token: ann.token)
                #expect((200..<300).contains(revoking.status.code))
                let (_, revoked) = try await client.failure(
                    .post, "/v1/accounts", json: CreateAccountRequest(displayName: "Cy", invitation: invite.token))
                #expect(revoked.message.contains("unknown, revoked or expired"))

                // Ann's second device needs no invitation: a link code.
                _ = try await client.linkDevice(of: ann)
            })
    }

    @Test func closedTakesNoOneNewButLinksDevices() async throws {
        // Ann made her account while sign-ups were open; then the host closed them.
        let open = try TestServer()
        defer { open.removeFiles() }
        let ann = try await open.application().test(.router) { client in try await client.account("Ann") }
        var closed = open
        closed.configuration.signups = .closed
        try await closed.application().test(.router) { client in
            let info: [String: String] = try await client.call(.get, "/v1")
            #expect(info["signups"] == "closed")
            let (status, refusal) = try await client.failure(.post, "/v1/accounts", json: CreateAccountRequest(displayName: "Ben"))
            #expect(status == .forbidden)
            #expect(refusal.message.contains("takes no new accounts") && refusal.message.contains("link code"))
            let second = try await client.linkDevice(of: ann)
            #expect(second.account.authorID == ann.account.authorID)
        }
    }

    @Test func theServerRefusesAnUnknownSignupsSetting() throws {
        let (status, message) = try ServerProcess.refusal(["--port", "0", "--signups", "friends"])
        #expect(status != 0)
        #expect(message.contains("sign-ups are open, invite or closed, not friends"))
    }
}
