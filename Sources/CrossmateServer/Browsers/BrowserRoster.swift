import CrossmateCore
import CrossmateProtocol
import CrossmateStore

/// Who is in a hosted browser's game as its account sees them: the players, every author of a
/// letter, who is here now, and the colours (this account's pins and preferred colour). The
/// roster is made again only when what it is made from changed.
struct BrowserRoster {
    var players: [StoredParticipant]
    /// Every move's author (kept as moves arrive: a roster reading all the moves per keystroke
    /// was the largest cost of a browser's keystroke on the server).
    var authors: Set<String>
    /// Devices viewing the game now, by account (sockets on this instance).
    var here: [String: Int] = [:]
    /// This account's colour pins and preferred colour (its account zone).
    var pins: [String: Int] = [:]
    var preferred: Int?
    /// The account whose browser this is.
    let local: String

    private struct Inputs: Equatable {
        var players: [StoredParticipant]
        var authors: Set<String>
        var here: [String: Int]
        var pins: [String: Int]
        var preferred: Int?
    }
    private var made: (inputs: Inputs, views: [PlayerView])?

    init(players: [StoredParticipant], authors: Set<String>, local: String) {
        self.players = players
        self.authors = authors
        self.local = local
    }

    /// This account's participation.
    var me: StoredParticipant? { players.first { $0.authorID == local } }
    /// Removed by the owner (or never a player): the game takes no input from this browser.
    var readOnly: Bool { me?.revoked ?? true }
    /// Left the game (a player who leaves is no longer among its participants).
    var hasLeft: Bool { !players.contains { $0.authorID == local && !$0.hasLeft } }

    /// A player's name as shown (`PlayerNames`), or a placeholder for an author who left.
    func name(_ authorID: String) -> String {
        PlayerNames.namer(players.filter { !$0.hasLeft }.map { ($0.authorID, $0.displayName) })(authorID)
    }

    /// The roster with colours as this account sees them; authors of letters who have left the
    /// game keep a colour too (listed as removed players).
    var views: [PlayerView] {
        mutating get {
            let inputs = Inputs(players: players, authors: authors, here: here, pins: pins, preferred: preferred)
            if let made, made.inputs == inputs { return made.views }
            let views = Self.roster(inputs, local: local)
            made = (inputs, views)
            return views
        }
    }

    private static func roster(_ inputs: Inputs, local: String) -> [PlayerView] {
        let (players, here, pins, preferred) = (inputs.players, inputs.here, inputs.pins, inputs.preferred)
        let present = players.filter { !$0.hasLeft }
        let authors = inputs.authors.subtracting(present.map(\.authorID))
        let colors = PlayerColors.assign(players: present.map(\.authorID) + authors.sorted(), local: local, preferred: preferred, pinned: pins)
        func color(_ authorID: String) -> String { PlayerColors.palette[colors[authorID] ?? 0].hex }
        func darkColor(_ authorID: String) -> String { PlayerColors.palette[colors[authorID] ?? 0].darkHex }
        let names = PlayerNames.shown(present.map { ($0.authorID, $0.displayName) })
        return present.map {
            PlayerView(
                authorID: $0.authorID, displayName: names[$0.authorID] ?? $0.displayName, role: $0.role, removed: $0.revoked,
                color: color($0.authorID), darkColor: darkColor($0.authorID), symbol: PlayerColors.avatarSymbol($0.authorID),
                here: here[$0.authorID] ?? 0)
        }
            + authors.sorted().map {
                PlayerView(
                    authorID: $0, displayName: PlayerColors.placeholderName($0), role: .player, removed: true, color: color($0),
                    darkColor: darkColor($0), symbol: PlayerColors.avatarSymbol($0))
            }
    }
}
