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

/// The text encoding of a .puz file: UTF-8 from version 2.0; before that the format says
/// ISO-8859-1, but the files are Windows-1252 in practice (Across Lite on Windows writes ’ as
/// 0x92, … as 0x85), so bytes 0x80-0x9F are read as Windows-1252 and written back so where the
/// character has such a byte. Line breaks (CR LF, or CR alone) read as line breaks.
struct PuzTextEncoding {
    let isUTF8: Bool

    init(version: String) {
        let major = Int(version.prefix { $0.isNumber }) ?? 1
        isUTF8 = major >= 2
    }

    init(isUTF8: Bool) { self.isUTF8 = isUTF8 }

    /// Windows-1252's characters for bytes 0x80-0x9F; nil where it has none (the byte is read as
    /// its C1 control, which the text rule removes).
    static let windows1252: [Unicode.Scalar?] = [
        "\u{20AC}", nil, "\u{201A}", "\u{0192}", "\u{201E}", "\u{2026}", "\u{2020}", "\u{2021}",
        "\u{02C6}", "\u{2030}", "\u{0160}", "\u{2039}", "\u{0152}", nil, "\u{017D}", nil,
        nil, "\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}", "\u{2022}", "\u{2013}", "\u{2014}",
        "\u{02DC}", "\u{2122}", "\u{0161}", "\u{203A}", "\u{0153}", nil, "\u{017E}", "\u{0178}",
    ]

    /// Each Windows-1252 character above 0x7F that is not Latin-1's, and its byte.
    static let windows1252Bytes: [UInt32: UInt8] = Dictionary(
        uniqueKeysWithValues: windows1252.enumerated().compactMap { index, scalar in scalar.map { ($0.value, UInt8(0x80 + index)) } })

    func decode(_ bytes: some Collection<UInt8>) -> String {
        let text: String
        if isUTF8, let utf8 = String(validating: bytes, as: UTF8.self) {
            text = utf8
        } else {
            text = String(
                String.UnicodeScalarView(
                    bytes.map { byte in
                        (0x80...0x9F).contains(byte) ? Self.windows1252[Int(byte - 0x80)] ?? Unicode.Scalar(byte) : Unicode.Scalar(byte)
                    }
                ))
        }
        guard text.utf8.contains(0x0D) else { return text }
        var lines = String.UnicodeScalarView()
        var afterReturn = false
        for scalar in text.unicodeScalars {
            if scalar == "\r" {
                lines.append("\n")
            } else if !(afterReturn && scalar == "\n") {
                lines.append(scalar)
            }
            afterReturn = scalar == "\r"
        }
        return String(lines)
    }

    /// The bytes of `text`, or `nil` when a character has no Windows-1252 form.
    func encode(_ text: String) -> [UInt8]? {
        if isUTF8 { return Array(text.utf8) }
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            if scalar.value < 0x80 || (0xA0..<0x100).contains(scalar.value) {
                bytes.append(UInt8(scalar.value))
            } else if let byte = Self.windows1252Bytes[scalar.value] {
                bytes.append(byte)
            } else {
                return nil
            }
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
