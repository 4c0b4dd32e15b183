import Foundation

/// JSON written by hand for what passes by the thousand a second (moves, pushes, pokes),
/// spelled exactly as `JSONEncoder` with `.withoutEscapingSlashes` spells it, so that text from
/// here and text from the encoder can be compared byte for byte.
public enum JSONText {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// `value` as JSONEncoder writes it with sorted keys and unescaped slashes: how records are
    /// stored (an identical resend has an identical body). Only the protocol's own value types
    /// pass through here, and JSONEncoder cannot fail on them.
    public static func sorted<T: Encodable>(_ value: T) -> String {
        guard let data = try? encoder.encode(value) else { preconditionFailure("\(T.self) failed to encode as JSON") }
        return String(decoding: data, as: UTF8.self)
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        var output = ""
        appendQuoted(text, to: &output)
        return output
    }

    /// Appends `text` as a JSON string literal: `"` and `\` escaped, backspace, tab, newline,
    /// form feed and return as short escapes, other control characters as `\u00xx`, everything
    /// else as it is.
    public static func appendQuoted(_ text: String, to output: inout String) {
        output.append("\"")
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            output.append(text)
            output.append("\"")
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output.append("\\\"")
            case "\\": output.append("\\\\")
            case "\u{08}": output.append("\\b")
            case "\t": output.append("\\t")
            case "\n": output.append("\\n")
            case "\u{0C}": output.append("\\f")
            case "\r": output.append("\\r")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output.append("\\u00" + (hex.count < 2 ? "0" : "") + hex)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output.append("\"")
    }
}

extension MoveRecord {
    /// The record as `JSONEncoder` writes it with sorted keys and unescaped slashes, byte for
    /// byte: how the store keeps it (an identical resend must have an identical body).
    public var sortedJSON: String {
        var output = ""
        output.reserveCapacity(200 + letter.utf8.count)
        appendSortedJSON(to: &output)
        return output
    }

    func appendSortedJSON(to output: inout String) {
        output.append(#"{"authorID":"#)
        JSONText.appendQuoted(authorID, to: &output)
        output.append(#","batchID":"#)
        JSONText.appendQuoted(batchID, to: &output)
        output.append(#","cellAuthorID":"#)
        JSONText.appendQuoted(cellAuthorID, to: &output)
        output.append(#","col":\#(col),"gameID":"#)
        JSONText.appendQuoted(gameID, to: &output)
        output.append(#","kind":"#)
        JSONText.appendQuoted(kind, to: &output)
        output.append(#","letter":"#)
        JSONText.appendQuoted(letter, to: &output)
        output.append(#","mark":\#(mark)"#)
        if let prevSeqAtCell { output.append(#","prevSeqAtCell":\#(prevSeqAtCell)"#) }
        output.append(#","replicaID":"#)
        JSONText.appendQuoted(replicaID, to: &output)
        output.append(#","row":\#(row),"seq":\#(seq)"#)
        if let targetSeq { output.append(#","targetSeq":\#(targetSeq)"#) }
        output.append(#","timestamp":{"counter":\#(timestamp.counter),"wallMillis":\#(timestamp.wallMillis)}}"#)
    }
}

extension ClientSocketMessage {
    /// A push as JSON text (what `JSONEncoder` writes, keys sorted), for a client that sends
    /// one with every keystroke.
    public static func pushJSON(gameID: String, id: Int, moves: [MoveRecord]) -> String {
        var output = #"{"gameID":"#
        JSONText.appendQuoted(gameID, to: &output)
        output.append(#","id":\#(id),"moves":["#)
        for (index, move) in moves.enumerated() {
            if index > 0 { output.append(",") }
            move.appendSortedJSON(to: &output)
        }
        output.append(#"],"type":"push"}"#)
        return output
    }
}
