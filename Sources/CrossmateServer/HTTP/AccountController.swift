import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Hummingbird
import Logging

/// Accounts and devices: create an account with its first device, make a one-time link code,
/// and link another device with it.
struct AccountController {
    let store: Store
    let writes: GameWrites
    /// Devices by token hash: a renamed account's cached devices carry the new name.
    let devices: DeviceCache
    /// Account creation, per client address.
    let accountLimiter: RateLimiter
    let addresses: ClientAddress
    /// Renames, per account: each writes a record into every game the account is in.
    let renameLimiter: RateLimiter
    let linkCodeLimiter = RateLimiter(Limits.linkCode.perAccount!)
    /// Who may make an account, and how long a link code lasts (`ServerConfiguration`).
    let signups: Signups
    let linkCodeLifetimeMillis: Int64
    let logger: Logger
    let clock: @Sendable () -> Int64

    /// This controller's routes, for the application's router.
    var routes: RouteCollection<CrossmateRequestContext> {
        let router = RouteCollection(context: CrossmateRequestContext.self)
        router.on(.createAccount, use: createAccount)
        router.on(.createLinkCode, use: createLinkCode)
        router.on(.linkDevice, use: linkDevice)
        router.on(.me, use: me)
        router.on(.rename, use: rename)
        router.on(.devices, use: listDevices)
        router.on(.revokeDevice, use: revokeDevice)
        router.on(.socketTicket, use: createSocketTicket)
        return router
    }

    /// How long a socket ticket may wait to be used.
    static let socketTicketLifetimeMillis: Int64 = 60_000

    /// Account creation and linking, which need no token, are limited per client address.
    private func limitByAddress(_ request: Request, _ context: CrossmateRequestContext) throws {
        let address = addresses.of(request, context: context)
        try accountLimiter.admit(address, now: clock()) { "too many new accounts or links from this address; retry after \($0) s" }
    }

    @Sendable func createAccount(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<CreateAccountRequest>
    ) async throws -> EditedResponse<DeviceSession> {
        try limitByAddress(request, context)
        let body = try await incoming.decode()
        let name = try DisplayName.validated(body.displayName)
        let firstOnly = try await admit(body.invitation)
        let authorID = Secrets.identifier(prefix: "acct")
        let deviceID = Secrets.identifier(prefix: "dev")
        let token = Secrets.token()
        do {
            try await store.createAccount(
                authorID: authorID, displayName: name, deviceID: deviceID,
                tokenHash: Secrets.hash(token), now: clock(), firstOnly: firstOnly)
        } catch is NotTheFirstAccount {
            throw APIError(.forbidden, Self.inviteOnly)
        }
        if firstOnly {
            logger.notice("the server's first account was made; from now on a new account needs an invitation", metadata: ["author": "\(authorID)"])
        }
        logger.info("account created", metadata: ["author": "\(authorID)", "device": "\(deviceID)"])
        return EditedResponse(
            status: .created,
            response:
                DeviceSession(
                    account: AccountInfo(authorID: authorID, displayName: name),
                    deviceID: deviceID, token: token, serverTime: clock()))
    }

    static let inviteOnly =
        "this server makes new accounts only through an invitation: open the invitation link a player here sent you "
        + "(or `crossmate login --invitation LINK`), or link this device to your account with a link code"

    /// Whether the server's sign-ups (`Signups`) let a new account be made, holding
    /// `invitation`; true when it may be made only as the server's first (its host's, on a
    /// server that takes accounts by invitation and has none yet).
    private func admit(_ invitation: String?) async throws -> Bool {
        switch signups {
        case .open:
            return false
        case .closed:
            throw APIError(
                .forbidden,
                "this server takes no new accounts; to play here on another device, link it to your account with a link code")
        case .invite:
            guard let token = invitation, !token.isEmpty else { return true }
            guard token.utf8.count <= 200, let found = try await store.invitation(tokenHash: Secrets.hash(token)), found.isLive(at: clock())
            else {
                throw APIError(.forbidden, "this invitation is unknown, revoked or expired; ask the player who sent it for a new one")
            }
            return false
        }
    }

    /// A short code (LinkCode) another device types to join the account; it replaces the
    /// account's earlier working code, so an account has one at a time.
    @Sendable func createLinkCode(_ request: Request, context: CrossmateRequestContext) async throws -> EditedResponse<LinkCodeResponse> {
        let device = try context.requireDevice()
        try linkCodeLimiter.admit(device.authorID, now: clock()) { "too many link codes for this account; retry after \($0) s" }
        var random = SystemRandomNumberGenerator()
        let code = LinkCode.make(using: &random)
        let expiresAt = clock() + linkCodeLifetimeMillis
        try await store.createLinkCode(
            codeHash: Secrets.hash(code), authorID: device.authorID, issuedBy: device.deviceID, expiresAt: expiresAt)
        return EditedResponse(status: .created, response: LinkCodeResponse(code: LinkCode.shown(code), expiresAt: expiresAt, serverTime: clock()))
    }

    @Sendable func linkDevice(
        _ request: Request, context: CrossmateRequestContext, body incoming: Incoming<LinkDeviceRequest>
    ) async throws -> EditedResponse<DeviceSession> {
        try limitByAddress(request, context)
        let body = try await incoming.decode()
        let deviceID = Secrets.identifier(prefix: "dev")
        let token = Secrets.token()
        guard let code = LinkCode.normalized(body.code) else {
            throw APIError(.invalid, "a link code is \(LinkCode.length) letters and digits, like K7QM4-XPD2R; make one under “Use on another device”")
        }
        guard
            let device = try await store.linkDevice(
                codeHash: Secrets.hash(code), deviceID: deviceID, tokenHash: Secrets.hash(token), now: clock())
        else {
            throw APIError(.gone, "this link code is unknown, already used or expired; make a new one on a signed-in device")
        }
        return EditedResponse(
            status: .created,
            response:
                DeviceSession(
                    account: AccountInfo(authorID: device.authorID, displayName: device.displayName),
                    deviceID: deviceID, token: token, serverTime: clock()))
    }

    /// Renames the account: the name fans out to every game it is in (each game's participant
    /// record is written again, so every device of every player hears of it).
    @Sendable func rename(_ request: Request, context: CrossmateRequestContext, body incoming: Incoming<RenameRequest>) async throws -> MeResponse {
        let device = try context.requireDevice()
        let body = try await incoming.decode()
        let name = try DisplayName.validated(body.displayName)
        try renameLimiter.admit(device.authorID, now: clock()) { "you renamed yourself a moment ago; you can rename again in \($0) s" }
        let games = try await store.renameAccount(authorID: device.authorID, displayName: name)
        devices.rename(authorID: device.authorID, to: name)
        for participant in games {
            let record = ParticipantRecord(
                gameID: participant.gameID, authorID: participant.authorID, displayName: name, role: participant.role,
                revoked: participant.revoked)
            // A rename changes no list's games: the feed stays as it is.
            try await writes.setParticipant(record, feedState: participant.revoked ? .readOnly : .active, tellFeed: false)
        }
        return
            MeResponse(account: AccountInfo(authorID: device.authorID, displayName: name), deviceID: device.deviceID, serverTime: clock())
    }

    @Sendable func me(_ request: Request, context: CrossmateRequestContext) async throws -> MeResponse {
        let device = try context.requireDevice()
        return
            MeResponse(
                account: AccountInfo(authorID: device.authorID, displayName: device.displayName),
                deviceID: device.deviceID, serverTime: clock())
    }

    @Sendable func listDevices(_ request: Request, context: CrossmateRequestContext) async throws -> DeviceListResponse {
        let device = try context.requireDevice()
        let devices = try await store.devices(of: device.authorID).map {
            DeviceInfo(deviceID: $0.deviceID, createdAt: $0.createdAt, current: $0.deviceID == device.deviceID)
        }
        return DeviceListResponse(devices: devices, serverTime: clock())
    }

    /// Revokes one of the account's devices (a lost phone), or this one (signing out): its token
    /// stops working on every instance and its sockets close.
    @Sendable func revokeDevice(_ request: Request, context: CrossmateRequestContext) async throws -> OKResponse {
        let device = try context.requireDevice()
        let target = try context.parameter(.device)
        guard try await store.revokeDevice(target, of: device.authorID) else {
            throw APIError(.notFound, "this account has no device \(TextRule.quote(target))")
        }
        writes.revoked(deviceID: target)
        logger.info("device revoked", metadata: ["author": "\(device.authorID)", "device": "\(target)"])
        return OKResponse(serverTime: clock())
    }

    @Sendable func createSocketTicket(_ request: Request, context: CrossmateRequestContext) async throws -> EditedResponse<SocketTicketResponse> {
        let device = try context.requireDevice()
        let ticket = Secrets.token()
        let now = clock()
        let expiresAt = now + Self.socketTicketLifetimeMillis
        try await store.createSocketTicket(ticketHash: Secrets.hash(ticket), deviceID: device.deviceID, now: now, expiresAt: expiresAt)
        return EditedResponse(status: .created, response: SocketTicketResponse(ticket: ticket, expiresAt: expiresAt, serverTime: now))
    }
}
