import AsyncHTTPClient
import CrossmateProtocol
import CrossmateSync
import Foundation
import NIOCore
import NIOHTTP1

/// Why a request to the server did not succeed, in words a person can act on.
public enum ServerFailure: Error, Sendable, CustomStringConvertible {
    /// The server answered with an error: its JSON body, the HTTP status and any `Retry-After`.
    case refused(ErrorBody, status: Int, retryAfterSeconds: Int?)
    /// The server could not be reached (or the connection dropped before an answer).
    case unreachable(String)
    /// The server answered something that is not the protocol's JSON.
    case unreadable(String)

    public var description: String {
        switch self {
        // No brackets inside: a caller puts this after its own words ("offline: …").
        case let .refused(body, status, _): "the server refused with \(status) \(body.error.rawValue): \(body.message)"
        case let .unreachable(reason): "the server cannot be reached: \(reason)"
        case let .unreadable(reason): "the server's answer cannot be read: \(reason)"
        }
    }

    /// Worth trying again later: the network, a throttle, or the server's own trouble.
    public var isTransient: Bool {
        switch self {
        case .unreachable: true
        case let .refused(body, status, _): body.error == .rateLimited || status >= 500
        case .unreadable: false
        }
    }

    public var errorBody: ErrorBody? {
        if case let .refused(body, _, _) = self { body } else { nil }
    }
}

/// The server's HTTP API as a device calls it: one method per route, typed requests and
/// answers, the device's bearer token in the header (never in the URL).
public struct ServerAPI: Sendable {
    public let baseURL: String
    public var token: String?
    /// Every answer's `serverTime` is reported here, with the local time it arrived.
    let observeServerTime: @Sendable (Int64) -> Void
    private let client: HTTPClient
    private let timeout: TimeAmount

    public init(
        baseURL: String, token: String? = nil, client: HTTPClient = ServerAPI.sharedClient, timeout: Duration = .seconds(20),
        observeServerTime: @escaping @Sendable (Int64) -> Void = { _ in }
    ) {
        var base = baseURL.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        // `localhost:8080` means the plain-HTTP server there (the scheme is what people leave out).
        if !base.contains("://") { base = "http://" + base }
        self.baseURL = base
        self.token = token
        self.client = client
        self.timeout = .nanoseconds(timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        self.observeServerTime = observeServerTime
    }

    /// The WebSocket's URL on this server.
    public var socketURL: String {
        (baseURL.hasPrefix("https://") ? "wss://" + baseURL.dropFirst(8) : "ws://" + baseURL.dropFirst(7)) + APIRoute.socket.path()
    }

    /// One HTTP client for every device in the process. A refused or failed connection is
    /// reported at once (the engine has its own backoff), rather than retried until the
    /// request's deadline, so an offline command says so in a moment, not after 20 s.
    public static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        configuration.tlsConfiguration = ClientTLS.configuration
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    // MARK: Routes

    public func createAccount(displayName: String, invitation: String? = nil) async throws(ServerFailure) -> DeviceSession {
        try await call(.createAccount, body: CreateAccountRequest(displayName: displayName, invitation: invitation))
    }

    public func createLinkCode() async throws(ServerFailure) -> LinkCodeResponse {
        try await call(.createLinkCode)
    }

    public func linkDevice(code: String) async throws(ServerFailure) -> DeviceSession {
        try await call(.linkDevice, body: LinkDeviceRequest(code: code))
    }

    /// Revokes one of the account's devices (this one, to sign out): its token stops working.
    public func revokeDevice(_ deviceID: String) async throws(ServerFailure) -> OKResponse {
        try await call(.revokeDevice, deviceID)
    }

    public func me() async throws(ServerFailure) -> MeResponse {
        try await call(.me)
    }

    public func games(after cursor: GameListCursor? = nil) async throws(ServerFailure) -> GameListResponse {
        try await call(.games, query: cursor.map { "?after=\($0.encoded)" } ?? "")
    }

    public func createGame(_ request: CreateGameRequest) async throws(ServerFailure) -> GameSummary {
        try await call(.createGame, body: request)
    }

    public func push(gameID: String, moves: [MoveRecord]) async throws(ServerFailure) -> PushMovesResponse {
        try await call(.pushMoves, gameID, body: PushMovesRequest(moves: moves))
    }

    public func changes(gameID: String, since token: ChangeToken?, limit: Int = 1_000) async throws(ServerFailure) -> ChangesResponse {
        try await call(.changes, gameID, query: "?limit=\(limit)" + (token.map { "&since=\($0.encoded)" } ?? ""))
    }

    public func snapshot(gameID: String) async throws(ServerFailure) -> SnapshotResponse {
        try await call(.snapshot, gameID)
    }

    public func seal(gameID: String, lastSeq: Int) async throws(ServerFailure) -> OKResponse {
        try await call(.seal, gameID, body: SealRequest(lastSeq: lastSeq))
    }

    public func resign(gameID: String) async throws(ServerFailure) -> CompletionResponse {
        try await call(.resign, gameID)
    }

    public func pause(gameID: String) async throws(ServerFailure) -> PauseResponse {
        try await call(.pause, gameID)
    }

    public func invite(gameID: String, expiresInSeconds: Int? = nil) async throws(ServerFailure) -> InvitationResponse {
        try await call(.invite, gameID, body: CreateInvitationRequest(expiresInSeconds: expiresInSeconds))
    }

    public func revokeInvitation(token: String) async throws(ServerFailure) -> OKResponse {
        try await call(.revokeInvitation, token)
    }

    public func leave(gameID: String) async throws(ServerFailure) -> OKResponse {
        try await call(.leave, gameID)
    }

    public func accept(invitation token: String) async throws(ServerFailure) -> GameSummary {
        try await call(.acceptInvitation, token)
    }

    public func friends() async throws(ServerFailure) -> FriendsResponse {
        try await call(.friends)
    }

    public func decide(_ request: DecisionRequest) async throws(ServerFailure) -> FriendsResponse {
        try await call(.decide, body: request)
    }

    public func preferences(_ request: PreferencesRequest) async throws(ServerFailure) -> FriendsResponse {
        try await call(.preferences, body: request)
    }

    public func nudge(gameID: String, _ request: NudgeRequest) async throws(ServerFailure) -> NudgeView {
        try await call(.nudge, gameID, body: request)
    }

    public func postMessage(gameID: String, _ request: PostMessageRequest) async throws(ServerFailure) -> PostMessageResponse {
        try await call(.postMessage, gameID, body: request)
    }

    /// The account's stats, its days counted in `timeZone` (a name such as Europe/London).
    public func settings() async throws(ServerFailure) -> SettingsResponse {
        try await call(.settings)
    }

    public func stats(timeZone: String) async throws(ServerFailure) -> StatsResponse {
        let zone = timeZone.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "/_-+"))) ?? "UTC"
        return try await call(.stats, query: "?timeZone=\(zone)")
    }

    public func postFlag(gameID: String, _ request: PostFlagRequest) async throws(ServerFailure) -> PostFlagResponse {
        try await call(.postFlag, gameID, body: request)
    }

    public func postReaction(gameID: String, _ request: PostReactionRequest) async throws(ServerFailure) -> PostReactionResponse {
        try await call(.postReaction, gameID, body: request)
    }

    public func presence(gameID: String, _ request: PresenceRequest) async throws(ServerFailure) -> PresenceResponse {
        try await call(.presence, gameID, body: request)
    }

    public func removePlayer(gameID: String, authorID: String) async throws(ServerFailure) -> OKResponse {
        try await call(.removePlayer, gameID, authorID)
    }

    // MARK: Calls

    /// An endpoint (`Endpoint`: a route with its body and answer types) called with its own
    /// method, its `parameters` in its path, then `query`; a POST or PUT without a body sends an
    /// empty object.
    private func call<Answer: ServerTimed>(
        _ endpoint: Endpoint<NoBody, Answer>, _ parameters: String..., query: String = ""
    ) async throws(ServerFailure) -> Answer {
        let route = endpoint.route
        let body: Data? = route.method == .post || route.method == .put ? Data("{}".utf8) : nil
        return try await send(HTTPMethod(rawValue: route.method.rawValue), route.path(parameters) + query, body: body)
    }

    /// An endpoint called with the body it takes.
    private func call<Body, Answer: ServerTimed>(
        _ endpoint: Endpoint<Body, Answer>, _ parameters: String..., body: Body
    ) async throws(ServerFailure) -> Answer {
        let data: Data
        do { data = try JSONEncoder().encode(body) } catch { throw .unreadable("the request failed to encode: \(error)") }
        return try await send(HTTPMethod(rawValue: endpoint.route.method.rawValue), endpoint.route.path(parameters), body: data)
    }

    private func send<Answer: ServerTimed>(_ method: HTTPMethod, _ path: String, body: Data?) async throws(ServerFailure) -> Answer {
        let (data, _) = try await exchange(method, path, body: body)
        let answer: Answer
        do {
            answer = try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw .unreadable("\(error)")
        }
        observeServerTime(answer.serverTime)
        return answer
    }

    /// A file the server sends (an exported game or zip): its bytes and the name the server
    /// gives it (`Content-Disposition`).
    public func download(_ path: String) async throws(ServerFailure) -> (name: String?, bytes: [UInt8]) {
        let (data, headers) = try await exchange(.GET, path, body: nil)
        let disposition = headers.first(name: "Content-Disposition") ?? ""
        let name = disposition.firstRange(of: "filename=\"").map { start in
            String(disposition[start.upperBound...].prefix { $0 != "\"" && $0 != "/" })
        }
        return (name, Array(data))
    }

    /// One request: the body of a 2xx answer and its headers, or the server's refusal.
    private func exchange(_ method: HTTPMethod, _ path: String, body: Data?) async throws(ServerFailure) -> (Data, HTTPHeaders) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let status: Int
        let retryAfter: Int?
        let bytes: ByteBuffer
        let headers: HTTPHeaders
        do {
            let response = try await client.execute(request, timeout: timeout)
            status = Int(response.status.code)
            headers = response.headers
            retryAfter = response.headers.first(name: "Retry-After").flatMap { Int($0) }
            bytes = try await response.body.collect(upTo: 64 << 20)
        } catch {
            throw .unreachable("\(baseURL): \(Self.describe(error))")
        }
        let data = Data(bytes.readableBytesView)
        guard (200..<300).contains(status) else {
            guard let body = try? JSONDecoder().decode(ErrorBody.self, from: data) else {
                throw .unreadable("HTTP \(status) without the protocol's error body")
            }
            if let serverTime = body.serverTime { observeServerTime(serverTime) }
            throw .refused(body, status: status, retryAfterSeconds: retryAfter)
        }
        return (data, headers)
    }

    /// A network failure in words a person can act on, never a Swift error type.
    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connectTimeout") || text.contains("deadlineExceeded") { return "timed out" }
        if text.contains("connectionRefused") || text.contains("Connection refused") {
            return "connection refused: no server answers at that address"
        }
        if text.contains("remoteConnectionClosed") { return "the connection closed" }
        if text.contains("unsupportedScheme") { return "the address must start with http:// or https://" }
        if text.contains("SSL") || text.contains("TLS") || text.contains("handshake") {
            return "the secure (https://) connection failed: if the server speaks plain HTTP, use http://"
        }
        if text.contains("resolve") || text.contains("DNS") || text.contains("lookup") { return "the server's name cannot be found" }
        return "the network failed"
    }
}

/// Every answer of the API carries the server's clock, which the device's clock offset follows.
public protocol ServerTimed: Decodable {
    var serverTime: Int64 { get }
}

extension DeviceSession: ServerTimed {}
extension LinkCodeResponse: ServerTimed {}
extension MeResponse: ServerTimed {}
extension PauseResponse: ServerTimed {}
extension GameListResponse: ServerTimed {}
extension PresenceResponse: ServerTimed {}
extension PostFlagResponse: ServerTimed {}
extension PostMessageResponse: ServerTimed {}
extension StatsResponse: ServerTimed {}
extension PostReactionResponse: ServerTimed {}
extension FriendsResponse: ServerTimed {}
extension SettingsResponse: ServerTimed {}
extension NudgeView: ServerTimed {
    public var serverTime: Int64 { createdAt }
}
extension GameSummary: ServerTimed {}
extension PushMovesResponse: ServerTimed {}
extension ChangesResponse: ServerTimed {}
extension SnapshotResponse: ServerTimed {}
extension OKResponse: ServerTimed {}
extension CompletionResponse: ServerTimed {}
extension InvitationResponse: ServerTimed {}
