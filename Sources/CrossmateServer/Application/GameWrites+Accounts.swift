import CrossmateProtocol
import CrossmateStore

/// The write path's verbs for what happens to accounts rather than to one game's zone: the
/// controllers call these, and the facts they publish reach whoever listens.
extension GameWrites {
    /// `authorID` was brought along into the next game of a finished one: their devices hear
    /// of it (one showing the finished game goes straight in).
    func broughtAlong(_ authorID: String, into next: NextGameView) {
        facts.publish(.nextGame(authorID: authorID, next: next))
    }

    /// A player nudged `recipient` in a game: their devices hear it live, may be called back,
    /// and their lists redraw (the nudge is listed with the game).
    func nudged(_ recipient: String, with nudge: NudgeView, message: String) async {
        facts.publish(.nudged(authorID: recipient, nudge: nudge))
        facts.publish(
            .mayCallBack(
                CallBackCandidate(
                    event: .nudge, gameID: nudge.gameID, sender: nudge.fromAuthor, sequence: 0, text: message, recipient: recipient)))
        await feedChanged(of: recipient)
    }

    /// A device was signed out or revoked: its token stops working on every instance and its
    /// sockets close.
    func revoked(deviceID: String) {
        facts.publish(.deviceRevoked(deviceID: deviceID))
    }

    /// An account's decisions or preferences changed: its devices redraw their lists and the
    /// games they have open (colours, blocks).
    func accountChanged(_ authorID: String) async {
        await feedChanged(of: authorID)
        facts.publish(.accountChanged(authorID: authorID))
    }
}
