import CrossmateCore
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

    /// A game's snapshot, built from random moves by players whose ids take JSON's awkward
    /// characters (and sort as String sorts them: "dev-10" before "dev-9"), with checks and
    /// reveals in gestures, pencil marks, rebuses and empty squares: the hand-written text is the
    /// encoder's, and decodes to the same snapshot.
    @Test func snapshotsAreWrittenAsJSONEncoderWritesThem() throws {
        var random = SeededRandomNumberGenerator(seed: 54)
        let records = AwkwardRecords()
        let kinds: [MoveKind] = [.input, .input, .input, .clear, .check, .reveal, .undo]
        for round in 0..<60 {
            let width = Int.random(in: 1...15, using: &random)
            let height = Int.random(in: 1...15, using: &random)
            let replicas = (0..<Int.random(in: 1...5, using: &random)).map { index in
                index % 2 == 0 ? "dev-\(index * 7)" : records.randomText(&random)
            }
            var seqs: [String: Int] = [:]
            var moves: [Move] = []
            for index in 0..<Int.random(in: 0...400, using: &random) {
                let replica = replicas.randomElement(using: &random)!
                seqs[replica, default: 0] += 1
                let kind = kinds.randomElement(using: &random)!
                moves.append(
                    Move(
                        gameID: "g", replicaID: replica, authorID: "acct-\(replica.count % 3)", seq: seqs[replica]!,
                        timestamp: HLCTimestamp(
                            wallMillis: 1_700_000_000_000 + Int64(index * Int.random(in: 0...900, using: &random)),
                            counter: UInt16.random(in: 0...3, using: &random)),
                        position: GridPosition(row: Int.random(in: 0..<height, using: &random), col: Int.random(in: 0..<width, using: &random)),
                        letter: kind == .clear ? "" : ["A", "QU", "é", "\"/\\"].randomElement(using: &random)!,
                        mark: CellMark(isPencil: Bool.random(using: &random), verdict: CellMark.Verdict.allCases.randomElement(using: &random)!),
                        cellAuthorID: records.randomText(&random), kind: kind, batchID: "b\(index / 3)"))
            }
            var snapshot = Snapshot.build(width: width, height: height, moves: moves)
            if round % 10 == 9 { snapshot.tally = nil }
            #expect(try snapshot.sortedJSON == encoded(snapshot), "round \(round)")
            #expect(try JSONDecoder().decode(Snapshot.self, from: Data(snapshot.sortedJSON.utf8)) == snapshot, "round \(round)")
        }
    }
}
