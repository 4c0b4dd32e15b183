/// Reads the first file of a ZIP archive (stored or deflated), as zipped .jpz files hold one XML
/// document. Every offset and size is checked against the data, so a damaged archive is an error.
enum ZipArchive {
    static func firstFile(_ data: [UInt8], limit: Int) throws(PuzzleFileError) -> [UInt8] {
        func uint16(_ offset: Int) throws(PuzzleFileError) -> Int {
            guard offset >= 0, offset + 2 <= data.count else { throw .malformed("the zipped .jpz is cut short") }
            return Int(data[offset]) | Int(data[offset + 1]) << 8
        }
        func uint32(_ offset: Int) throws(PuzzleFileError) -> Int {
            let low = try uint16(offset)
            return low | (try uint16(offset + 2)) << 16
        }
        // The end-of-central-directory record sits within the last 64 KB (its comment) + 22 bytes.
        var end = data.count - 22
        let earliest = max(0, data.count - 22 - 0xFFFF)
        while end >= earliest, try uint32(end) != 0x0605_4B50 { end -= 1 }
        guard end >= earliest else { throw .malformed("the zipped .jpz has no ZIP directory") }
        let entryCount = try uint16(end + 10)
        var entry = try uint32(end + 16)
        for _ in 0..<entryCount {
            guard try uint32(entry) == 0x0201_4B50 else { throw .malformed("the zipped .jpz directory is damaged") }
            let method = try uint16(entry + 10)
            let crc = UInt32(try uint32(entry + 16))
            let compressedSize = try uint32(entry + 20)
            let nameLength = try uint16(entry + 28)
            let extraLength = try uint16(entry + 30)
            let commentLength = try uint16(entry + 32)
            let localHeader = try uint32(entry + 42)
            let isFolder = nameLength > 0 && entry + 46 + nameLength <= data.count && data[entry + 45 + nameLength] == UInt8(ascii: "/")
            entry += 46 + nameLength + extraLength + commentLength
            if isFolder { continue }

            guard try uint32(localHeader) == 0x0403_4B50 else { throw .malformed("the zipped .jpz file header is damaged") }
            let start = localHeader + 30 + (try uint16(localHeader + 26)) + (try uint16(localHeader + 28))
            guard start + compressedSize <= data.count else { throw .malformed("the zipped .jpz is cut short") }
            let stored = Array(data[start..<(start + compressedSize)])
            let contents: [UInt8]
            switch method {
            case 0:
                guard stored.count <= limit else { throw .malformed("the zipped .jpz unpacks to more than \(limit >> 20) MB") }
                contents = stored
            case 8:
                do {
                    contents = try Inflate.decompress(stored, limit: limit)
                } catch .tooLarge {
                    throw .malformed("the zipped .jpz unpacks to more than \(limit >> 20) MB")
                } catch {
                    throw .malformed("the zipped .jpz is corrupt (\(error))")
                }
            default:
                throw .malformed("the zipped .jpz uses compression method \(method); only stored and deflated are supported")
            }
            guard CRC32.checksum(contents) == crc else {
                throw .malformed("the zipped .jpz is corrupt (its CRC does not match)")
            }
            return contents
        }
        throw .malformed("the zipped .jpz holds no file")
    }
}
