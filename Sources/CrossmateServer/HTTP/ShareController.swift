import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import Hummingbird

/// Sharing: invitation links (unguessable, revocable, optional expiry), accepting one, leaving,
/// and the owner removing a participant (whose devices keep the game read-only).
///
/// Any player in good standing makes links (as DFAC lets everyone share); the owner sees and
/// revokes every link of the game, a player their own. A link stops working when it is revoked,
/// expires, or its maker is no longer in the game.
struct ShareController {
    let store: Store
    let writes: GameWrites
    let games: GameController
    /// Invitation previews, per client address (they need no device).
    let previewLimiter: RateLimiter
    let addresses: ClientAddress
    /// `ServerConfiguration.publicURL`: links are made whole on it.
    let publicURL: String?
    let clock: @Sendable () -> Int64

    /// This controller's routes, for the application's router.
    var routes: RouteCollection<CrossmateRequestContext> {
        let router = RouteCollection(context: CrossmateRequestContext.self)
        router.on(.invite, use: invite)
        router.on(.invitations, use: links)
        router.on(.revokeLink, use: revokeLink)
        router.on(.previewInvitation, use: preview)
        router.on(.revokeInvitation, use: revoke)
        router.on(.acceptInvitation, use: accept)
        router.on(.leave, use: leave)
        router.on(.removePlayer, use: remove)
        return router
    }

    @Sendable func invite(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<CreateInvitationRequest>
    ) async throws -> EditedResponse<InvitationResponse> {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        // The body is optional: no body is a link that does not expire.
        let body = try await incoming.decode(empty: CreateInvitationRequest())
        let (game, _) = try await store.access(gameID, for: device, write: true)
        guard game.completion == nil else {
            throw APIError(.readOnly, "this puzzle is finished, so nobody new can join it; start the next puzzle together and share that one")
        }
        let lifetime = ProtocolLimits.invitationLifetimeSeconds
        if let seconds = body.expiresInSeconds, !lifetime.contains(seconds) {
            throw APIError(
                .invalid,
                "expiresInSeconds must be \(lifetime.lowerBound) to \(lifetime.upperBound) (a year), or left out for a link that does not expire")
        }
        let now = clock()
        let most = ProtocolLimits.liveInvitationsPerGame
        if try await store.liveInvitations(gameID: gameID, now: now, limit: most).count >= most {
            throw APIError(.limitExceeded, "this game already has \(most) working invitation links; revoke one before making another")
        }
        let token = Secrets.token()
        let linkID = Secrets.identifier(prefix: "link")
        // In range, so no overflow: a year of milliseconds added to the server's clock.
        let expiresAt = body.expiresInSeconds.map { now + Int64($0) * 1000 }
        try await store.createInvitation(
            tokenHash: Secrets.hash(token), linkID: linkID, gameID: gameID, createdBy: device.authorID,
            now: now, expiresAt: expiresAt)
        return EditedResponse(
            status: .created,
            response:
                InvitationResponse(
                    token: token, linkID: linkID, gameID: gameID, expiresAt: expiresAt, path: "/join/\(token)",
                    url: publicURL.map { $0 + "/join/\(token)" }, serverTime: clock()))
    }

    /// The game's working links: all of them for the owner, a player's own for a player.
    @Sendable func links(_ request: Request, context: CrossmateRequestContext) async throws -> InvitationListResponse {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let (game, _) = try await store.access(gameID, for: device, write: true)
        let owner = game.ownerID == device.authorID
        let names = Dictionary(
            try await store.participants(gameID: gameID).map { ($0.authorID, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        let live = try await store.liveInvitations(gameID: gameID, now: clock(), limit: ProtocolLimits.liveInvitationsPerGame)
        let links = live.filter { owner || $0.createdBy == device.authorID }.map { link in
            InvitationLink(
                linkID: link.linkID, createdBy: link.createdBy, createdByName: names[link.createdBy] ?? "a former player",
                createdAt: link.createdAt, expiresAt: link.expiresAt, canRevoke: true)
        }
        return InvitationListResponse(links: links, maxLinks: ProtocolLimits.liveInvitationsPerGame, serverTime: clock())
    }

    @Sendable func revokeLink(_ request: Request, context: CrossmateRequestContext) async throws -> OKResponse {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let linkID = try context.parameter(.link)
        let (game, _) = try await store.access(gameID, for: device, write: true)
        let live = try await store.liveInvitations(gameID: gameID, now: clock(), limit: ProtocolLimits.liveInvitationsPerGame)
        if let link = live.first(where: { $0.linkID == linkID }) {
            guard game.ownerID == device.authorID || link.createdBy == device.authorID else {
                throw APIError(.forbidden, "only the game's owner or the link's maker can revoke it")
            }
            _ = try await store.revokeInvitation(gameID: gameID, linkID: linkID)
        } else if game.ownerID == device.authorID {
            // A link that no longer works: revoking it again is harmless, an unknown name is not.
            guard try await store.revokeInvitation(gameID: gameID, linkID: linkID) else {
                throw APIError(.notFound, "this game has no invitation link \(TextRule.quote(linkID))")
            }
        } else {
            throw APIError(.notFound, "you have no working invitation link \(TextRule.quote(linkID)) in this game")
        }
        return OKResponse(serverTime: clock())
    }

    private func invitation(_ context: CrossmateRequestContext) async throws -> (String, StoredInvitation) {
        let token = try context.parameter(.token)
        guard token.utf8.count <= 200, let invitation = try await store.invitation(tokenHash: Secrets.hash(token)) else {
            throw APIError(.notFound, "there is no such invitation; check the link")
        }
        return (token, invitation)
    }

    /// The invitation if it can still be used, else why not (what the preview and accepting say).
    private func usable(_ invitation: StoredInvitation) async throws -> (title: String, ownerID: String, inviter: StoredParticipant) {
        guard invitation.isLive(at: clock()) else {
            throw APIError(
                .gone, invitation.revoked ? "this invitation link was revoked; ask for a new one" : "this invitation has expired; ask for a new link")
        }
        guard let heading = try await store.gameHeading(invitation.gameID) else {
            throw APIError(.notFound, "the game no longer exists")
        }
        guard !heading.finished else {
            throw APIError(.gone, "this puzzle is already finished; ask its players to start the next puzzle together and share that one")
        }
        guard let inviter = try await store.participant(gameID: invitation.gameID, authorID: invitation.createdBy),
            !inviter.revoked, !inviter.hasLeft
        else { throw APIError(.gone, "the player who made this link is no longer in the game; ask another player for a link") }
        return (heading.title, heading.ownerID, inviter)
    }

    /// Who invites whom to what, before anyone makes an account: a link that cannot be used
    /// says so here. No token is needed; without one the request is limited by address.
    @Sendable func preview(_ request: Request, context: CrossmateRequestContext) async throws -> InvitationPreview {
        if context.device == nil {
            let address = "address " + addresses.of(request, context: context)
            try previewLimiter.admit(address, now: clock()) { "too many requests from this address; retry after \($0) s" }
        }
        let (_, invitation) = try await invitation(context)
        let (title, _, inviter) = try await usable(invitation)
        let joined: Bool
        if let device = context.device, let me = try await store.participant(gameID: invitation.gameID, authorID: device.authorID) {
            joined = !me.revoked && !me.hasLeft
        } else {
            joined = false
        }
        return
            InvitationPreview(
                gameID: invitation.gameID, title: title, invitedBy: inviter.displayName,
                players: try await games.players(of: invitation.gameID), expiresAt: invitation.expiresAt, joined: joined,
                serverTime: clock())
    }

    @Sendable func revoke(_ request: Request, context: CrossmateRequestContext) async throws -> OKResponse {
        let device = try context.requireDevice()
        let (token, invitation) = try await invitation(context)
        guard let game = try await store.gameHeading(invitation.gameID),
            game.ownerID == device.authorID || invitation.createdBy == device.authorID
        else {
            throw APIError(.forbidden, "only the game's owner or the link's maker can revoke it")
        }
        try await store.revokeInvitation(tokenHash: Secrets.hash(token))
        return OKResponse(serverTime: clock())
    }

    @Sendable func accept(_ request: Request, context: CrossmateRequestContext) async throws -> GameSummary {
        let device = try context.requireDevice()
        let (_, invitation) = try await invitation(context)
        if let existing = try await store.participant(gameID: invitation.gameID, authorID: device.authorID) {
            guard !existing.revoked else {
                throw APIError(.forbidden, "you were removed from this game by its owner; an invitation cannot undo that")
            }
            // Already in: the link takes them to the game whatever became of it.
            guard let game = try await store.game(invitation.gameID) else { throw APIError(.notFound, "the game no longer exists") }
            return try await games.summary(game, existing)
        }
        _ = try await usable(invitation)
        if try await AccountDecisions.blocked(by: device.authorID, store: store).contains(invitation.createdBy) {
            throw APIError(.forbidden, "you blocked the player who sent this invitation; unblock them under Friends to join")
        }
        if try await games.players(of: invitation.gameID).count >= ProtocolLimits.maximumPlayersPerGame {
            throw APIError(.limitExceeded, "this game has \(ProtocolLimits.maximumPlayersPerGame) players, as many as a game takes")
        }
        guard let game = try await store.game(invitation.gameID) else { throw APIError(.notFound, "the game no longer exists") }
        let participant = ParticipantRecord(gameID: game.gameID, authorID: device.authorID, displayName: device.displayName, role: .player)
        try await writes.setParticipant(participant, feedState: .active)
        guard let joined = try await store.participant(gameID: game.gameID, authorID: device.authorID),
            let refreshed = try await store.game(game.gameID)
        else { throw APIError(.serverError, "joining failed") }
        return try await games.summary(refreshed, joined)
    }

    @Sendable func leave(_ request: Request, context: CrossmateRequestContext) async throws -> OKResponse {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let (game, participant) = try await store.access(gameID, for: device, write: false)
        guard game.ownerID != device.authorID else {
            throw APIError(.forbidden, "the owner cannot leave their own game")
        }
        let record = ParticipantRecord(
            gameID: gameID, authorID: device.authorID, displayName: participant.displayName,
            role: participant.role, revoked: true)
        try await writes.leave(record)
        return OKResponse(serverTime: clock())
    }

    @Sendable func remove(_ request: Request, context: CrossmateRequestContext) async throws -> OKResponse {
        let device = try context.requireDevice()
        let gameID = try context.parameter(.game)
        let author = try context.parameter(.author)
        let (game, _) = try await store.access(gameID, for: device, write: true)
        guard game.ownerID == device.authorID else { throw APIError(.forbidden, "only the game's owner can remove players") }
        guard author != device.authorID else { throw APIError(.invalid, "the owner cannot remove themselves") }
        guard let target = try await store.participant(gameID: gameID, authorID: author) else {
            throw APIError(.notFound, "\(TextRule.quote(author)) is not a player in this game")
        }
        let record = ParticipantRecord(gameID: gameID, authorID: author, displayName: target.displayName, role: target.role, revoked: true)
        try await writes.setParticipant(record, feedState: .readOnly)
        return OKResponse(serverTime: clock())
    }
}
