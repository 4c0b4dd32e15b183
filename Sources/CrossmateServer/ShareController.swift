import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import Hummingbird

/// Sharing: invitation links (unguessable, revocable, optional expiry), accepting one, leaving,
/// and the owner removing a participant (whose devices keep the game read-only).
struct ShareController {
    let state: ServerState
    let games: GameController

    func addRoutes(to router: Router<CrossmateRequestContext>) {
        router.post("v1/games/:game/invitations", use: invite)
        router.delete("v1/invitations/:token", use: revoke)
        router.post("v1/invitations/:token/accept", use: accept)
        router.post("v1/games/:game/leave", use: leave)
        router.delete("v1/games/:game/participants/:author", use: remove)
    }

    @Sendable func invite(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let gameID = try context.parameters.require("game")
        // The body is optional: no body is a link that does not expire.
        let body = try await state.decode(CreateInvitationRequest.self, from: request, limit: 16 * 1024, empty: CreateInvitationRequest())
        let (game, _) = try await state.access(gameID, for: device, write: true)
        guard game.ownerID == device.authorID else { throw APIError(.forbidden, "only the game's owner can invite players") }
        let lifetime = ProtocolLimits.invitationLifetimeSeconds
        if let seconds = body.expiresInSeconds, !lifetime.contains(seconds) {
            throw APIError(
                .invalid,
                "expiresInSeconds must be \(lifetime.lowerBound) to \(lifetime.upperBound) (a year), or left out for a link that does not expire")
        }
        let token = Secrets.token()
        let now = state.now()
        // In range, so no overflow: a year of milliseconds added to the server's clock.
        let expiresAt = body.expiresInSeconds.map { now + Int64($0) * 1000 }
        try await state.store.createInvitation(
            tokenHash: Secrets.hash(token), gameID: gameID, createdBy: device.authorID,
            now: now, expiresAt: expiresAt)
        return try ServerState.json(
            InvitationResponse(
                token: token, gameID: gameID, expiresAt: expiresAt, path: "/join/\(token)",
                serverTime: state.now()), status: .created)
    }

    private func invitation(_ context: CrossmateRequestContext) async throws -> (String, StoredInvitation) {
        let token = try context.parameters.require("token")
        guard token.utf8.count <= 200, let invitation = try await state.store.invitation(tokenHash: Secrets.hash(token)) else {
            throw APIError(.notFound, "there is no such invitation; check the link")
        }
        return (token, invitation)
    }

    @Sendable func revoke(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let (token, invitation) = try await invitation(context)
        guard let game = try await state.store.game(invitation.gameID), game.ownerID == device.authorID else {
            throw APIError(.forbidden, "only the game's owner can revoke its invitations")
        }
        try await state.store.revokeInvitation(tokenHash: Secrets.hash(token))
        return try ServerState.json(OKResponse(serverTime: state.now()))
    }

    @Sendable func accept(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let (_, invitation) = try await invitation(context)
        guard !invitation.revoked else { throw APIError(.gone, "this invitation was revoked by the game's owner") }
        if let expiresAt = invitation.expiresAt, expiresAt <= state.now() {
            throw APIError(.gone, "this invitation has expired; ask the owner for a new link")
        }
        guard let game = try await state.store.game(invitation.gameID) else { throw APIError(.notFound, "the game no longer exists") }
        if try await SocialController.blocked(by: device.authorID, store: state.store).contains(invitation.createdBy) {
            throw APIError(.forbidden, "you blocked the player who sent this invitation; unblock them under Friends to join")
        }
        if let existing = try await state.store.participant(gameID: game.gameID, authorID: device.authorID) {
            guard !existing.revoked else {
                throw APIError(.forbidden, "you were removed from this game by its owner; an invitation cannot undo that")
            }
            return try ServerState.json(try await games.summary(game, existing))
        }
        let participant = ParticipantRecord(gameID: game.gameID, authorID: device.authorID, displayName: device.displayName, role: .player)
        let sequence = try await state.store.setParticipant(participant, feedState: .active)
        await state.recordStored(game: game.gameID, sequence: sequence)
        await state.fanout.publish(.feed(authorID: device.authorID, sequence: try await state.store.feedSequence(authorID: device.authorID)))
        guard let joined = try await state.store.participant(gameID: game.gameID, authorID: device.authorID),
            let refreshed = try await state.store.game(game.gameID)
        else { throw APIError(.serverError, "joining failed") }
        return try ServerState.json(try await games.summary(refreshed, joined))
    }

    @Sendable func leave(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let gameID = try context.parameters.require("game")
        let (game, participant) = try await state.access(gameID, for: device, write: false)
        guard game.ownerID != device.authorID else {
            throw APIError(.forbidden, "the owner cannot leave their own game")
        }
        let record = ParticipantRecord(
            gameID: gameID, authorID: device.authorID, displayName: participant.displayName,
            role: participant.role, revoked: true)
        let sequence = try await state.store.removeParticipant(record)
        state.hub.dropSubscriptions(authorID: device.authorID, game: gameID)
        await state.recordStored(game: gameID, sequence: sequence)
        await state.fanout.publish(.feed(authorID: device.authorID, sequence: try await state.store.feedSequence(authorID: device.authorID)))
        return try ServerState.json(OKResponse(serverTime: state.now()))
    }

    @Sendable func remove(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let gameID = try context.parameters.require("game")
        let author = try context.parameters.require("author")
        let (game, _) = try await state.access(gameID, for: device, write: true)
        guard game.ownerID == device.authorID else { throw APIError(.forbidden, "only the game's owner can remove players") }
        guard author != device.authorID else { throw APIError(.invalid, "the owner cannot remove themselves") }
        guard let target = try await state.store.participant(gameID: gameID, authorID: author) else {
            throw APIError(.notFound, "\(TextRule.quote(author)) is not a player in this game")
        }
        let record = ParticipantRecord(gameID: gameID, authorID: author, displayName: target.displayName, role: target.role, revoked: true)
        let sequence = try await state.store.setParticipant(record, feedState: .readOnly)
        await state.recordStored(game: gameID, sequence: sequence)
        await state.fanout.publish(.feed(authorID: author, sequence: try await state.store.feedSequence(authorID: author)))
        return try ServerState.json(OKResponse(serverTime: state.now()))
    }
}
