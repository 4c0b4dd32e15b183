import CrossmateCore
import Testing

/// The one rule for text players and files set, and the one way answers quote a client.
@Suite struct TextRuleTests {
    @Test func namesNeedSomethingVisibleAndNothingThatHidesOrReverses() throws {
        #expect(try TextRule.check("  Ann  ", field: "a name", maximumBytes: 120, required: true) == "Ann")
        #expect(try TextRule.check("Zoë 🧩", field: "a name", maximumBytes: 120, required: true) == "Zoë 🧩")
        #expect(throws: TextRule.Violation.invisible(field: "a name")) {
            try TextRule.check("\u{200B}\u{200B}\u{200B}", field: "a name", maximumBytes: 120, required: true)
        }
        #expect(throws: TextRule.Violation.bidiControl(field: "a name")) {
            try TextRule.check("\u{202E}nimda", field: "a name", maximumBytes: 120, required: true)
        }
        #expect(throws: TextRule.Violation.controlCharacter(field: "a name")) {
            try TextRule.check("Ann\u{1B}[2J", field: "a name", maximumBytes: 120, required: true)
        }
        #expect(throws: TextRule.Violation.empty(field: "a name")) {
            try TextRule.check("   ", field: "a name", maximumBytes: 120, required: true)
        }
        #expect(throws: TextRule.Violation.tooLong(field: "a name", maximumBytes: 4)) {
            try TextRule.check("Annabel", field: "a name", maximumBytes: 4, required: true)
        }
        #expect(try TextRule.check("", field: "a message", maximumBytes: 200, required: false) == "")
        // Marks draw only on a character before them: alone they show nothing.
        for invisible in ["\u{034F}\u{034F}\u{034F}", "\u{FE0F}", "\u{301}\u{301}", "\u{20DD}", "\u{115F}\u{034F}"] {
            #expect(throws: TextRule.Violation.invisible(field: "a message")) {
                try TextRule.check(invisible, field: "a message", maximumBytes: 200, required: true)
            }
        }
        #expect(try TextRule.check("e\u{301}", field: "a message", maximumBytes: 200, required: true) == "e\u{301}")
        #expect(try TextRule.check("❤️", field: "a message", maximumBytes: 200, required: true) == "❤️")
    }

    @Test func fileTextIsCleanedNotRefused() {
        #expect(TextRule.clean("A\u{1B}]0;PWNED\u{07}B\tC\u{202E}D", maximumBytes: 100) == "A]0;PWNEDB CD")
        #expect(TextRule.clean("one\ntwo\r\nthree", maximumBytes: 100, allowsLineBreaks: true) == "one\ntwo \nthree")
        #expect(TextRule.clean("ééé", maximumBytes: 5) == "éé")
    }

    /// A quote is a few dozen bytes whatever it quotes: a one-grapheme 200 KB letter included.
    @Test func quotesAreBoundedInBytes() {
        let grapheme = "A" + String(repeating: "\u{301}", count: 100_000)
        let quoted = TextRule.quote(grapheme)
        #expect(quoted.utf8.count <= 40 + 3 && quoted.hasSuffix("…"))
        #expect(TextRule.quote(String(repeating: "k", count: 1 << 20)).utf8.count <= 43)
        #expect(TextRule.quote("game-1") == "game-1")
        #expect(TextRule.quote("\u{1B}[2J") == "\u{FFFD}[2J")
    }

    @Test func textFromOthersIsSafeToPrint() {
        #expect(TextRule.terminalSafe("Title\u{1B}]0;PWNED\u{07}\u{9B}2J") == "Title\u{FFFD}]0;PWNED\u{FFFD}\u{FFFD}2J")
        #expect(TextRule.terminalSafe("Plain title") == "Plain title")
    }

    /// A tower of combining marks is cut to three on its character; accents as languages use
    /// them (Vietnamese "ệ" carries two) pass whole.
    @Test func markStacksAreCappedOnATerminal() {
        let tower = "Z" + String(repeating: "\u{301}\u{316}", count: 200) + "ed"
        let shown = TextRule.terminalSafe(tower)
        #expect(shown == "Z\u{301}\u{316}\u{301}ed")
        #expect(shown.unicodeScalars.count == 1 + TextRule.maximumMarksShown + 2)
        let vietnamese = "Vie\u{323}\u{302}t"
        #expect(TextRule.terminalSafe(vietnamese) == vietnamese)
        #expect(TextRule.terminalSafe("A\u{1B}" + String(repeating: "\u{301}", count: 9)) == "A\u{FFFD}\u{301}\u{301}\u{301}")
    }
}
