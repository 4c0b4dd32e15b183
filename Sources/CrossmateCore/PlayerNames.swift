/// Two players of one game never show under the same name: where names are shown (a roster,
/// chat, a notice, the terminal, the command line), players whose names read alike (the same
/// letters in any case, whatever invisible characters or spacing stand between them) are each
/// shown with a mark of their own account, `Ana ·k7q2`: the last four characters of the account
/// id, so every device shows the same names, and nobody can take another's name by choosing
/// it. A name nobody else in the game reads alike is shown as it is.
public enum PlayerNames {
    /// How every device names a player among the game's present `players` (a catch-up, a
    /// roster, a notice): as `shown`, and a player not among them by a placeholder.
    public static func namer(_ players: [(authorID: String, displayName: String)]) -> (String) -> String {
        let names = shown(players)
        return { names[$0] ?? PlayerColors.placeholderName($0) }
    }

    /// Each player's name as shown, by account id.
    public static func shown(_ players: [(authorID: String, displayName: String)]) -> [String: String] {
        var byKey: [String: Set<String>] = [:]
        for player in players { byKey[key(player.displayName), default: []].insert(player.authorID) }
        var shown: [String: String] = [:]
        for player in players {
            let alike = byKey[key(player.displayName)]?.count ?? 0
            shown[player.authorID] = alike > 1 ? "\(player.displayName) ·\(player.authorID.suffix(4))" : player.displayName
        }
        return shown
    }

    /// What two names that read alike have in common: their visible characters, lower-cased,
    /// spacing collapsed.
    static func key(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        var space = false
        for scalar in name.lowercased().unicodeScalars {
            if scalar.properties.isWhitespace {
                space = !scalars.isEmpty
            } else if TextRule.isVisible(scalar) || scalar.properties.generalCategory == .nonspacingMark {
                if space { scalars.append(" ") }
                space = false
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }
}
