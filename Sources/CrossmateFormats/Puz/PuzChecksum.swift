/// The 16-bit rotating checksum of the Across Lite format.
enum PuzChecksum {
    static func of<Bytes: Sequence<UInt8>>(_ bytes: Bytes, seed: UInt16 = 0) -> UInt16 {
        var sum = seed
        for byte in bytes {
            sum = (sum >> 1) | ((sum & 1) << 15)
            sum = sum &+ UInt16(byte)
        }
        return sum
    }
}
