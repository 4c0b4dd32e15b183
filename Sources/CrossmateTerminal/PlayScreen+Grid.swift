import CrossmateClient
import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

/// Drawing the grid: squares at each size, numbers, letters, cursors, the word and the marks.
extension PlayScreen {
    func drawGrid(
        _ frame: inout Frame, top: Int, rows: Range<Int>, firstCol: Int, layout: GridLayout, tall: Bool = false, monochrome: Bool
    ) {
        let puzzle = view.puzzle
        let cellWidth = layout.cellWidth + (tall ? 1 : 0)
        let word = Set(currentClue?.cells ?? [])
        let others = Dictionary(view.cursors.map { ($0.position, $0) }, uniquingKeysWith: { first, _ in first })
        // A flagged word: ⚑ in its first square's mark column, in the flagger's colour (the
        // first flag on a square shows, as on the web).
        var flaggedAt: [GridPosition: ClueFlag] = [:]
        for flag in view.flags where flag.on {
            if let first = puzzle.clues(flag.direction).first(where: { $0.number == flag.number })?.cells.first, flaggedAt[first] == nil {
                flaggedAt[first] = flag
            }
        }
        for (screenRow, row) in rows.enumerated() {
            for col in firstCol..<puzzle.width {
                let left = (col - firstCol) * cellWidth
                guard left + cellWidth <= frame.width else { break }
                let position = GridPosition(row: row, col: col)
                let cell = puzzle.cell(at: position)
                let line = top + screenRow * (tall ? 2 : 1)
                guard cell.isLetter else {
                    let fill = cell.kind == .void ? String(repeating: " ", count: cellWidth) : String(repeating: "█", count: cellWidth)
                    frame.put(fill, row: line, col: left, style: Style(foreground: Self.block))
                    if tall { frame.put(fill, row: line + 1, col: left, style: Style(foreground: Self.block)) }
                    continue
                }
                frame.mark(.square(position), row: line, cols: left..<(left + cellWidth))
                if tall { frame.mark(.square(position), row: line + 1, cols: left..<(left + cellWidth)) }
                let square = view.grid.state(at: position)
                var base = Style()
                if cell.isShaded { base.background = Self.shadedBackground }
                if word.contains(position) {
                    base.background = Self.wordBackground
                    base.underline = true
                }
                // A barred puzzle's bars: one below the square underlines it; one to its right
                // stands in its mark's column (when it has no mark).
                let below = GridPosition(row: row + 1, col: col)
                if cell.bars.contains(.bottom) || (puzzle.contains(below) && puzzle.cell(at: below).bars.contains(.top)) {
                    base.underline = true
                }
                let right = GridPosition(row: row, col: col + 1)
                let barRight = cell.bars.contains(.right) || (puzzle.contains(right) && puzzle.cell(at: right).bars.contains(.left))
                // The catch-up's squares: their own background (over the word's), and
                // underlined where there is no colour.
                if state.caught.contains(position) {
                    base.background = Self.caughtBackground
                    if monochrome { base.underline = true }
                }
                if let other = others[position] {
                    base.background = color(of: other.authorID)
                    base.bold = true
                    // Without colour, the square is underlined and its mark is the player's symbol.
                    if monochrome { base.underline = true }
                }
                let number = cell.number.map { Self.superscript($0) } ?? ""
                var col0 = left
                switch tall ? .tiny : layout {
                case let .numbered(digits):
                    // The whole number, then a space: "¹⁴ R" never reads as 14-something.
                    col0 = frame.put(number.padding(toLength: digits + 1, withPad: " ", startingAt: 0), row: line, col: left, style: base)
                case .snug:
                    // Superscript needs no space to stand apart from the letter; a three-digit
                    // number runs into the letter's column (its mark then shows by colour alone).
                    col0 = frame.put(number.padding(toLength: max(2, number.count), withPad: " ", startingAt: 0), row: line, col: left, style: base)
                case .compact:
                    if square.letter.isEmpty, !number.isEmpty {
                        // An empty square shows its whole number in place of the letter (the
                        // cursor's square too, reversed). Three digits fill the square: in every
                        // other column they are subscript, so ¹⁰³₁₀₄¹⁰⁵ reads as three numbers on
                        // any terminal, in a copy and to a screen reader (dim did not).
                        var numberStyle = base
                        if position == state.cursor.position { numberStyle.reverse = true }
                        let shownNumber = number.count == 3 && col % 2 == 1 ? Self.subscriptDigits(cell.number!) : number
                        frame.put(shownNumber.padding(toLength: 3, withPad: " ", startingAt: 0), row: line, col: left, style: numberStyle)
                        continue
                    }
                    col0 = frame.put(" ", row: line, col: left, style: base)
                case .tiny: break
                }
                // A rebus shows whole where a two-line square has the room ("SCH"; cut with … when
                // even that is too narrow), else its first letter and a + for the rest.
                let wholeRebus = tall && square.letter.count > 1
                let letter =
                    square.letter.isEmpty
                    ? " "
                    : wholeRebus
                        ? (square.letter.count <= cellWidth - 1 ? square.letter : String(square.letter.prefix(cellWidth - 2)) + "…")
                        : String(square.letter.first!)
                let mark: String
                switch square.mark.verdict {
                case .checkedWrong: mark = "×"
                case .revealed: mark = "•"
                case .checkedRight, .none:
                    if square.letter.count > 1, !wholeRebus {
                        mark = "+"
                    } else if cell.isCircled {
                        mark = "○"
                    } else if barRight, !tall {
                        mark = "│"
                    } else if monochrome, let other = others[position] {
                        mark = PlayerColors.avatarSymbol(other.authorID)
                    } else if cell.isShaded, monochrome {
                        mark = "░"
                    } else {
                        mark = " "
                    }
                }
                var letterStyle = base
                letterStyle.foreground = square.mark.verdict == .checkedWrong ? Self.wrong : color(of: square.cellAuthorID)
                letterStyle.bold = !square.mark.isPencil
                letterStyle.dim = square.mark.isPencil
                if position == state.cursor.position { letterStyle.reverse = true }
                if tall {
                    // The number on the first line (plain digits, dim), the letter centred on the second.
                    var numberStyle = base
                    numberStyle.dim = true
                    numberStyle.underline = false
                    let digits = cell.number.map(String.init) ?? ""
                    frame.put(digits.padding(toLength: cellWidth, withPad: " ", startingAt: 0), row: line, col: left, style: numberStyle)
                    let pad = max(0, (cellWidth - letter.count) / 2)
                    col0 = frame.put(String(repeating: " ", count: pad), row: line + 1, col: left, style: base)
                }
                let letterLine = tall ? line + 1 : line
                col0 = frame.put(square.mark.isPencil ? letter.lowercased() : letter, row: letterLine, col: col0, style: letterStyle)
                var markStyle = base
                if square.mark.verdict == .checkedWrong { markStyle.foreground = Self.wrong }
                if col0 >= left + cellWidth {
                    // No column left for the mark (a four-column square with a three-digit number).
                } else if mark == " ", let flag = flaggedAt[position] {
                    // In the flagger's colour, unless their cursor's colour is under it (the
                    // ⚑ vanished there): then in the terminal's own.
                    markStyle.foreground = color(of: flag.authorID)
                    if markStyle.background == markStyle.foreground { markStyle.foreground = nil }
                    markStyle.bold = true
                    col0 = frame.put("⚑", row: letterLine, col: col0, style: markStyle)
                } else {
                    col0 = frame.put(mark, row: letterLine, col: col0, style: markStyle)
                }
                if tall, col0 < left + cellWidth {
                    frame.put(String(repeating: " ", count: left + cellWidth - col0), row: letterLine, col: col0, style: base)
                }
                // Two lines a square: a bar to its right stands the square's height in its last column.
                if tall, barRight {
                    var barStyle = base
                    barStyle.underline = false
                    frame.put("│", row: line, col: left + cellWidth - 1, style: barStyle)
                    frame.put("│", row: letterLine, col: left + cellWidth - 1, style: base)
                }
            }
        }
    }
}
