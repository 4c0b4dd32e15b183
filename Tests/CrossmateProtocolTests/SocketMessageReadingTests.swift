import CrossmateSync
import Foundation
import Testing

@testable import CrossmateProtocol

/// Random records with awkward text (quotes, backslashes, control characters, every UTF-8
/// length) and extreme numbers, for comparing hand-written JSON with Foundation's.
struct AwkwardRecords {
    static let pieces = [
        "A", "z", "QU", "é", "漢字", "🧩", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{08}", "\u{0C}", "\r", "\u{1F}", "\u{7F}", "\u{2028}", " ", "-",
        ":", "{", "}",
    ]

    func randomText(_ random: inout SeededRandomNumberGenerator) -> String {
        (0..<Int.random(in: 0...6, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
    }

    func randomInteger(_ random: inout SeededRandomNumberGenerator) -> Int {
        [0, 1, -1, 7, 400, Int.max, Int.min, Int.random(in: -1_000_000...1_000_000, using: &random)].randomElement(using: &random)!
    }

    func randomPush(_ random: inout SeededRandomNumberGenerator) -> ClientSocketMessage {
        let moves = (0..<Int.random(in: 0...4, using: &random)).map { _ in
            MoveRecord(
                gameID: randomText(&random), replicaID: randomText(&random), authorID: randomText(&random),
                seq: randomInteger(&random),
                timestamp: HLCTimestamp(packed: [0, UInt64.max, UInt64.random(in: 0...UInt64.max, using: &random)].randomElement(using: &random)!),
                row: randomInteger(&random), col: randomInteger(&random), letter: randomText(&random), mark: randomInteger(&random),
                cellAuthorID: randomText(&random), kind: randomText(&random), batchID: randomText(&random),
                targetSeq: Bool.random(using: &random) ? nil : randomInteger(&random),
                prevSeqAtCell: Bool.random(using: &random) ? nil : randomInteger(&random))
        }
        return .push(gameID: randomText(&random), id: randomInteger(&random), moves: moves)
    }
}

/// The hand-written push reader must agree with `JSONDecoder` on everything it accepts, and
/// hand everything else to it.
@Suite struct SocketMessageReadingTests {
    let records = AwkwardRecords()
    func randomPush(_ random: inout SeededRandomNumberGenerator) -> ClientSocketMessage { records.randomPush(&random) }

    /// JSON as some other client might write it: keys in any order, whitespace anywhere JSON
    /// allows it, characters escaped as `\uXXXX` or not, nil optionals as null or left out.
    func looselyWritten(_ message: ClientSocketMessage, _ random: inout SeededRandomNumberGenerator) -> String {
        func space() -> String { ["", "", " ", "\n", "\t ", "\r\n"].randomElement(using: &random)! }
        func string(_ text: String) -> String {
            var output = "\""
            for scalar in text.unicodeScalars {
                let mustEscape = scalar == "\"" || scalar == "\\" || scalar.value < 0x20
                if mustEscape || (scalar.value < 0x10000 && Int.random(in: 0..<4, using: &random) == 0) {
                    output += String(format: "\\u%04X", scalar.value)
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
            return output + "\""
        }
        func object(_ members: [(String, String?)]) -> String {
            let written = members.shuffled(using: &random).compactMap { key, value -> String? in
                guard let value = value ?? (Bool.random(using: &random) ? "null" : nil) else { return nil }
                return space() + string(key) + space() + ":" + space() + value + space()
            }
            return "{" + written.joined(separator: ",") + space() + "}"
        }
        guard case let .push(gameID, id, moves) = message else { preconditionFailure("only pushes") }
        let movesJSON =
            "["
            + moves.map { move in
                space()
                    + object([
                        ("gameID", string(move.gameID)), ("replicaID", string(move.replicaID)), ("authorID", string(move.authorID)),
                        ("seq", "\(move.seq)"),
                        ("timestamp", object([("wallMillis", "\(move.timestamp.wallMillis)"), ("counter", "\(move.timestamp.counter)")])),
                        ("row", "\(move.row)"), ("col", "\(move.col)"),
                        ("letter", string(move.letter)), ("mark", "\(move.mark)"), ("cellAuthorID", string(move.cellAuthorID)),
                        ("kind", string(move.kind)), ("batchID", string(move.batchID)),
                        ("targetSeq", move.targetSeq.map { "\($0)" }), ("prevSeqAtCell", move.prevSeqAtCell.map { "\($0)" }),
                    ]) + space()
            }.joined(separator: ",") + "]"
        return space() + object([("type", string("push")), ("gameID", string(gameID)), ("id", "\(id)"), ("moves", movesJSON)]) + space()
    }

    func codable(_ text: String) -> ClientSocketMessage? {
        try? JSONDecoder().decode(ClientSocketMessage.self, from: Data(text.utf8))
    }

    @Test func readsEveryPushJSONEncoderWritesAsJSONDecoderDoes() throws {
        var random = SeededRandomNumberGenerator(seed: 5)
        let plain = JSONEncoder()
        let sorted = JSONEncoder()
        sorted.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        for _ in 0..<500 {
            let push = randomPush(&random)
            for encoder in [plain, sorted] {
                let text = String(decoding: try encoder.encode(push), as: UTF8.self)
                #expect(ClientSocketMessage.readPush(text) == push, "\(text)")
                #expect(codable(text) == push)
            }
        }
    }

    @Test func readsLooselyWrittenPushesAsJSONDecoderDoes() {
        var random = SeededRandomNumberGenerator(seed: 6)
        for _ in 0..<500 {
            let push = randomPush(&random)
            let text = looselyWritten(push, &random)
            #expect(ClientSocketMessage.readPush(text) == push, "\(text)")
            #expect(codable(text) == push, "\(text)")
        }
    }

    /// Damaged pushes: whatever the reader still accepts, JSONDecoder accepts the same way.
    @Test func acceptsNothingJSONDecoderWouldReadDifferently() {
        var random = SeededRandomNumberGenerator(seed: 7)
        let damage = Array(#"{}[],:" \-.0e1+Enul\"#.utf8) + [0x01]
        var (acceptedByBoth, declined) = (0, 0)
        for _ in 0..<4_000 {
            var bytes = Array(looselyWritten(randomPush(&random), &random).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(damage.randomElement(using: &random)!, at: at)
                default: bytes[at] = damage.randomElement(using: &random)!
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let read = ClientSocketMessage.readPush(text) else {
                declined += 1
                continue
            }
            #expect(codable(text) == read, "\(text)")
            acceptedByBoth += 1
        }
        // Both branches were exercised.
        #expect(acceptedByBoth > 100)
        #expect(declined > 1_000)
    }

    @Test func leavesWhatItDoesNotExpectToJSONDecoder() throws {
        let move =
            #"{"gameID":"g","replicaID":"d","authorID":"a","seq":1,"timestamp":{"counter":0,"wallMillis":5},"row":0,"col":0,"letter":"A","mark":0,"cellAuthorID":"a","kind":"input","batchID":"d:1"}"#
        let declined = [
            #"{"type":"push","gameID":"g","id":-,"id":5,"moves":[]}"#,  // not JSON, whatever follows
            #"{"type":"push","gameID":"g","id":1,"id":2,"moves":[]}"#,  // a duplicate key
            #"{"type":"push","gameID":"g","id":1.0,"moves":[]}"#,  // a number with a fraction
            #"{"type":"push","gameID":"g","id":01,"moves":[]}"#,  // a leading zero
            #"{"type":"push","gameID":"g","id":1,"moves":[],"extra":true}"#,  // a key it does not know
            #"{"type":"push","gameID":"g\ud83e\udde9","id":1,"moves":[]}"#,  // a surrogate pair
            #"{"type":"push","gameID":"g","id":1,"moves":[]} x"#,  // trailing text
            #"{"type":"ping"}"#,
        ]
        for text in declined { #expect(ClientSocketMessage.readPush(text) == nil, "\(text)") }

        // Through `decode`, the ones JSONDecoder reads still arrive; the rest get its errors.
        #expect(
            try ClientSocketMessage.decode(#"{"type":"push","gameID":"g","id":1,"moves":[\#(move)],"extra":true}"#)
                == ClientSocketMessage.decode(#"{"type":"push","gameID":"g","id":1,"moves":[\#(move)]}"#))
        #expect(
            try ClientSocketMessage.decode(#"{"type":"push","gameID":"g\ud83e\udde9","id":1,"moves":[]}"#)
                == .push(gameID: "g🧩", id: 1, moves: []))
        #expect(try ClientSocketMessage.decode(#"{"type":"ping"}"#) == .ping)
        #expect(throws: DecodingError.self) { try ClientSocketMessage.decode(#"{"type":"push","gameID":"g","id":1.5,"moves":[]}"#) }
        #expect(throws: DecodingError.self) { try ClientSocketMessage.decode(#"{"type":"push","gameID":"g","id":-,"id":5,"moves":[]}"#) }
    }
}
