import CrossmateProtocol
import Foundation
import Testing

/// README lists the limits of each kind of record from the one table the server reads them
/// from: the copy there is the table's own.
@Suite struct LimitsTableTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("README.md")
    static let start = "<!-- limits -->\n"
    static let end = "<!-- /limits -->"

    @Test func readmeListsTheLimitsTable() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let head = try #require(text.range(of: Self.start), "README has no \(Self.start)")
        let tail = try #require(text.range(of: Self.end, range: head.upperBound..<text.endIndex))
        let listed = String(text[head.upperBound..<tail.lowerBound])
        let table = Limits.markdown + "\n"
        if listed != table, ProcessInfo.processInfo.environment["CROSSMATE_UPDATE_README"] == "1" {
            try (String(text[..<head.upperBound]) + table + String(text[tail.lowerBound...])).write(
                to: Self.readme, atomically: true, encoding: .utf8)
            return
        }
        #expect(listed == table, "README's limits table differs from Limits.markdown:\n\(table)")
    }

    /// Every row says how large one may be and how many a game keeps, and has some rate.
    @Test func everyRowIsBounded() {
        for row in Limits.table {
            #expect(!row.size.isEmpty && !row.perGame.isEmpty && !row.lifetime.isEmpty, "\(row.kind)")
            #expect(row.perDevice != nil || row.perAccount != nil, "\(row.kind) has no rate")
        }
        #expect(Set(Limits.table.map(\.kind)).count == Limits.table.count)
    }
}
