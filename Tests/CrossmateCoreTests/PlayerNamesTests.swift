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

    /// The one way every device names a player in words (a native device's catch-up and a
    /// browser's alike): alike names told apart among the present players, and a player not
    /// among them by a placeholder.
    @Test func everyDeviceNamesAPlayerTheSameWay() {
        let name = PlayerNames.namer([("acct-aaaaaaaaaaaak7q2", "Ana"), ("acct-bbbbbbbbbbbbx9p4", "ana"), ("acct-cccccccccccc3m3m", "Ben")])
        #expect(name("acct-aaaaaaaaaaaak7q2") == "Ana ·k7q2" && name("acct-bbbbbbbbbbbbx9p4") == "ana ·x9p4")
        #expect(name("acct-cccccccccccc3m3m") == "Ben")
        #expect(name("acct-gone00000000w0w0") == "Player w0w0")
    }
}
