import CrossmateProtocol
import CrossmateStore
import Hummingbird

/// Accounts and devices: create an account with its first device, make a one-time link code,
/// and link another device with it.
struct AccountController {
    let state: ServerState

    func addRoutes(to router: Router<CrossmateRequestContext>) {
        router.post("v1/accounts", use: createAccount)
        router.post("v1/devices/link-codes", use: createLinkCode)
        router.post("v1/devices", use: linkDevice)
        router.get("v1/me", use: me)
    }

    @Sendable func createAccount(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let body = try await state.decode(CreateAccountRequest.self, from: request, limit: 16 * 1024)
        let name = body.displayName.trimmingSpaces
        guard (1...ProtocolLimits.maximumDisplayNameLength).contains(name.count) else {
            throw APIError(.invalid, "a display name has 1 to \(ProtocolLimits.maximumDisplayNameLength) characters")
        }
        let authorID = Secrets.identifier(prefix: "acct")
        let deviceID = Secrets.identifier(prefix: "dev")
        let token = Secrets.token()
        try await state.store.createAccount(authorID: authorID, displayName: name, deviceID: deviceID,
                                            tokenHash: Secrets.hash(token), now: state.now())
        state.logger.info("account created", metadata: ["author": "\(authorID)", "device": "\(deviceID)"])
        return try ServerState.json(DeviceSession(account: AccountInfo(authorID: authorID, displayName: name),
                                                  deviceID: deviceID, token: token, serverTime: state.now()), status: .created)
    }

    @Sendable func createLinkCode(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let code = Secrets.token()
        let expiresAt = state.now() + state.configuration.linkCodeLifetimeMillis
        try await state.store.createLinkCode(codeHash: Secrets.hash(code), authorID: device.authorID, expiresAt: expiresAt)
        return try ServerState.json(LinkCodeResponse(code: code, expiresAt: expiresAt), status: .created)
    }

    @Sendable func linkDevice(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let body = try await state.decode(LinkDeviceRequest.self, from: request, limit: 16 * 1024)
        let deviceID = Secrets.identifier(prefix: "dev")
        let token = Secrets.token()
        guard body.code.count <= 200, let device = try await state.store.linkDevice(
            codeHash: Secrets.hash(body.code), deviceID: deviceID, tokenHash: Secrets.hash(token), now: state.now()) else {
            throw APIError(.gone, "this link code is unknown, already used or expired; make a new one on a signed-in device")
        }
        return try ServerState.json(DeviceSession(account: AccountInfo(authorID: device.authorID, displayName: device.displayName),
                                                  deviceID: deviceID, token: token, serverTime: state.now()), status: .created)
    }

    @Sendable func me(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        return try ServerState.json(AccountInfo(authorID: device.authorID, displayName: device.displayName))
    }
}
