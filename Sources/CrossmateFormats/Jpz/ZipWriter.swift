/// Writes a zip archive of stored (uncompressed) files: what a player downloads their games in.
/// Names are the caller's (plain ASCII file names); every size is checked against the format's
/// 32-bit fields.
public enum ZipWriter {
    public static func write(_ files: [(name: String, bytes: [UInt8])]) throws(PuzzleFileError) -> [UInt8] {
        var out: [UInt8] = []
        var directory: [UInt8] = []
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
        func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        guard files.count < 0xFFFF else { throw .cannotWrite("a zip holds at most 65,534 files here") }
        for file in files {
            let name = Array(file.name.utf8)
            guard name.count < 0xFFFF, file.bytes.count < 0xFFFF_FFFF, out.count < 0xFFFF_FFFF else {
                throw .cannotWrite("the archive would be larger than a zip without extensions holds")
            }
            let crc = CRC32.checksum(file.bytes)
            let offset = UInt32(out.count)
            // Version 2.0, no flags but UTF-8 names (bit 11), stored, no time (1980-01-01).
            let common =
                le16(20) + le16(0x0800) + le16(0) + le16(0) + le16(0x21) + le32(crc) + le32(UInt32(file.bytes.count))
                + le32(UInt32(file.bytes.count)) + le16(name.count) + le16(0)
            out += [0x50, 0x4B, 0x03, 0x04] + common + name + file.bytes
            directory += [0x50, 0x4B, 0x01, 0x02] + le16(20) + common + le16(0) + le16(0) + le16(0) + le32(0) + le32(offset) + name
        }
        let start = UInt32(out.count)
        out += directory
        out +=
            [0x50, 0x4B, 0x05, 0x06] + le16(0) + le16(0) + le16(files.count) + le16(files.count) + le32(UInt32(directory.count)) + le32(start)
            + le16(0)
        return out
    }
}
