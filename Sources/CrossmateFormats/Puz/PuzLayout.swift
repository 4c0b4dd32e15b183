/// Offsets and constants of the Across Lite binary layout, relative to the start of the file
/// proper (two bytes before the `ACROSS&DOWN` magic).
enum PuzLayout {
    static let magic: [UInt8] = Array("ACROSS&DOWN\0".utf8)
    static let magicOffset = 0x02
    static let headerLength = 0x34

    static let globalChecksum = 0x00
    static let cibChecksum = 0x0E
    static let maskedLow = 0x10
    static let maskedHigh = 0x14
    static let version = 0x18
    static let scrambledChecksum = 0x1E
    static let width = 0x2C
    static let height = 0x2D
    static let clueCount = 0x2E
    static let puzzleType = 0x30
    static let solutionState = 0x32
    /// The eight header bytes the CIB checksum covers (width through solution state).
    static let cibRange = 0x2C..<0x34

    static let typeNormal: UInt16 = 0x0001
    static let typeDiagramless: UInt16 = 0x0401
    static let stateUnscrambled: UInt16 = 0x0000
    static let stateNoSolution: UInt16 = 0x0002
    static let stateScrambled: UInt16 = 0x0004

    static let block = UInt8(ascii: ".")
    static let diagramlessBlock = UInt8(ascii: ":")
    static let emptyFill = UInt8(ascii: "-")

    /// Extension flags (GEXT).
    static let gextCircled: UInt8 = 0x80

    /// The masked checksums spell "ICHEATED" when every part sums to zero.
    static let maskLow: [UInt8] = Array("ICHE".utf8)
    static let maskHigh: [UInt8] = Array("ATED".utf8)
}

/// The text encoding of a .puz file: ISO-8859-1 through version 1.x, UTF-8 from 2.0.
struct PuzTextEncoding {
    let isUTF8: Bool

    init(version: String) {
        let major = Int(version.prefix { $0.isNumber }) ?? 1
        isUTF8 = major >= 2
    }

    init(isUTF8: Bool) { self.isUTF8 = isUTF8 }

    func decode(_ bytes: some Collection<UInt8>) -> String {
        if isUTF8, let text = String(validating: bytes, as: UTF8.self) { return text }
        // Latin-1 maps each byte to the code point of the same value.
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// The bytes of `text`, or `nil` when a character has no ISO-8859-1 form.
    func encode(_ text: String) -> [UInt8]? {
        if isUTF8 { return Array(text.utf8) }
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            guard scalar.value < 256 else { return nil }
            bytes.append(UInt8(scalar.value))
        }
        return bytes
    }
}

extension Array where Element == UInt8 {
    func uint16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
    }

    mutating func setUInt16(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(value & 0xFF)
        self[offset + 1] = UInt8(value >> 8)
    }

    mutating func appendUInt16(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }
}
