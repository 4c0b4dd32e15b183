/// Unpadded base64url (RFC 4648 §5), as change tokens and secrets travel. Written out by hand:
/// a token is encoded on every response and decoded on every fetch, and going through
/// Foundation's padded base64 plus three string replacements cost more than the request's
/// database work.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            if second != nil { output.append(alphabet[Int(group >> 6 & 0x3F)]) }
            if third != nil { output.append(alphabet[Int(group & 0x3F)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes, or `nil` when `text` is not unpadded base64url (padding and other alphabets
    /// are refused, as is a final character with stray low bits).
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count * 3 / 4)
        var group: UInt32 = 0
        var bits = 0
        let valid = values.withUnsafeBufferPointer { values in
            for character in utf8 {
                let value = values[Int(character)]
                guard value != 0xFF else { return false }
                group = group << 6 | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    output.append(UInt8(truncatingIfNeeded: group >> UInt32(bits)))
                    group &= (1 << UInt32(bits)) - 1
                }
            }
            return true
        }
        guard valid, group == 0 else { return nil }
        return output
    }
}
