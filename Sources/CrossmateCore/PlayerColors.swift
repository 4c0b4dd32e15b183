/// Every player's colour (ARCHITECTURE.md, "Colours"): a palette of nine sorted by hue, a
/// stable colour per account that steers clear of colours already taken in a game, and the
/// order a game hands them out in. Pure, so every client shows the same colours.
public enum PlayerColors {
    public struct Color: Hashable, Sendable {
        public var name: String
        /// Degrees, 0..<360.
        public var hue: Double
        /// `#rrggbb`, dark enough for letters on white.
        public var hex: String
        /// `#rrggbb`, the same hue light enough for letters on the dark theme's squares.
        public var darkHex: String
    }

    /// Chosen so that every colour reads at 4.5:1 on white and on the current-word and
    /// current-square highlights below, where the player is reading (its dark twin likewise on
    /// the dark theme's squares), none is near the checked-wrong red, and the nine stay
    /// apart (CIELAB distance) for normal vision and simulated deuteranopia and protanopia
    /// (PlayerColorsTests checks each).
    public static let palette: [Color] = [
        Color(name: "brown", hue: 16, hex: "#682f1b", darkHex: "#e89477"),
        Color(name: "orange", hue: 24, hex: "#7c3c12", darkHex: "#f98e48"),
        Color(name: "olive", hue: 53, hex: "#736500", darkHex: "#c0a926"),
        Color(name: "green", hue: 141, hex: "#0d7531", darkHex: "#38c15b"),
        Color(name: "teal", hue: 183, hex: "#186f73", darkHex: "#49b9be"),
        Color(name: "blue", hue: 214, hex: "#22497c", darkHex: "#82ace8"),
        Color(name: "indigo", hue: 244, hex: "#3d34b5", darkHex: "#a4a1f0"),
        Color(name: "purple", hue: 271, hex: "#8009ec", darkHex: "#cb90fe"),
        Color(name: "magenta", hue: 300, hex: "#ab26ab", darkHex: "#ea83e9"),
    ]

    /// The squares letters are drawn on, as every client's grid colours them (the web app's
    /// style sheet uses these values), and the dark theme's (with `Color.darkHex` letters).
    public static let squareBackground = "#ffffff"
    public static let wordHighlight = "#dbe9f7"
    public static let squareHighlight = "#ffe27a"
    public static let darkSquareBackground = "#0e1114"
    public static let darkWordHighlight = "#1f3046"
    public static let darkSquareHighlight = "#4a3c00"
    /// The black squares, which stand out from the empty ones at 3:1 in either theme: in the
    /// dark theme they are lighter than the squares (dark on darker, the grid's pattern was
    /// 1.36:1).
    public static let block = "#2b2f33"
    public static let darkBlock = "#656d76"
    /// The colour of a checked-wrong mark, which no player's colour may be mistaken for.
    public static let checkedWrong = "#c62828"

    /// 64-bit FNV-1a of the UTF-8 bytes.
    public static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    static func hueDistance(_ a: Int, _ b: Int) -> Double {
        let difference = abs(palette[a].hue - palette[b].hue)
        return min(difference, 360 - difference)
    }

    /// The account's hashed colour, or the first one forward from it whose hue is more than 90
    /// degrees from every reserved colour, else the free one farthest from the reserved ones.
    /// The colour pins among an account's Decisions (`kind` "color", `key` the friend, `value`
    /// a palette index): friend → palette index. The first pin of a friend wins; a value that is
    /// not an index is no pin.
    public static func pins(_ decisions: some Sequence<(kind: String, key: String, value: String)>) -> [String: Int] {
        Dictionary(
            decisions.filter { $0.kind == DecisionKind.color.rawValue }.compactMap { decision in Int(decision.value).map { (decision.key, $0) } },
            uniquingKeysWith: { first, _ in first })
    }

    /// What a player is called where their name is not known: "Player" and the end of their id.
    public static func placeholderName(_ authorID: String) -> String { "Player " + authorID.suffix(4) }

    public static func stableColor(_ authorID: String, reserved: Set<Int>) -> Int {
        let hashed = Int(fnv1a(authorID) % UInt64(palette.count))
        let forward = (0..<palette.count).map { (hashed + $0) % palette.count }
        if let far = forward.first(where: { candidate in reserved.allSatisfy { hueDistance(candidate, $0) > 90 } }) { return far }
        // Nothing is that far from everything taken: the free colour farthest in hue from the
        // nearest taken one (the first forward of equals). "The first free one" put orange
        // beside brown, 8° apart, on a phone with three players.
        func nearest(_ candidate: Int) -> Double { reserved.map { hueDistance(candidate, $0) }.min() ?? 360 }
        var best: (colour: Int, distance: Double)?
        for candidate in forward where !reserved.contains(candidate) {
            let distance = nearest(candidate)
            if distance > best?.distance ?? -1 { best = (candidate, distance) }
        }
        return best?.colour ?? hashed
    }

    /// The colours of a game's players as `local` sees them: `local` first (its preferred
    /// colour when it has one), accounts pinned to a colour get their pin, and the others in
    /// the order given — the order they joined the game (`ParticipantRecord.joiningOrder`), so a
    /// newcomer steers clear of everyone before them and never moves anyone's colour — each
    /// steering clear of the colours taken before it.
    public static func assign(
        players: [String], local: String?, preferred: Int? = nil, pinned: [String: Int] = [:]
    ) -> [String: Int] {
        var colors: [String: Int] = [:]
        var taken: Set<Int> = []
        if let local {
            let color = preferred.flatMap { palette.indices.contains($0) ? $0 : nil } ?? stableColor(local, reserved: taken)
            colors[local] = color
            taken.insert(color)
        }
        for (authorID, color) in pinned where colors[authorID] == nil && palette.indices.contains(color) {
            colors[authorID] = color
            taken.insert(color)
        }
        for authorID in players where colors[authorID] == nil {
            let color = stableColor(authorID, reserved: taken)
            colors[authorID] = color
            taken.insert(color)
        }
        return colors
    }

    /// Symbols for avatars, beside the colour (so colour is never the only cue).
    public static let symbols = ["★", "●", "■", "▲", "◆", "♥", "♣", "♠", "✿", "☀", "☾", "✚"]

    /// The account's avatar symbol: FNV-1a of `"symbol-" + authorID`.
    public static func avatarSymbol(_ authorID: String) -> String {
        symbols[Int(fnv1a("symbol-" + authorID) % UInt64(symbols.count))]
    }
}
