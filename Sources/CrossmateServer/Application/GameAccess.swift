import CrossmateCore
import CrossmateStore

extension Store {
    /// The game and the caller's participation, or the error that ends the request.
    func access(_ gameID: String, for device: StoredDevice, write: Bool) async throws -> (StoredGame, StoredParticipant) {
        guard let (game, found) = try await access(gameID: gameID, authorID: device.authorID) else {
            throw APIError(.notFound, "there is no game \(TextRule.quote(gameID))")
        }
        guard let participant = found, !participant.hasLeft else {
            throw APIError(.forbidden, "you are not a player in game \(TextRule.quote(gameID)); ask its owner for an invitation link")
        }
        if write, participant.revoked {
            throw APIError(.readOnly, "you were removed from game \(TextRule.quote(gameID)); it stays readable but takes no more input")
        }
        return (game, participant)
    }
}
