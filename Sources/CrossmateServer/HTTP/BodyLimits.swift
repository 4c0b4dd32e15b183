import CrossmateFormats
import CrossmateProtocol
import CrossmateSync

/// A request body the HTTP routes read, with the most bytes it may have: `JSONBody.decode`
/// reads the limit from the type, so no route repeats a number.
protocol BoundedBody: Decodable {
    static var maximumBodyBytes: Int { get }
}

// Every request body's limit, in one place. A body a little larger than its fields can hold is
// refused before it is decoded.

extension CreateAccountRequest: BoundedBody { static var maximumBodyBytes: Int { 16 * 1024 } }
extension LinkDeviceRequest: BoundedBody { static var maximumBodyBytes: Int { 16 * 1024 } }
extension RenameRequest: BoundedBody { static var maximumBodyBytes: Int { 16 * 1024 } }
/// A puzzle file, base64 (a third larger), with room for the rest of the request.
extension CreateGameRequest: BoundedBody { static var maximumBodyBytes: Int { PuzzleFile.maximumSize * 4 / 3 + 64 * 1024 } }
extension PushMovesRequest: BoundedBody { static var maximumBodyBytes: Int { ProtocolLimits.maximumBatchBytes } }
extension SealRequest: BoundedBody { static var maximumBodyBytes: Int { 16 * 1024 } }
extension PresenceRequest: BoundedBody { static var maximumBodyBytes: Int { 4 * 1024 } }
extension CreateInvitationRequest: BoundedBody { static var maximumBodyBytes: Int { 16 * 1024 } }
/// A message of `Chat.maximumBytes`, every byte escaped at worst, and the rest of the request.
extension PostMessageRequest: BoundedBody { static var maximumBodyBytes: Int { 4 * Chat.maximumBytes + 1024 } }
extension PostFlagRequest: BoundedBody { static var maximumBodyBytes: Int { 1024 } }
extension PostReactionRequest: BoundedBody { static var maximumBodyBytes: Int { 1024 } }
extension DecisionRequest: BoundedBody { static var maximumBodyBytes: Int { 4 * 1024 } }
extension PreferencesRequest: BoundedBody { static var maximumBodyBytes: Int { 1024 } }
extension SettingRequest: BoundedBody { static var maximumBodyBytes: Int { 1024 } }
extension NudgeRequest: BoundedBody { static var maximumBodyBytes: Int { 4 * 1024 } }
extension PushSubscriptionRequest: BoundedBody { static var maximumBodyBytes: Int { Limits.pushSubscriptionBytes } }
