import CrossmateSync
import Foundation
import Testing

@testable import CrossmateProtocol

/// Hand-written JSON is byte for byte what `JSONEncoder` writes: the store compares a resent
/// move's body with the stored one, and bodies written before and after must agree.
@Suite struct JSONTextTests {
    let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func encoded(_ value: some Encodable) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }

    @Test func stringsAreEscapedAsJSONEncoderEscapesThem() throws {
        var everyASCII = ""
        for value in 0..<0x80 { everyASCII.unicodeScalars.append(Unicode.Scalar(value)!) }
        for text in [everyASCII, "", "plain", "é漢字🧩\u{2028}\u{FEFF}", "a/b\\c\"d"] {
            #expect(try JSONText.quoted(text) == encoded(text))
        }
    }

    @Test func movesAndPushesAreWrittenAsJSONEncoderWritesThem() throws {
        var random = SeededRandomNumberGenerator(seed: 8)
        let records = AwkwardRecords()
        for _ in 0..<500 {
            let push = records.randomPush(&random)
            guard case let .push(gameID, id, moves) = push else { continue }
            for move in moves { #expect(try move.sortedJSON == encoded(move)) }
            #expect(try ClientSocketMessage.pushJSON(gameID: gameID, id: id, moves: moves) == encoded(push))
        }
    }
}
