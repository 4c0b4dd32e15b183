import CrossmateCore

/// Writes Across Lite .puz files with every checksum set. Text that fits ISO-8859-1 is written as
/// version 1.3; otherwise the file is version 2.0 in UTF-8.
public enum PuzWriter {
    public static func write(_ puzzle: Puzzle, lockKey: Int? = nil) throws(PuzzleFileError) -> [UInt8] {
        var puzzle = puzzle
        if let lockKey { puzzle = try puzzle.locking(withKey: lockKey) }
        guard !puzzle.cells.contains(where: { !$0.bars.isEmpty }) else {
            throw .cannotWrite("the .puz format has no bars; save barred puzzles as .ipuz")
        }
        // .puz has no voids: they become blocks, and the entries follow standard numbering.
        let cells = puzzle.cells.map { $0.kind == .void ? Cell.block : $0 }
        let numbering = StandardNumbering(width: puzzle.width, height: puzzle.height, cells: cells)
        let orderedClues = clueOrder(numbering).map { direction, entry in
            puzzle.clues(direction).first { $0.cells == entry.cells }?.text ?? ""
        }
        let texts = [puzzle.title, puzzle.author, puzzle.copyright, puzzle.notes] + orderedClues
        let encoding = PuzTextEncoding(isUTF8: texts.contains { PuzTextEncoding(isUTF8: false).encode($0) == nil })
        func encoded(_ text: String) -> [UInt8] {
            // Strings end at NUL, so a NUL inside one cannot be kept.
            (encoding.encode(text) ?? Array(text.utf8)).filter { $0 != 0 }
        }

        let area = puzzle.width * puzzle.height
        // A diagramless grid's blocks are ':' in the solution and the fill, as Across Lite writes.
        let block = puzzle.isDiagramless ? PuzLayout.diagramlessBlock : PuzLayout.block
        var solution = [UInt8](repeating: block, count: area)
        var fill = [UInt8](repeating: block, count: area)
        var rebusKeys = [UInt8](repeating: 0, count: area)
        var rebusTable: [String] = []
        var extras = [UInt8](repeating: 0, count: area)
        var userRebus: [[UInt8]] = Array(repeating: [], count: area)
        let progress = puzzle.savedProgress
        func addRebus(_ answer: String, at index: Int) throws(PuzzleFileError) {
            let key =
                rebusTable.firstIndex(of: answer)
                ?? {
                    rebusTable.append(answer)
                    return rebusTable.count - 1
                }()
            // Table keys count from 1, as Across Lite writes them; GRBS holds key + 1.
            guard key + 2 <= 255 else { throw .cannotWrite("the .puz rebus table holds at most 253 answers") }
            rebusKeys[index] = UInt8(key + 2)
        }
        for index in 0..<area where cells[index].isLetter {
            let cell = cells[index]
            if let lock = puzzle.lock {
                // Scrambled first letters in the grid; rebus answers in the table, in the clear.
                solution[index] = Array(lock.scrambledSolution[index].utf8).first ?? UInt8(ascii: "X")
                if let answer = lock.rebusAnswer(at: index) { try addRebus(answer, at: index) }
            } else if let answer = cell.solution {
                let bytes = encoding.encode(answer) ?? []
                if bytes.count == 1 {
                    solution[index] = bytes[0]
                } else {
                    // Multi-letter (or non-Latin) answers go to the rebus table; the grid keeps the first letter.
                    solution[index] = encoded(String(answer.prefix(1))).first ?? UInt8(ascii: "X")
                    try addRebus(answer, at: index)
                }
            } else {
                solution[index] = UInt8(ascii: "X")
            }
            let letter = progress?.letters[index] ?? ""
            let letterBytes = letter.isEmpty ? [] : encoded(letter)
            fill[index] = letterBytes.count == 1 ? letterBytes[0] : (letterBytes.isEmpty ? PuzLayout.emptyFill : letterBytes[0])
            if letterBytes.count > 1 { userRebus[index] = letterBytes }
            let flags = index < (progress?.flags.count ?? 0) ? progress!.flags[index].rawValue : 0
            extras[index] = flags | (cell.isCircled ? PuzLayout.gextCircled : 0)
        }

        let version = encoding.isUTF8 ? "2.0" : "1.3"
        let strings: PuzReader.RawStrings = (
            encoded(puzzle.title), encoded(puzzle.author), encoded(puzzle.copyright),
            orderedClues.map(encoded), encoded(puzzle.notes)
        )
        guard strings.clues.count <= Int(UInt16.max) else { throw .cannotWrite("too many clues for .puz") }

        var header = [UInt8](repeating: 0, count: PuzLayout.headerLength)
        header.replaceSubrange(PuzLayout.magicOffset..<(PuzLayout.magicOffset + 12), with: PuzLayout.magic)
        header.replaceSubrange(PuzLayout.version..<(PuzLayout.version + 4), with: Array(version.utf8) + [0])
        header[PuzLayout.width] = UInt8(puzzle.width)
        header[PuzLayout.height] = UInt8(puzzle.height)
        header.setUInt16(UInt16(strings.clues.count), at: PuzLayout.clueCount)
        header.setUInt16(puzzle.isDiagramless ? PuzLayout.typeDiagramless : PuzLayout.typeNormal, at: PuzLayout.puzzleType)
        let state: UInt16 =
            puzzle.lock != nil
            ? PuzLayout.stateScrambled
            : (puzzle.hasSolution ? PuzLayout.stateUnscrambled : PuzLayout.stateNoSolution)
        header.setUInt16(state, at: PuzLayout.solutionState)
        header.setUInt16(puzzle.lock?.checksum ?? 0, at: PuzLayout.scrambledChecksum)

        let cib = PuzChecksum.of(header[PuzLayout.cibRange])
        header.setUInt16(cib, at: PuzLayout.cibChecksum)
        let sums = PuzSums(cib: cib, solution: solution, fill: fill, strings: strings, version: version)
        header.setUInt16(sums.global, at: PuzLayout.globalChecksum)
        header.replaceSubrange(PuzLayout.maskedLow..<(PuzLayout.maskedLow + 4), with: sums.maskedLow)
        header.replaceSubrange(PuzLayout.maskedHigh..<(PuzLayout.maskedHigh + 4), with: sums.maskedHigh)

        var out = header + solution + fill
        for part in [strings.title, strings.author, strings.copyright] + strings.clues + [strings.notes] {
            out += part + [0]
        }
        func appendSection(_ name: String, _ data: [UInt8]) {
            out += Array(name.utf8)
            out.appendUInt16(UInt16(data.count))
            out.appendUInt16(PuzChecksum.of(data))
            out += data + [0]
        }
        if !rebusTable.isEmpty {
            appendSection("GRBS", rebusKeys)
            let table = rebusTable.enumerated().map { index, answer in
                (index + 1 < 10 ? " " : "") + "\(index + 1):\(answer);"
            }.joined()
            appendSection("RTBL", encoded(table))
        }
        if let progress, let seconds = progress.elapsedSeconds {
            appendSection("LTIM", Array("\(seconds),\(progress.timerRunning ? 0 : 1)".utf8))
        }
        if extras.contains(where: { $0 != 0 }) { appendSection("GEXT", extras) }
        if userRebus.contains(where: { !$0.isEmpty }) {
            appendSection("RUSR", userRebus.flatMap { $0 + [0] })
        }
        return out
    }

    /// The order .puz lists clues in: by number, across before down.
    static func clueOrder(_ numbering: StandardNumbering) -> [(Direction, StandardNumbering.Entry)] {
        let all = numbering.entries(.across).map { (Direction.across, $0) } + numbering.entries(.down).map { (Direction.down, $0) }
        return all.sorted { ($0.1.number, $0.0 == .across ? 0 : 1) < ($1.1.number, $1.0 == .across ? 0 : 1) }
    }
}
