import NIOCore

/// Pulls values out of the server's JSON by key without decoding the whole document: enough
/// for the few fields the load generator reads, at a fraction of JSONDecoder's cost. Keys are
/// matched as `"key":`, so it reads only documents whose strings cannot contain such text
/// (tokens, identifiers and letters).
struct JSONScan {
    let bytes: [UInt8]

    init(_ buffer: ByteBuffer) { bytes = Array(buffer.readableBytesView) }

    func contains(_ fragment: String) -> Bool {
        ranges(of: Array(fragment.utf8)).first != nil
    }

    /// Every string value of `key`, in document order.
    func strings(_ key: String) -> [String] {
        ranges(of: Array("\"\(key)\":\"".utf8)).map { start in
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += 1 }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
    }

    /// Every integer value of `key`, in document order.
    func integers(_ key: String) -> [Int64] {
        ranges(of: Array("\"\(key)\":".utf8)).compactMap { start in
            var end = start
            while end < bytes.count, bytes[end] == UInt8(ascii: "-") || (bytes[end] >= UInt8(ascii: "0") && bytes[end] <= UInt8(ascii: "9")) {
                end += 1
            }
            return Int64(String(decoding: bytes[start..<end], as: UTF8.self))
        }
    }

    /// The index just after each occurrence of `pattern`.
    private func ranges(of pattern: [UInt8]) -> [Int] {
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return [] }
        var found: [Int] = []
        var index = 0
        let last = bytes.count - pattern.count
        while index <= last {
            if bytes[index] == pattern[0] {
                var matched = true
                for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
                    matched = false
                    break
                }
                if matched {
                    found.append(index + pattern.count)
                    index += pattern.count
                    continue
                }
            }
            index += 1
        }
        return found
    }
}
