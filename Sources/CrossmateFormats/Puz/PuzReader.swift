import CrossmateCore

/// Reads Across Lite .puz files, verifying every checksum the format stores.
public enum PuzReader {
    /// Extensions are four-letter named sections after the strings: name, length, checksum, data, NUL.
    struct Section {
        var name: String
        var data: [UInt8]
    }

    public static func read(_ input: [UInt8]) throws(PuzzleFileError) -> Puzzle {
        guard let start = findStart(input) else {
            throw .notACrossword("no Across Lite header (\"ACROSS&DOWN\") found")
        }
        let bytes = Array(input[start...])
        guard bytes.count >= PuzLayout.headerLength else {
            throw .truncated("the header needs \(PuzLayout.headerLength) bytes but the file has \(bytes.count)")
        }
        let width = Int(bytes[PuzLayout.width])
        let height = Int(bytes[PuzLayout.height])
        guard width > 0, height > 0 else {
            throw .invalidPuzzle(.invalidDimensions(width: width, height: height))
        }
        let clueCount = Int(bytes.uint16(at: PuzLayout.clueCount))
        let puzzleType = bytes.uint16(at: PuzLayout.puzzleType)
        let solutionState = bytes.uint16(at: PuzLayout.solutionState)
        let versionBytes = bytes[PuzLayout.version..<(PuzLayout.version + 4)].prefix { $0 != 0 }
        let version = String(decoding: versionBytes, as: UTF8.self)
        let encoding = PuzTextEncoding(version: version)

        let area = width * height
        var offset = PuzLayout.headerLength
        guard bytes.count >= offset + 2 * area else {
            throw .truncated("the \(width)×\(height) grids need \(2 * area) bytes after the header")
        }
        let solution = Array(bytes[offset..<(offset + area)])
        offset += area
        let fill = Array(bytes[offset..<(offset + area)])
        offset += area

        func nextString(_ what: String) throws(PuzzleFileError) -> [UInt8] {
            guard let end = bytes[offset...].firstIndex(of: 0) else {
                throw .truncated("the file ends inside the \(what)")
            }
            let string = Array(bytes[offset..<end])
            offset = end + 1
            return string
        }
        let title = try nextString("title")
        let author = try nextString("author")
        let copyright = try nextString("copyright")
        var clues: [[UInt8]] = []
        for index in 0..<clueCount {
            clues.append(try nextString("clue list (clue \(index + 1) of \(clueCount))"))
        }
        // Old files may end without the notes terminator; treat what is left as the notes.
        let notes: [UInt8]
        if let end = bytes[offset...].firstIndex(of: 0) {
            notes = Array(bytes[offset..<end])
            offset = end + 1
        } else {
            notes = Array(bytes[offset...])
            offset = bytes.count
        }
        let sections = try readSections(bytes, from: offset)

        try verifyChecksums(
            bytes, solution: solution, fill: fill,
            strings: (title, author, copyright, clues, notes), version: version)

        return try buildPuzzle(
            width: width, height: height, solution: solution, fill: fill,
            texts: (
                encoding.decode(title), encoding.decode(author), encoding.decode(copyright),
                clues.map(encoding.decode), encoding.decode(notes)
            ),
            isDiagramless: puzzleType == PuzLayout.typeDiagramless,
            solutionState: solutionState,
            scrambledChecksum: bytes.uint16(at: PuzLayout.scrambledChecksum),
            sections: sections, encoding: encoding)
    }

    /// Where the file proper starts: two bytes before the magic, after any junk.
    private static func findStart(_ bytes: [UInt8]) -> Int? {
        guard let index = magicIndex(in: bytes), index >= PuzLayout.magicOffset else { return nil }
        return index - PuzLayout.magicOffset
    }

    static func magicIndex(in bytes: [UInt8]) -> Int? {
        let magic = PuzLayout.magic
        guard bytes.count >= magic.count else { return nil }
        for index in 0...(bytes.count - magic.count)
        where bytes[index] == magic[0] && bytes[index..<(index + magic.count)].elementsEqual(magic) {
            return index
        }
        return nil
    }

    private static func readSections(_ bytes: [UInt8], from start: Int) throws(PuzzleFileError) -> [Section] {
        var sections: [Section] = []
        var offset = start
        while bytes.count - offset >= 8 {
            let nameBytes = bytes[offset..<(offset + 4)]
            let name = String(decoding: nameBytes, as: UTF8.self)
            let length = Int(bytes.uint16(at: offset + 4))
            let checksum = bytes.uint16(at: offset + 6)
            offset += 8
            guard bytes.count >= offset + length else {
                throw .truncated("the \(name) section announces \(length) bytes but the file ends first")
            }
            let data = Array(bytes[offset..<(offset + length)])
            offset += length
            guard PuzChecksum.of(data) == checksum else {
                throw .checksumMismatch("the \(name) section checksum does not match its data")
            }
            if offset < bytes.count, bytes[offset] == 0 { offset += 1 }
            sections.append(Section(name: name, data: data))
        }
        guard bytes[offset...].allSatisfy({ $0 == 0 }) else {
            throw .truncated("the file ends inside an extension section header")
        }
        return sections
    }

    typealias RawStrings = (title: [UInt8], author: [UInt8], copyright: [UInt8], clues: [[UInt8]], notes: [UInt8])

    private static func verifyChecksums(
        _ bytes: [UInt8], solution: [UInt8], fill: [UInt8], strings: RawStrings, version: String
    ) throws(PuzzleFileError) {
        let cib = PuzChecksum.of(bytes[PuzLayout.cibRange])
        guard cib == bytes.uint16(at: PuzLayout.cibChecksum) else {
            throw .checksumMismatch("the header (CIB) checksum does not match the header")
        }
        let sums = PuzSums(cib: cib, solution: solution, fill: fill, strings: strings, version: version)
        guard sums.global == bytes.uint16(at: PuzLayout.globalChecksum) else {
            throw .checksumMismatch("the global checksum does not match the file's contents")
        }
        guard sums.maskedLow == Array(bytes[PuzLayout.maskedLow..<(PuzLayout.maskedLow + 4)]),
            sums.maskedHigh == Array(bytes[PuzLayout.maskedHigh..<(PuzLayout.maskedHigh + 4)])
        else {
            throw .checksumMismatch("the masked (ICHEATED) checksums do not match the file's contents")
        }
    }

    typealias Texts = (title: String, author: String, copyright: String, clues: [String], notes: String)

    private static func buildPuzzle(
        width: Int, height: Int, solution: [UInt8], fill: [UInt8], texts: Texts,
        isDiagramless: Bool, solutionState: UInt16, scrambledChecksum: UInt16,
        sections: [Section], encoding: PuzTextEncoding
    ) throws(PuzzleFileError) -> Puzzle {
        let area = width * height
        func section(_ name: String) -> [UInt8]? {
            sections.first { $0.name == name }?.data
        }
        func gridSection(_ name: String) throws(PuzzleFileError) -> [UInt8]? {
            guard let data = section(name) else { return nil }
            guard data.count == area else { throw .malformed("the \(name) section does not cover the grid") }
            return data
        }
        let rebusKeys = try gridSection("GRBS")
        var rebusTable: [Int: String] = [:]
        if let data = section("RTBL") { rebusTable = try parseRebusTable(data, encoding: encoding) }
        let extras = try gridSection("GEXT")
        let hasSolution = solutionState != PuzLayout.stateNoSolution
        let isScrambled = solutionState == PuzLayout.stateScrambled

        var cells: [Cell] = []
        cells.reserveCapacity(area)
        // A scrambled grid keeps each rebus square's first letter; the table (not scrambled)
        // has the whole answer, kept in the lock for unlocking.
        var lockedRebus = [String](repeating: "", count: isScrambled ? area : 0)
        for index in 0..<area {
            let byte = solution[index]
            guard byte != PuzLayout.block, byte != PuzLayout.diagramlessBlock else {
                cells.append(.block)
                continue
            }
            var answer = encoding.decode([byte]).uppercased()
            if let key = rebusKeys?[index], key > 0 {
                guard let entry = rebusTable[Int(key) - 1] else {
                    throw .malformed("square \(index + 1) uses rebus \(Int(key) - 1), missing from the RTBL table")
                }
                answer = entry.uppercased()
                if isScrambled { lockedRebus[index] = answer }
            }
            var cell = Cell(kind: .letter, solution: hasSolution && !isScrambled ? answer : nil)
            cell.isCircled = (extras?[index] ?? 0) & PuzLayout.gextCircled != 0
            cells.append(cell)
        }

        // Clue strings follow the grid: by number, an across clue before a down one.
        let numbering = StandardNumbering(width: width, height: height, cells: cells)
        let expected = numbering.entries(.across).count + numbering.entries(.down).count
        guard expected == texts.clues.count else {
            throw .malformed("the header announces \(texts.clues.count) clues but the grid has \(expected) entries")
        }
        var across: [Clue] = []
        var down: [Clue] = []
        for ((direction, entry), text) in zip(PuzWriter.clueOrder(numbering), texts.clues) {
            let clue = Clue(direction: direction, number: entry.number, text: text, cells: entry.cells)
            if direction == .across { across.append(clue) } else { down.append(clue) }
        }
        for (index, number) in numbering.numbers.enumerated() { cells[index].number = number }

        let lock =
            isScrambled
            ? SolutionLock(
                scrambledSolution: cells.indices.map { cells[$0].isLetter ? encoding.decode([solution[$0]]) : "" },
                checksum: scrambledChecksum, rebus: lockedRebus)
            : nil
        let progress = try savedProgress(
            fill: fill, cells: cells, userRebus: section("RUSR"), extras: extras,
            timer: section("LTIM"), encoding: encoding)

        return try PuzzleFileError.building { () throws(PuzzleError) in
            try Puzzle(
                title: texts.title, author: texts.author, copyright: texts.copyright, notes: texts.notes,
                width: width, height: height, cells: cells, across: across, down: down,
                isDiagramless: isDiagramless, acceptsRebusFirstLetter: true,
                lock: lock, savedProgress: progress)
        }
    }

    /// RTBL: entries such as " 1:XYZ;" mapping a rebus key to its answer.
    private static func parseRebusTable(_ data: [UInt8], encoding: PuzTextEncoding) throws(PuzzleFileError) -> [Int: String] {
        var table: [Int: String] = [:]
        for entry in encoding.decode(data).split(separator: ";") {
            let parts = entry.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let key = Int(parts[0].trimmingSpaces) else {
                throw .malformed("the RTBL rebus table has an unreadable entry \"\(entry)\"")
            }
            table[key] = String(parts[1])
        }
        return table
    }

    private static func savedProgress(
        fill: [UInt8], cells: [Cell], userRebus: [UInt8]?, extras: [UInt8]?, timer: [UInt8]?,
        encoding: PuzTextEncoding
    ) throws(PuzzleFileError) -> SavedProgress? {
        var letters = cells.indices.map { index -> String in
            let byte = fill[index]
            guard cells[index].isLetter, byte != PuzLayout.emptyFill, byte != PuzLayout.block,
                byte != PuzLayout.diagramlessBlock
            else { return "" }
            return encoding.decode([byte]).uppercased()
        }
        if let userRebus {
            let entries = userRebus.split(separator: 0, omittingEmptySubsequences: false)
            guard entries.count >= cells.count else {
                throw .malformed("the RUSR section does not cover the grid")
            }
            for index in cells.indices where !entries[index].isEmpty && cells[index].isLetter {
                letters[index] = encoding.decode(entries[index]).uppercased()
            }
        }
        let flags = extras.map { $0.map { SavedProgress.Flags(rawValue: $0 & 0x70) } } ?? []
        var elapsed: Int?
        var running = false
        if let timer {
            let parts = String(decoding: timer, as: UTF8.self).split(separator: ",")
            guard parts.count == 2, let seconds = Int(parts[0]), let state = Int(parts[1]) else {
                throw .malformed("the LTIM timer section is not \"seconds,state\"")
            }
            elapsed = seconds
            running = state == 0
        }
        let progress = SavedProgress(letters: letters, flags: flags, elapsedSeconds: elapsed, timerRunning: running)
        return progress.isEmpty ? nil : progress
    }
}

/// The checksums that cover a whole .puz file, computed the same way for reading and writing.
struct PuzSums {
    let global: UInt16
    let maskedLow: [UInt8]
    let maskedHigh: [UInt8]

    init(cib: UInt16, solution: [UInt8], fill: [UInt8], strings: PuzReader.RawStrings, version: String) {
        // Strings count with their NUL when non-empty; clues without it; notes only from 1.3 on.
        func textSum(_ seed: UInt16) -> UInt16 {
            var sum = seed
            for part in [strings.title, strings.author, strings.copyright] where !part.isEmpty {
                sum = PuzChecksum.of(part + [0], seed: sum)
            }
            for clue in strings.clues { sum = PuzChecksum.of(clue, seed: sum) }
            if PuzSums.countsNotes(version), !strings.notes.isEmpty {
                sum = PuzChecksum.of(strings.notes + [0], seed: sum)
            }
            return sum
        }
        var global = PuzChecksum.of(solution, seed: cib)
        global = PuzChecksum.of(fill, seed: global)
        self.global = textSum(global)
        let parts = [cib, PuzChecksum.of(solution), PuzChecksum.of(fill), textSum(0)]
        maskedLow = (0..<4).map { PuzLayout.maskLow[$0] ^ UInt8(parts[$0] & 0xFF) }
        maskedHigh = (0..<4).map { PuzLayout.maskHigh[$0] ^ UInt8(parts[$0] >> 8) }
    }

    static func countsNotes(_ version: String) -> Bool {
        let numbers = version.split(separator: ".").map { Int($0) ?? 0 }
        let major = numbers.first ?? 1
        let minor = numbers.count > 1 ? numbers[1] : 0
        return major > 1 || (major == 1 && minor >= 3)
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
