import CrossmateCore

/// The error codes every failed request answers with.
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
    case unauthorized
    case forbidden
    case notFound
    case readOnly
    case limitExceeded
    case rateLimited
    case clockSkew
    case invalid
    case gone
    case serverError
}

/// The JSON body of every error: `{"error": code, "message": text}`, plus the server's time for
/// `clockSkew` so the client can correct its clock and retry. A message is at most
/// `maximumMessageBytes`: what it quotes of a client's input goes through `TextRule.quote`, and
/// this bound holds whatever a message is built from.
public struct ErrorBody: Codable, Hashable, Sendable, Error {
    public static let maximumMessageBytes = 400

    public var error: ErrorCode
    public var message: String
    public var serverTime: Int64?

    public init(_ error: ErrorCode, _ message: String, serverTime: Int64? = nil) {
        self.error = error
        self.message = message.prefix(bytes: Self.maximumMessageBytes)
        self.serverTime = serverTime
    }
}
