import CrossmateCore

/// What a terminal can show in colour.
public enum ColorMode: Hashable, Sendable {
    /// `NO_COLOR`: attributes (bold, dim, reverse, underline) only.
    case none
    case sixteen
    case twoFiftySix

    /// From the environment: `NO_COLOR` wins, then a 256-colour `TERM` or `COLORTERM`.
    public init(environment: [String: String]) {
        if let value = environment["NO_COLOR"], !value.isEmpty {
            self = .none
        } else if environment["COLORTERM"] != nil || environment["TERM", default: ""].contains("256") {
            self = .twoFiftySix
        } else {
            self = .sixteen
        }
    }
}

/// A colour with its 16-colour and 256-colour spellings.
public struct TerminalColor: Hashable, Sendable {
    /// 0–15: the ANSI colours; `none`: no colour in 16 colours.
    public var basic: Int
    /// A `basic` that leaves the colour out in 16 colours.
    public static let none = -1
    /// 0–255.
    public var extended: Int

    public init(basic: Int, extended: Int) {
        self.basic = basic
        self.extended = extended
    }
}

/// How a character is drawn.
public struct Style: Hashable, Sendable {
    public var foreground: TerminalColor?
    public var background: TerminalColor?
    public var bold = false
    public var dim = false
    public var reverse = false
    public var underline = false

    public init(
        foreground: TerminalColor? = nil, background: TerminalColor? = nil, bold: Bool = false, dim: Bool = false,
        reverse: Bool = false, underline: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    public static let plain = Style()

    /// The SGR sequence for this style (after a reset).
    func sgr(_ mode: ColorMode) -> String {
        var codes = ["0"]
        if bold { codes.append("1") }
        if dim { codes.append("2") }
        if underline { codes.append("4") }
        if reverse { codes.append("7") }
        switch mode {
        case .none: break
        case .sixteen:
            if let basic = foreground?.basic, basic >= 0 { codes.append(String(basic < 8 ? 30 + basic : 90 + basic - 8)) }
            if let basic = background?.basic, basic >= 0 { codes.append(String(basic < 8 ? 40 + basic : 100 + basic - 8)) }
        case .twoFiftySix:
            if let foreground { codes.append("38;5;\(foreground.extended)") }
            if let background { codes.append("48;5;\(background.extended)") }
        }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}

/// What a click on a part of the screen stands for.
public enum FrameTarget: Hashable, Sendable {
    case square(GridPosition)
    case clue(Direction, number: Int)
    /// Anywhere in a clue list (the wheel scrolls it).
    case clueList(Direction)
    /// The chat pane (the wheel scrolls it).
    case chat
}

/// A screenful of characters with styles: drawn to a terminal as ANSI, or read as plain text
/// (what the golden-frame tests compare).
public struct Frame: Sendable {
    public let width: Int
    public let height: Int
    private var characters: [Character]
    private var styles: [Style]
    /// What a click at each cell stands for (most cells: nothing).
    private var targets: [Int: FrameTarget] = [:]

    /// Marks cells as standing for `target` (a later mark wins).
    public mutating func mark(_ target: FrameTarget, row: Int, cols: Range<Int>) {
        guard (0..<height).contains(row) else { return }
        for col in cols where (0..<width).contains(col) { targets[row * width + col] = target }
    }

    /// Copies `other` into this frame with its top-left corner at (row, col): characters,
    /// styles and what a click stands for (what falls outside is left off).
    public mutating func place(_ other: Frame, row: Int = 0, col: Int) {
        for r in 0..<other.height where (0..<height).contains(row + r) {
            for c in 0..<other.width where (0..<width).contains(col + c) {
                characters[(row + r) * width + col + c] = other.characters[r * other.width + c]
                styles[(row + r) * width + col + c] = other.styles[r * other.width + c]
            }
        }
        for (index, target) in other.targets {
            let (r, c) = (index / other.width + row, index % other.width + col)
            if (0..<height).contains(r), (0..<width).contains(c) { targets[r * width + c] = target }
        }
    }

    /// What a click at a cell stands for, if anything.
    public func target(row: Int, col: Int) -> FrameTarget? {
        guard (0..<height).contains(row), (0..<width).contains(col) else { return nil }
        return targets[row * width + col]
    }

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        characters = Array(repeating: " ", count: self.width * self.height)
        styles = Array(repeating: .plain, count: self.width * self.height)
    }

    /// Writes `text` from (row, col), clipped at the right edge. Returns the column after it.
    /// Control and direction-changing characters (text from other players and files) are shown
    /// as U+FFFD, never sent to the terminal.
    @discardableResult
    public mutating func put(_ text: String, row: Int, col: Int, style: Style = .plain) -> Int {
        guard row >= 0, row < height else { return col }
        var column = col
        for character in TextRule.terminalSafe(text) {
            // A wide character (an emoji, a CJK ideograph) takes two cells: the second holds
            // `Self.secondHalf`, so what follows stays in its column.
            let cells = Self.cells(character)
            guard column + cells <= width else { break }
            if column >= 0 {
                characters[row * width + column] = character
                styles[row * width + column] = style
                if cells == 2 {
                    characters[row * width + column + 1] = Self.secondHalf
                    styles[row * width + column + 1] = style
                }
            }
            column += cells
        }
        return column
    }

    /// What the second cell of a wide character holds (never drawn).
    static let secondHalf: Character = "\u{0}"

    /// How many cells a terminal gives `character`: two for emoji shown as pictures and East
    /// Asian wide and full-width characters, else one.
    static func cells(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first, first.value >= 0x1100 else { return 1 }
        if first.properties.isEmojiPresentation || (first.properties.isEmoji && character.unicodeScalars.contains("\u{FE0F}")) { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xAC00...0xD7A3,
            0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default: return 1
        }
    }

    /// The row's cells as a terminal shows them: a wide character's second half is skipped, and
    /// a half left alone by a later write (the other half overwritten) is a space.
    private func cellsShown(row: Int) -> [(character: Character?, style: Style)] {
        (0..<width).map { col in
            let index = row * width + col
            let character = characters[index]
            if character == Self.secondHalf {
                let wideBefore = col > 0 && Self.cells(characters[index - 1]) == 2
                return (wideBefore ? nil : " ", styles[index])
            }
            if Self.cells(character) == 2, col + 1 >= width || characters[index + 1] != Self.secondHalf { return (" ", styles[index]) }
            return (character, styles[index])
        }
    }

    /// Restyles a run of a row without changing its characters.
    public mutating func restyle(row: Int, cols: Range<Int>, _ change: (inout Style) -> Void) {
        guard row >= 0, row < height else { return }
        for column in cols where column >= 0 && column < width { change(&styles[row * width + column]) }
    }

    public func character(row: Int, col: Int) -> Character { characters[row * width + col] }
    public func style(row: Int, col: Int) -> Style { styles[row * width + col] }

    /// The frame as text, one line per row, trailing spaces trimmed.
    public var text: String {
        (0..<height).map { row in
            var line = String(cellsShown(row: row).compactMap(\.character))
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }

    /// The frame as ANSI for a terminal: home, each row with its styles, the line cleared after.
    public func ansi(_ mode: ColorMode) -> String {
        var output = "\u{1B}[H"
        for row in 0..<height {
            var current: Style?
            for (character, style) in cellsShown(row: row) {
                guard let character else { continue }
                if style != current {
                    output += style.sgr(mode)
                    current = style
                }
                output.append(character)
            }
            output += "\u{1B}[0m"
            if row < height - 1 { output += "\r\n" }
        }
        return output
    }
}
