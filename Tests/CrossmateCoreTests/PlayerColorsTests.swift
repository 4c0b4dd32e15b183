import CrossmateCore
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
        // than 90° from it (teal 58° and blue 100° away: blue).
        #expect(PlayerColors.stableColor("acct-cy", reserved: [3]) == 5)
        // Nothing is 90° from everything taken: the first forward that is not exactly taken.
        #expect(PlayerColors.stableColor("acct-cy", reserved: [0, 3, 5, 7]) == 4)
        // Everything taken: the hashed colour.
        #expect(PlayerColors.stableColor("acct-cy", reserved: Set(0..<9)) == 3)
    }

    @Test func theRosterPutsMeFirstThenPinsThenTheRestInOrder() {
        let players = ["acct-cy", "acct-bob", "acct-ann"]
        let plain = PlayerColors.assign(players: players, local: "acct-ann")
        #expect(plain["acct-ann"] == 5)
        #expect(plain["acct-bob"] == 3)  // 3 is more than 90° from blue
        #expect(plain["acct-cy"] != 3 && plain["acct-cy"] != 5)
        // My preferred colour comes first; pins win even when they collide, and two friends
        // pinned alike both keep the pin.
        let pinned = PlayerColors.assign(players: players, local: "acct-ann", preferred: 0, pinned: ["acct-bob": 0, "acct-cy": 0])
        #expect(pinned == ["acct-ann": 0, "acct-bob": 0, "acct-cy": 0])
        // Pinning one friend bumps the unpinned ones deterministically, whatever the input order.
        let bumped = PlayerColors.assign(players: players, local: "acct-ann", pinned: ["acct-cy": 3])
        #expect(bumped["acct-cy"] == 3 && bumped["acct-bob"] != 3)
        #expect(bumped == PlayerColors.assign(players: players.reversed(), local: "acct-ann", pinned: ["acct-cy": 3]))
    }

    @Test func avatarSymbolsHashTheirOwnString() {
        let expected = PlayerColors.symbols[Int(PlayerColors.fnv1a("symbol-acct-ann") % UInt64(PlayerColors.symbols.count))]
        #expect(PlayerColors.avatarSymbol("acct-ann") == expected)
        #expect(Set(["acct-ann", "acct-bob", "acct-cy", "acct-dee"].map(PlayerColors.avatarSymbol)).count > 1)
    }
}
