import CrossmateCore
import Foundation
import Testing

@Suite struct PlayerColorsTests {
    /// Published FNV-1a 64 vectors, and the ids the other tests use.
    @Test func fnv1aMatchesThePublishedValues() {
        #expect(PlayerColors.fnv1a("") == 0xcbf2_9ce4_8422_2325)
        #expect(PlayerColors.fnv1a("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(PlayerColors.fnv1a("foobar") == 0x8594_4171_f739_67e8)
        #expect(PlayerColors.fnv1a("acct-ann") == 0xa4cf_5fe2_3661_c7b8)
        #expect(PlayerColors.fnv1a("acct-bob") == 0xbe25_06e2_448b_d554)
    }

    @Test func thePaletteIsNineColoursSortedByHue() {
        #expect(PlayerColors.palette.count == 9)
        #expect(PlayerColors.palette.map(\.hue) == PlayerColors.palette.map(\.hue).sorted())
        #expect(Set(PlayerColors.palette.map(\.hex)).count == 9)
    }

    @Test func stableColorHashesThenSteersClearOfReservedHues() {
        // Unreserved: the hashed colour (acct-ann: 0xa4cf…c7b8 % 9 == 5, blue).
        #expect(PlayerColors.stableColor("acct-ann", reserved: []) == 5)
        #expect(PlayerColors.stableColor("acct-bob", reserved: []) == 3)
        // acct-cy also hashes to 3 (green): with green taken, the first colour forward more
        // than 90° from it (teal 43°, blue 74° and indigo 102° away: indigo).
        #expect(PlayerColors.stableColor("acct-cy", reserved: [3]) == 6)
        // Nothing is 90° from everything taken: the free colour farthest from the nearest taken
        // one — olive, 36° from brown (teal would be 31° from blue, orange 8° from brown).
        #expect(PlayerColors.stableColor("acct-cy", reserved: [0, 3, 5, 7]) == 2)
        // Brown and blue taken (a third player on a phone): not orange, 8° from brown.
        #expect(PlayerColors.stableColor("acct-cy", reserved: [0, 5]) != 1)
        // Everything taken: the hashed colour.
        #expect(PlayerColors.stableColor("acct-cy", reserved: Set(0..<9)) == 3)
    }

    @Test func theRosterPutsMeFirstThenPinsThenTheRestInOrder() {
        let players = ["acct-ann", "acct-bob", "acct-cy"]
        let plain = PlayerColors.assign(players: players, local: "acct-ann")
        #expect(plain["acct-ann"] == 5)
        // acct-bob hashes to green, 74° from blue; the first forward more than 90° from blue
        // is brown (162° away).
        #expect(plain["acct-bob"] == 0)
        #expect(plain["acct-cy"] != 0 && plain["acct-cy"] != 5)
        // My preferred colour comes first; pins win even when they collide, and two friends
        // pinned alike both keep the pin.
        let pinned = PlayerColors.assign(players: players, local: "acct-ann", preferred: 0, pinned: ["acct-bob": 0, "acct-cy": 0])
        #expect(pinned == ["acct-ann": 0, "acct-bob": 0, "acct-cy": 0])
        // Pinning one friend bumps the unpinned ones clear of the pin.
        let bumped = PlayerColors.assign(players: players, local: "acct-ann", pinned: ["acct-cy": 3])
        #expect(bumped["acct-cy"] == 3 && bumped["acct-bob"] != 3)
    }

    /// Ana's letters turned from green to indigo on Ben's phone when Cleo joined: colours are
    /// handed out in joining order, so whoever joins never moves a colour anyone already sees.
    @Test func aNewcomerNeverMovesAnyonesColour() {
        for trial in 0..<2_000 {
            let count = 2 + trial % 11
            let joined = (0..<count).map { "acct-\(PlayerColors.fnv1a("\(trial)/\($0)") % 1_000_000)" }
            for viewer in joined.dropLast() {
                let before = PlayerColors.assign(players: Array(joined.dropLast()), local: viewer)
                let after = PlayerColors.assign(players: joined, local: viewer)
                for player in joined.dropLast() { #expect(before[player] == after[player]) }
            }
        }
    }

    @Test func avatarSymbolsHashTheirOwnString() {
        let expected = PlayerColors.symbols[Int(PlayerColors.fnv1a("symbol-acct-ann") % UInt64(PlayerColors.symbols.count))]
        #expect(PlayerColors.avatarSymbol("acct-ann") == expected)
        #expect(Set(["acct-ann", "acct-bob", "acct-cy", "acct-dee"].map(PlayerColors.avatarSymbol)).count > 1)
    }
}

/// The palette read by eye: contrast on every square a letter sits on, never the checked-wrong
/// red, and apart from each other for red-green colour-blind players (Machado, Oliveira and
/// Fernandes 2009 matrices at full severity, applied in linear RGB; CIE 1976 distances).
@Suite struct PaletteLegibilityTests {
    typealias RGB = (r: Double, g: Double, b: Double)

    static func rgb(_ hex: String) -> RGB {
        let value = Int(hex.dropFirst(), radix: 16)!
        return (Double(value >> 16 & 0xff) / 255, Double(value >> 8 & 0xff) / 255, Double(value & 0xff) / 255)
    }

    static func linear(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
    static func encoded(_ c: Double) -> Double { c <= 0.003_130_8 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055 }

    static func luminance(_ c: RGB) -> Double { 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b) }

    static func contrast(_ a: String, _ b: String) -> Double {
        let (x, y) = (luminance(rgb(a)), luminance(rgb(b)))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    static let deuteranopia = [[0.367_322, 0.860_646, -0.227_968], [0.280_085, 0.672_501, 0.047_413], [-0.011_820, 0.042_940, 0.968_881]]
    static let protanopia = [[0.152_286, 1.052_583, -0.204_868], [0.114_503, 0.786_281, 0.099_216], [-0.003_882, -0.048_116, 1.051_998]]

    static func simulate(_ c: RGB, _ matrix: [[Double]]) -> RGB {
        let l = [linear(c.r), linear(c.g), linear(c.b)]
        let out = matrix.map { row in encoded(min(1, max(0, row[0] * l[0] + row[1] * l[1] + row[2] * l[2]))) }
        return (out[0], out[1], out[2])
    }

    static func lab(_ c: RGB) -> [Double] {
        let (r, g, b) = (linear(c.r), linear(c.g), linear(c.b))
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.950_47
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.088_83
        func f(_ t: Double) -> Double { t > 0.008_856 ? cbrt(t) : 7.787 * t + 16.0 / 116 }
        return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))]
    }

    static func distance(_ a: RGB, _ b: RGB) -> Double {
        let (x, y) = (lab(a), lab(b))
        return sqrt(zip(x, y).map { ($0 - $1) * ($0 - $1) }.reduce(0, +))
    }

    @Test func everyColourReadsOnEverySquareALetterSitsOn() {
        for color in PlayerColors.palette {
            #expect(Self.contrast(color.hex, PlayerColors.squareBackground) >= 4.5, "\(color.name) on white")
            #expect(Self.contrast(color.hex, PlayerColors.wordHighlight) >= 4.5, "\(color.name) on the current word")
            #expect(Self.contrast(color.hex, PlayerColors.squareHighlight) >= 4.5, "\(color.name) on the current square")
        }
    }

    @Test func everyDarkTwinReadsOnTheDarkThemesSquares() {
        for color in PlayerColors.palette {
            #expect(Self.contrast(color.darkHex, PlayerColors.darkSquareBackground) >= 4.5, "\(color.name) on a dark square")
            #expect(Self.contrast(color.darkHex, PlayerColors.darkWordHighlight) >= 4.5, "\(color.name) on the dark current word")
            #expect(Self.contrast(color.darkHex, PlayerColors.darkSquareHighlight) >= 4.5, "\(color.name) on the dark current square")
        }
        // The highlights are told apart from a plain square, and the dark twins from each other.
        #expect(Self.contrast(PlayerColors.darkSquareHighlight, PlayerColors.darkSquareBackground) >= 1.5)
        // The grid's pattern: black squares against empty ones at 3:1, as any shape must be.
        #expect(Self.contrast(PlayerColors.block, PlayerColors.squareBackground) >= 3)
        #expect(Self.contrast(PlayerColors.darkBlock, PlayerColors.darkSquareBackground) >= 3)
        for (index, color) in PlayerColors.palette.enumerated() {
            for other in PlayerColors.palette[(index + 1)...] {
                #expect(Self.distance(Self.rgb(color.darkHex), Self.rgb(other.darkHex)) >= 15, "\(color.name) and \(other.name) in the dark")
            }
        }
    }

    @Test func noColourReadsAsTheCheckedWrongRed() {
        let wrong = Self.rgb(PlayerColors.checkedWrong)
        for color in PlayerColors.palette {
            #expect(Self.distance(Self.rgb(color.hex), wrong) >= 30, "\(color.name) is too near the wrong-letter red")
            #expect(min(color.hue, 360 - color.hue) >= 15, "\(color.name) has a red hue")
        }
    }

    /// Every two colours at least 12 apart as everyone sees them, and as deuteranopes and
    /// protanopes do (the old palette's red and green were 2 apart for a deuteranope).
    @Test func theNineStayApartForRedGreenColourBlindPlayers() {
        let colors = PlayerColors.palette.map { ($0.name, Self.rgb($0.hex)) }
        for (i, first) in colors.enumerated() {
            for second in colors[(i + 1)...] {
                #expect(Self.distance(first.1, second.1) >= 12, "\(first.0) and \(second.0)")
                #expect(
                    Self.distance(Self.simulate(first.1, Self.deuteranopia), Self.simulate(second.1, Self.deuteranopia)) >= 12,
                    "\(first.0) and \(second.0) for a deuteranope")
                #expect(
                    Self.distance(Self.simulate(first.1, Self.protanopia), Self.simulate(second.1, Self.protanopia)) >= 12,
                    "\(first.0) and \(second.0) for a protanope")
            }
        }
    }

    /// Pins come from the account's colour Decisions only; the first of a friend wins, and a
    /// value that is not a palette index is no pin.
    @Test func pinsAreTheColourDecisions() {
        let decisions: [(kind: String, key: String, value: String)] = [
            ("color", "acct-ben", "8"), ("block", "acct-cat", "1"), ("color", "acct-ben", "2"), ("color", "acct-dan", "mauve"),
        ]
        #expect(PlayerColors.pins(decisions) == ["acct-ben": 8])
        #expect(PlayerColors.placeholderName("acct-abcdwxyz") == "Player wxyz")
    }
}
