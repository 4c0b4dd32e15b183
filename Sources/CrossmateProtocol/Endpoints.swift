/// A route that takes no JSON body: called without one (GET, DELETE) or with an empty object (a
/// POST or PUT whose path says everything).
public struct NoBody: Codable, Hashable, Sendable {
    public init() {}
}

/// A route of the table (`APIRoute`) with the body it takes and the answer it gives, as isowords'
/// `ServerRoute` carries them. The native client calls by an endpoint alone (`ServerAPI.call`),
/// and the server registers each handler by one (`RouterMethods.on(_:use:)`), so the body a
/// handler reads and the answer it returns are the types the client sends and decodes: a route
/// whose types disagree does not compile. The body's size limit is its type's (`BoundedBody`, on
/// the server). Routes answered with a file (the exports), the web app's list of bundled puzzles
/// and the socket are rows of the table without an endpoint; `changes` has one for the client, and the server answers it with bytes
/// spliced from the stored records (`SplicedJSON`, tested against the endpoint's answer type).
public struct Endpoint<Body: Encodable & Sendable, Answer: Decodable & Sendable>: Sendable {
    public let route: APIRoute

    init(_ route: APIRoute) { self.route = route }
}

// The endpoints, in the table's order: a route's body, then its answer.

extension Endpoint where Body == CreateAccountRequest, Answer == DeviceSession {
    public static var createAccount: Self { Self(.createAccount) }
}
extension Endpoint where Body == NoBody, Answer == MeResponse {
    public static var me: Self { Self(.me) }
}
extension Endpoint where Body == RenameRequest, Answer == MeResponse {
    public static var rename: Self { Self(.rename) }
}
extension Endpoint where Body == NoBody, Answer == LinkCodeResponse {
    public static var createLinkCode: Self { Self(.createLinkCode) }
}
extension Endpoint where Body == LinkDeviceRequest, Answer == DeviceSession {
    public static var linkDevice: Self { Self(.linkDevice) }
}
extension Endpoint where Body == NoBody, Answer == DeviceListResponse {
    public static var devices: Self { Self(.devices) }
}
extension Endpoint where Body == NoBody, Answer == SocketTicketResponse {
    public static var socketTicket: Self { Self(.socketTicket) }
}
extension Endpoint where Body == NoBody, Answer == FeedResponse {
    public static var feed: Self { Self(.feed) }
}
extension Endpoint where Body == NoBody, Answer == StatsResponse {
    public static var stats: Self { Self(.stats) }
}
extension Endpoint where Body == CreateGameRequest, Answer == GameSummary {
    public static var createGame: Self { Self(.createGame) }
}
extension Endpoint where Body == NoBody, Answer == GameListResponse {
    public static var games: Self { Self(.games) }
}
extension Endpoint where Body == PushMovesRequest, Answer == PushMovesResponse {
    public static var pushMoves: Self { Self(.pushMoves) }
}
extension Endpoint where Body == NoBody, Answer == ChangesResponse {
    public static var changes: Self { Self(.changes) }
}
extension Endpoint where Body == NoBody, Answer == SnapshotResponse {
    public static var snapshot: Self { Self(.snapshot) }
}
extension Endpoint where Body == NoBody, Answer == CompletionResponse {
    public static var resign: Self { Self(.resign) }
}
extension Endpoint where Body == SealRequest, Answer == OKResponse {
    public static var seal: Self { Self(.seal) }
}
extension Endpoint where Body == NoBody, Answer == PauseResponse {
    public static var pause: Self { Self(.pause) }
}
extension Endpoint where Body == PresenceRequest, Answer == PresenceResponse {
    public static var presence: Self { Self(.presence) }
}
extension Endpoint where Body == PostMessageRequest, Answer == PostMessageResponse {
    public static var postMessage: Self { Self(.postMessage) }
}
extension Endpoint where Body == PostReactionRequest, Answer == PostReactionResponse {
    public static var postReaction: Self { Self(.postReaction) }
}
extension Endpoint where Body == PostFlagRequest, Answer == PostFlagResponse {
    public static var postFlag: Self { Self(.postFlag) }
}
extension Endpoint where Body == NudgeRequest, Answer == NudgeView {
    public static var nudge: Self { Self(.nudge) }
}
extension Endpoint where Body == CreateInvitationRequest, Answer == InvitationResponse {
    public static var invite: Self { Self(.invite) }
}
extension Endpoint where Body == NoBody, Answer == InvitationListResponse {
    public static var invitations: Self { Self(.invitations) }
}
extension Endpoint where Body == NoBody, Answer == InvitationPreview {
    public static var previewInvitation: Self { Self(.previewInvitation) }
}
extension Endpoint where Body == NoBody, Answer == GameSummary {
    public static var acceptInvitation: Self { Self(.acceptInvitation) }
}
extension Endpoint where Body == NoBody, Answer == OKResponse {
    public static var revokeDevice: Self { Self(.revokeDevice) }
    public static var revokeLink: Self { Self(.revokeLink) }
    public static var revokeInvitation: Self { Self(.revokeInvitation) }
    public static var leave: Self { Self(.leave) }
    public static var removePlayer: Self { Self(.removePlayer) }
}
extension Endpoint where Body == NoBody, Answer == FriendsResponse {
    public static var friends: Self { Self(.friends) }
}
extension Endpoint where Body == DecisionRequest, Answer == FriendsResponse {
    public static var decide: Self { Self(.decide) }
}
extension Endpoint where Body == PreferencesRequest, Answer == FriendsResponse {
    public static var preferences: Self { Self(.preferences) }
}
extension Endpoint where Body == NoBody, Answer == SettingsResponse {
    public static var settings: Self { Self(.settings) }
}
extension Endpoint where Body == SettingRequest, Answer == SettingsResponse {
    public static var putSetting: Self { Self(.putSetting) }
}
extension Endpoint where Body == NoBody, Answer == PushKeyResponse {
    public static var pushKey: Self { Self(.pushKey) }
}
extension Endpoint where Body == PushSubscriptionRequest, Answer == PushSubscriptionResponse {
    public static var pushSubscribe: Self { Self(.pushSubscribe) }
}
extension Endpoint where Body == NoBody, Answer == PushSubscriptionResponse {
    public static var pushUnsubscribe: Self { Self(.pushUnsubscribe) }
}
extension Endpoint where Body == NoBody, Answer == PuzzleLayout {
    public static var puzzle: Self { Self(.puzzle) }
}
