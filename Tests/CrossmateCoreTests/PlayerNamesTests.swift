import CrossmateCore
import Testing

/// Two players of one game never show under one name.
@Suite struct PlayerNamesTests {
    @Test func namesThatReadAlikeAreToldApartByTheirAccounts() {
        let shown = PlayerNames.shown([
            ("acct-aaaaaaaaaaaak7q2", "Ana"), ("acct-bbbbbbbbbbbbx9p4", "ana "), ("acct-cccccccccccc3m3m", "Ben"),
            ("acct-dddddddddddd8v8v", "A\u{200B}na"), ("acct-eeeeeeeeeeeee1e1", "Cleo  Lee"), ("acct-ffffffffffffff2f", "Cleo Lee"),
        ])
        #expect(shown["acct-aaaaaaaaaaaak7q2"] == "Ana ·k7q2")
        #expect(shown["acct-bbbbbbbbbbbbx9p4"] == "ana  ·x9p4")
        #expect(shown["acct-dddddddddddd8v8v"] == "A\u{200B}na ·8v8v")
        #expect(shown["acct-cccccccccccc3m3m"] == "Ben")
        #expect(shown["acct-eeeeeeeeeeeee1e1"] == "Cleo  Lee ·e1e1" && shown["acct-ffffffffffffff2f"] == "Cleo Lee ·ff2f")
        // Every device computes the same, whatever order it lists the players in.
        let reversed = PlayerNames.shown([("acct-cccccccccccc3m3m", "Ben"), ("acct-aaaaaaaaaaaak7q2", "Ana"), ("acct-bbbbbbbbbbbbx9p4", "ana ")])
        #expect(reversed["acct-aaaaaaaaaaaak7q2"] == "Ana ·k7q2" && reversed["acct-cccccccccccc3m3m"] == "Ben")
        #expect(PlayerNames.shown([("acct-aaaaaaaaaaaak7q2", "Ana")]) == ["acct-aaaaaaaaaaaak7q2": "Ana"])
    }
}
