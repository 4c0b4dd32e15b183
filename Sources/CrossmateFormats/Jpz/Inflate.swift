/// DEFLATE decompression (RFC 1951), written for untrusted input: every read is bounds-checked
/// and the output is capped, so corrupt or hostile data ends in an error, never a trap.
struct Inflate {
    enum Failure: Error, Equatable {
        case corrupt(String)
        case tooLarge
    }

    private let input: [UInt8]
    private let limit: Int
    private var position = 0
    private var bitBuffer: UInt32 = 0
    private var bitCount = 0
    private var output: [UInt8] = []

    /// Inflates `input`, failing with `tooLarge` once the output would exceed `limit` bytes.
    static func decompress(_ input: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        var inflater = Inflate(input: input, limit: limit)
        try inflater.run()
        return inflater.output
    }

    private init(input: [UInt8], limit: Int) {
        self.input = input
        self.limit = limit
    }

    private mutating func bits(_ count: Int) throws(Failure) -> Int {
        while bitCount < count {
            guard position < input.count else { throw .corrupt("the compressed data ends early") }
            bitBuffer |= UInt32(input[position]) << UInt32(bitCount)
            position += 1
            bitCount += 8
        }
        let value = Int(bitBuffer & ((1 << UInt32(count)) - 1))
        bitBuffer >>= UInt32(count)
        bitCount -= count
        return value
    }

    private mutating func run() throws(Failure) {
        var isLast = false
        while !isLast {
            isLast = try bits(1) == 1
            switch try bits(2) {
            case 0: try storedBlock()
            case 1: try huffmanBlock(Self.fixedLengths, Self.fixedDistances)
            case 2:
                let (lengths, distances) = try dynamicTables()
                try huffmanBlock(lengths, distances)
            default: throw .corrupt("a block has the reserved type 3")
            }
        }
    }

    private mutating func storedBlock() throws(Failure) {
        bitBuffer = 0
        bitCount = 0
        guard position + 4 <= input.count else { throw .corrupt("a stored block header is cut short") }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        position += 4
        guard length == ~complement & 0xFFFF else { throw .corrupt("a stored block length fails its check") }
        guard position + length <= input.count else { throw .corrupt("a stored block is cut short") }
        guard output.count + length <= limit else { throw .tooLarge }
        output += input[position..<(position + length)]
        position += length
    }

    /// A canonical Huffman code: how many codes have each length, and the symbols in code order.
    struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int]

        init(lengths: [Int]) throws(Failure) {
            symbols = [Int](repeating: 0, count: lengths.count)
            for length in lengths { counts[length] += 1 }
            var left = 1
            for length in 1..<16 {
                left = left * 2 - counts[length]
                guard left >= 0 else { throw .corrupt("a Huffman table is over-subscribed") }
            }
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            for (symbol, length) in lengths.enumerated() where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }
    }

    private mutating func decode(_ code: Huffman) throws(Failure) -> Int {
        var value = 0
        var first = 0
        var index = 0
        for length in 1..<16 {
            value |= try bits(1)
            let count = code.counts[length]
            if value - count < first { return code.symbols[index + (value - first)] }
            index += count
            first = (first + count) << 1
            value <<= 1
        }
        throw .corrupt("a Huffman code is not in its table")
    }

    private static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
    ]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
    ]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private static let fixedLengths = try! Huffman(lengths: (0..<288).map { $0 < 144 ? 8 : $0 < 256 ? 9 : $0 < 280 ? 7 : 8 })
    private static let fixedDistances = try! Huffman(lengths: [Int](repeating: 5, count: 30))

    private mutating func huffmanBlock(_ lengths: Huffman, _ distances: Huffman) throws(Failure) {
        while true {
            let symbol = try decode(lengths)
            if symbol < 256 {
                guard output.count < limit else { throw .tooLarge }
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let index = symbol - 257
                guard index < Self.lengthBase.count else { throw .corrupt("a length code is out of range") }
                let length = Self.lengthBase[index] + (try bits(Self.lengthExtra[index]))
                let distanceCode = try decode(distances)
                guard distanceCode < Self.distanceBase.count else { throw .corrupt("a distance code is out of range") }
                let distance = Self.distanceBase[distanceCode] + (try bits(Self.distanceExtra[distanceCode]))
                guard distance <= output.count else { throw .corrupt("a distance reaches before the start") }
                guard output.count + length <= limit else { throw .tooLarge }
                let start = output.count - distance
                for offset in 0..<length { output.append(output[start + offset]) }
            }
        }
    }

    private mutating func dynamicTables() throws(Failure) -> (Huffman, Huffman) {
        let lengthCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeCount = try bits(4) + 4
        guard lengthCount <= 286, distanceCount <= 30 else { throw .corrupt("a block has too many codes") }
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var codeLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeCount { codeLengths[order[index]] = try bits(3) }
        let codeCode = try Huffman(lengths: codeLengths)

        var lengths: [Int] = []
        while lengths.count < lengthCount + distanceCount {
            let symbol = try decode(codeCode)
            switch symbol {
            case 0..<16: lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw .corrupt("a repeat has nothing to repeat") }
                lengths += repeatElement(previous, count: 3 + (try bits(2)))
            case 17: lengths += repeatElement(0, count: 3 + (try bits(3)))
            default: lengths += repeatElement(0, count: 11 + (try bits(7)))
            }
        }
        guard lengths.count == lengthCount + distanceCount else { throw .corrupt("code lengths overrun their table") }
        guard lengths[256] != 0 else { throw .corrupt("a block has no end-of-block code") }
        return (try Huffman(lengths: Array(lengths[..<lengthCount])), try Huffman(lengths: Array(lengths[lengthCount...])))
    }
}
