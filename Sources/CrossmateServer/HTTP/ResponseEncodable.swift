import CrossmateProtocol
import Hummingbird

// The protocol's answers are what the routes return: Hummingbird encodes each with the request
// context's encoder (`CrossmateRequestContext.responseEncoder`, slashes unescaped) as
// `application/json; charset=utf-8`. A route that answers with something else (the changes
// page spliced around stored records, the web app's files) builds its `Response` itself.
extension CompletionResponse: ResponseEncodable {}
extension PauseResponse: ResponseEncodable {}
extension DeviceListResponse: ResponseEncodable {}
extension DeviceSession: ResponseEncodable {}
extension FeedResponse: ResponseEncodable {}
extension FriendsResponse: ResponseEncodable {}
extension GameListResponse: ResponseEncodable {}
extension GameSummary: ResponseEncodable {}
extension InvitationListResponse: ResponseEncodable {}
extension InvitationPreview: ResponseEncodable {}
extension InvitationResponse: ResponseEncodable {}
extension LinkCodeResponse: ResponseEncodable {}
extension MeResponse: ResponseEncodable {}
extension NudgeView: ResponseEncodable {}
extension OKResponse: ResponseEncodable {}
extension PostFlagResponse: ResponseEncodable {}
extension PostMessageResponse: ResponseEncodable {}
extension PostReactionResponse: ResponseEncodable {}
extension PresenceResponse: ResponseEncodable {}
extension PushKeyResponse: ResponseEncodable {}
extension PushMovesResponse: ResponseEncodable {}
extension PushSubscriptionResponse: ResponseEncodable {}
extension SettingsResponse: ResponseEncodable {}
extension SnapshotResponse: ResponseEncodable {}
extension StatsResponse: ResponseEncodable {}
extension SocketTicketResponse: ResponseEncodable {}
extension PuzzleLayout: ResponseEncodable {}
