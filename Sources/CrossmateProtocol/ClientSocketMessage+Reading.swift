import CrossmateSync
import Foundation

extension ClientSocketMessage {
    /// Decodes a socket message exactly as `JSONDecoder` does. A push — nearly every message a
    /// typing device sends — is read by a small hand-written reader; anything it does not expect
    /// (another message type, a key it does not know, a duplicate key, a number with a fraction,
    /// and every malformed message) goes to `JSONDecoder`, so what a client is told about a bad
    /// message comes from there.
    public static func decode(_ text: String, decoder: JSONDecoder = JSONDecoder()) throws -> ClientSocketMessage {
        if let push = readPush(text) { return push }
        return try decoder.decode(ClientSocketMessage.self, from: Data(text.utf8))
    }

    /// The push in `text`, or `nil` when the hand-written reader declines it.
    static func readPush(_ text: String) -> ClientSocketMessage? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = PushReader(bytes: bytes)
            return reader.message()
        }
    }
}

/// Reads `{"type":"push","gameID":…,"id":…,"moves":[…]}` in any key order, with JSON's
/// whitespace and string escapes. Every method declines by returning `nil` (or false).
private struct PushReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func message() -> ClientSocketMessage? {
        var type: String?
        var gameID: String?
        var id: Int?
        var moves: [MoveRecord]?
        let complete = object { reader, key in
            switch key {
            case "type" where type == nil:
                type = reader.string()
                return type != nil
            case "gameID" where gameID == nil:
                gameID = reader.string()
                return gameID != nil
            case "id" where id == nil:
                id = reader.integer()
                return id != nil
            case "moves" where moves == nil:
                moves = reader.array { $0.move() }
                return moves != nil
            default: return false
            }
        }
        skipWhitespace()
        guard complete, index == bytes.count, type == "push", let gameID, let id, let moves else { return nil }
        return .push(gameID: gameID, id: id, moves: moves)
    }

    mutating func move() -> MoveRecord? {
        var gameID: String?
        var replicaID: String?
        var authorID: String?
        var seq: Int?
        var timestamp: HLCTimestamp?
        var row: Int?
        var col: Int?
        var letter: String?
        var mark: Int?
        var cellAuthorID: String?
        var kind: String?
        var batchID: String?
        // Optional keys: absent and null both mean nil, as `decodeIfPresent` has it.
        var targetSeq: Int?
        var prevSeqAtCell: Int?
        var seen: Set<String> = []
        let complete = object { reader, key in
            guard seen.insert(key).inserted else { return false }
            switch key {
            case "gameID":
                gameID = reader.string()
                return gameID != nil
            case "replicaID":
                replicaID = reader.string()
                return replicaID != nil
            case "authorID":
                authorID = reader.string()
                return authorID != nil
            case "seq":
                seq = reader.integer()
                return seq != nil
            case "timestamp":
                timestamp = reader.timestamp()
                return timestamp != nil
            case "row":
                row = reader.integer()
                return row != nil
            case "col":
                col = reader.integer()
                return col != nil
            case "letter":
                letter = reader.string()
                return letter != nil
            case "mark":
                mark = reader.integer()
                return mark != nil
            case "cellAuthorID":
                cellAuthorID = reader.string()
                return cellAuthorID != nil
            case "kind":
                kind = reader.string()
                return kind != nil
            case "batchID":
                batchID = reader.string()
                return batchID != nil
            case "targetSeq": return reader.optionalInteger(&targetSeq)
            case "prevSeqAtCell": return reader.optionalInteger(&prevSeqAtCell)
            default: return false
            }
        }
        guard complete, let gameID, let replicaID, let authorID, let seq, let timestamp, let row, let col, let letter, let mark,
            let cellAuthorID, let kind, let batchID
        else { return nil }
        return MoveRecord(
            gameID: gameID, replicaID: replicaID, authorID: authorID, seq: seq, timestamp: timestamp, row: row, col: col,
            letter: letter, mark: mark, cellAuthorID: cellAuthorID, kind: kind, batchID: batchID,
            targetSeq: targetSeq, prevSeqAtCell: prevSeqAtCell)
    }

    /// `{"counter": C, "wallMillis": W}` in range; anything else declines (and JSONDecoder
    /// says what is wrong).
    mutating func timestamp() -> HLCTimestamp? {
        var counter: UInt16?
        var wall: Int64?
        let complete = object { reader, key in
            switch key {
            case "counter" where counter == nil:
                counter = reader.integer()
                return counter != nil
            case "wallMillis" where wall == nil:
                wall = reader.integer()
                return wall != nil
            default: return false
            }
        }
        guard complete, let counter, let wall, (0...HLCTimestamp.maximumWall).contains(wall) else { return nil }
        return HLCTimestamp(wallMillis: wall, counter: counter)
    }

    // MARK: JSON

    /// Reads an object, handing each key to `member`, which reads the value and returns false to
    /// decline (a key it does not know or already had, or a value it could not read).
    private mutating func object(_ member: (inout PushReader, String) -> Bool) -> Bool {
        skipWhitespace()
        guard take(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return true }
        while true {
            skipWhitespace()
            guard let key = string() else { return false }
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard member(&self, key) else { return false }
            skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "}"))
        }
    }

    private mutating func array<Element>(_ element: (inout PushReader) -> Element?) -> [Element]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var elements: [Element] = []
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return elements }
        while true {
            skipWhitespace()
            guard let next = element(&self) else { return nil }
            elements.append(next)
            skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "]")) ? elements : nil
        }
    }

    /// A JSON integer (`-?(0|[1-9][0-9]*)`) that fits; a fraction or exponent declines.
    mutating func integer<Value: FixedWidthInteger>() -> Value? {
        let negative = take(UInt8(ascii: "-"))
        let start = index
        var value: Value = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let digit = Value(bytes[index] - UInt8(ascii: "0"))
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (added, overflowAgain) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow, !overflowAgain else { return nil }
            value = added
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) { return nil }
        return value
    }

    /// An integer or `null` into `value`; false when it is neither.
    mutating func optionalInteger(_ value: inout Int?) -> Bool {
        if literal("null") { return true }
        value = integer()
        return value != nil
    }

    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        // The common case: no escapes, so the bytes are the string (they are valid UTF-8: they
        // came from a String).
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { return nil }
            index += 1
        }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self).unicodeScalars)
        var pending: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
            pending.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush()
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    // Surrogate pairs and lone surrogates are left to JSONDecoder.
                    guard let code = hex4(), let scalar = Unicode.Scalar(code) else { return nil }
                    scalars.append(scalar)
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                pending.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }
}
