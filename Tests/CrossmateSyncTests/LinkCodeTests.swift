import CrossmateSync
import Testing

/// A link code is short, reads without look-alikes, and is typed however a person types it.
@Suite struct LinkCodeTests {
    @Test func aCodeIsTwoGroupsOfFiveFromTheAlphabet() {
        var random = SeededRandomNumberGenerator(seed: 7)
        var seen: Set<String> = []
        for _ in 0..<200 {
            let code = LinkCode.shown(LinkCode.make(using: &random))
            #expect(code.count == 11 && code.split(separator: "-").map(\.count) == [5, 5], "\(code)")
            #expect(code.filter { $0 != "-" }.allSatisfy(LinkCode.alphabet.contains))
            #expect(LinkCode.normalized(code) == code.replacingOccurrences(of: "-", with: ""))
            seen.insert(code)
        }
        #expect(seen.count == 200)
        #expect(["I", "L", "O", "U"].allSatisfy { !LinkCode.alphabet.contains($0) })
    }

    @Test func aCodeIsTypedInAnyCaseWithOrWithoutItsDashAndLookAlikesReadAsTheirSymbol() {
        #expect(LinkCode.normalized("K7QM4-XPD2R") == "K7QM4XPD2R")
        #expect(LinkCode.normalized("  k7qm4 xpd2r ") == "K7QM4XPD2R")
        #expect(LinkCode.normalized("k7qm4–xpd2r") == "K7QM4XPD2R")
        #expect(LinkCode.normalized("O1ILo-0abcd") == "011100ABCD")
    }

    @Test func whatCannotBeACodeIsRefused() {
        #expect(LinkCode.normalized("") == nil)
        #expect(LinkCode.normalized("K7QM4-XPD2") == nil)
        #expect(LinkCode.normalized("K7QM4-XPD2RR") == nil)
        // U is no code's symbol, nor is anything outside ASCII (ß upper-cases to two letters).
        #expect(LinkCode.normalized("K7QM4-XPD2U") == nil)
        #expect(LinkCode.normalized("ßßßßß-ßßßßß") == nil)
        #expect(LinkCode.normalized("K7QM4-XPD2R" + String(repeating: " ", count: 100)) == nil)
        // An old long code (a 43-character token) is no short code.
        #expect(LinkCode.normalized("q3J5m0Vv2ZyW9n8sXo1dKpL7aHfUeTgRcBi4jNlE6Yk") == nil)
    }
}
