import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import Hummingbird

/// Accounts and devices: create an account with its first device, make a one-time link code,
/// and link another device with it.
struct AccountController {
    let state: ServerState

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
    private func limitByAddress(_ context: CrossmateRequestContext) throws {
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if let wait = state.accountLimiter.take(address, now: state.now()) {
            throw APIError(.rateLimited, "too many new accounts or links from this address; retry after \(wait) s", retryAfterSeconds: wait)
        }
    }

    @Sendable func createAccount(_ request: Request, context: CrossmateRequestContext) async throws -> EditedResponse<DeviceSession> {
        try limitByAddress(context)
        let body = try await state.decode(CreateAccountRequest.self, from: request, limit: 16 * 1024)
        let name = try DisplayName.validated(body.displayName)
        let authorID = Secrets.identifier(prefix: "acct")
        let deviceID = Secrets.identifier(prefix: "dev")
        let token = Secrets.token()
        try await state.store.createAccount(
            authorID: authorID, displayName: name, deviceID: deviceID,
            tokenHash: Secrets.hash(token), now: state.now())
        state.logger.info("account created", metadata: ["author": "\(authorID)", "device": "\(deviceID)"])
        return EditedResponse(
            status: .created,
            response:
                DeviceSession(
                    account: AccountInfo(authorID: authorID, displayName: name),
                    deviceID: deviceID, token: token, serverTime: state.now()))
    }

    @Sendable func createLinkCode(_ request: Request, context: CrossmateRequestContext) async throws -> EditedResponse<LinkCodeResponse> {
        let device = try context.requireDevice()
        let code = Secrets.token()
        let expiresAt = state.now() + state.configuration.linkCodeLifetimeMillis
        try await state.store.createLinkCode(
            codeHash: Secrets.hash(code), authorID: device.authorID, issuedBy: device.deviceID, expiresAt: expiresAt)
        return EditedResponse(status: .created, response: LinkCodeResponse(code: code, expiresAt: expiresAt, serverTime: state.now()))
    }

    @Sendable func linkDevice(_ request: Request, context: CrossmateRequestContext) async throws -> EditedResponse<DeviceSession> {
        try limitByAddress(context)
        let body = try await state.decode(LinkDeviceRequest.self, from: request, limit: 16 * 1024)
        let deviceID = Secrets.identifier(prefix: "dev")
        let token = Secrets.token()
        guard body.code.utf8.count <= 200,
            let device = try await state.store.linkDevice(
                codeHash: Secrets.hash(body.code), deviceID: deviceID, tokenHash: Secrets.hash(token), now: state.now())
        else {
            throw APIError(.gone, "this link code is unknown, already used or expired; make a new one on a signed-in device")
        }
        return EditedResponse(
            status: .created,
            response:
                DeviceSession(
                    account: AccountInfo(authorID: device.authorID, displayName: device.displayName),
                    deviceID: deviceID, token: token, serverTime: state.now()))
    }

    /// Renames the account: the name fans out to every game it is in (each game's participant
    /// record is written again, so every device of every player hears of it).
    @Sendable func rename(_ request: Request, context: CrossmateRequestContext) async throws -> MeResponse {
        let device = try context.requireDevice()
        let body = try await state.decode(RenameRequest.self, from: request, limit: 16 * 1024)
        let name = try DisplayName.validated(body.displayName)
        if let wait = state.renameLimiter.take(device.authorID, now: state.now()) {
            throw APIError(.rateLimited, "you renamed yourself a moment ago; you can rename again in \(wait) s", retryAfterSeconds: wait)
        }
        let games = try await state.store.renameAccount(authorID: device.authorID, displayName: name)
        state.devices.rename(authorID: device.authorID, to: name)
        for participant in games {
            let record = ParticipantRecord(
                gameID: participant.gameID, authorID: participant.authorID, displayName: name, role: participant.role,
                revoked: participant.revoked)
            // A rename changes no list's games: the feed stays as it is.
            try await state.writes.setParticipant(record, feedState: participant.revoked ? .readOnly : .active, tellFeed: false)
        }
        return
            MeResponse(account: AccountInfo(authorID: device.authorID, displayName: name), deviceID: device.deviceID, serverTime: state.now())
    }

    @Sendable func me(_ request: Request, context: CrossmateRequestContext) async throws -> MeResponse {
        let device = try context.requireDevice()
        return
            MeResponse(
                account: AccountInfo(authorID: device.authorID, displayName: device.displayName),
                deviceID: device.deviceID, serverTime: state.now())
    }

    @Sendable func listDevices(_ request: Request, context: CrossmateRequestContext) async throws -> DeviceListResponse {
        let device = try context.requireDevice()
        let devices = try await state.store.devices(of: device.authorID).map {
            DeviceInfo(deviceID: $0.deviceID, createdAt: $0.createdAt, current: $0.deviceID == device.deviceID)
        }
        return DeviceListResponse(devices: devices, serverTime: state.now())
    }

    /// Revokes one of the account's devices (a lost phone), or this one (signing out): its token
    /// stops working on every instance and its sockets close.
    @Sendable func revokeDevice(_ request: Request, context: CrossmateRequestContext) async throws -> OKResponse {
        let device = try context.requireDevice()
        let target = try context.parameters.require("device")
        guard try await state.store.revokeDevice(target, of: device.authorID) else {
            throw APIError(.notFound, "this account has no device \(TextRule.quote(target))")
        }
        state.emit(.everyone(.deviceRevoked(deviceID: target)))
        state.logger.info("device revoked", metadata: ["author": "\(device.authorID)", "device": "\(target)"])
        return OKResponse(serverTime: state.now())
    }

    @Sendable func createSocketTicket(_ request: Request, context: CrossmateRequestContext) async throws -> EditedResponse<SocketTicketResponse> {
        let device = try context.requireDevice()
        let ticket = Secrets.token()
        let now = state.now()
        let expiresAt = now + Self.socketTicketLifetimeMillis
        try await state.store.createSocketTicket(ticketHash: Secrets.hash(ticket), deviceID: device.deviceID, now: now, expiresAt: expiresAt)
        return EditedResponse(status: .created, response: SocketTicketResponse(ticket: ticket, expiresAt: expiresAt, serverTime: now))
    }
}
