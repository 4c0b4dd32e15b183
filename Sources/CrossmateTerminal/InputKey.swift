/// A key as a terminal in raw mode sends it, decoded.
public enum InputKey: Hashable, Sendable {
    case character(Character)
    /// Control plus a letter: `control("z")` for ctrl-z.
    case control(Character)
    case left, right, up, down
    /// Shift with an arrow (replay's larger steps).
    case shiftLeft, shiftRight
    case home, end, insert, delete, pageUp, pageDown
    case tab, shiftTab, enter, backspace, escape
    /// A mouse press (SGR reporting): where, 0-based.
    case click(row: Int, col: Int)
    /// The wheel turned over a cell: up or not.
    case wheel(up: Bool, row: Int, col: Int)
    /// The terminal window gained (true) or lost the focus (focus reporting, CSI ?1004).
    case focus(Bool)
}

/// Turns the bytes a terminal sends into keys. A lone Escape is only known to be one when
/// nothing follows it: `decode` leaves it pending and `flushEscape` (after a short wait)
/// delivers it.
///
/// A control sequence that has begun is finished or discarded, never typed: one split across
/// reads waits for its end, however long the gap (a loaded machine, SSH, mosh), and when an
/// Escape went out alone because the rest came late, a read that then starts with "[" is read
/// as that sequence's rest. Escape followed by anything else is Escape, then that key: Esc and
/// a letter typed straight on keep the letter (there are no Alt bindings to take it for).
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []
    /// An Escape went out alone at the last `flushEscape`, and nothing was read since.
    private var escapeWentAlone = false

    /// A sequence still waiting for its final byte past this many bytes is no sequence a
    /// terminal sends: it is dropped.
    static let longestSequence = 32

    public init() {}

    /// Whether an Escape is waiting to see what follows it.
    public var hasPendingEscape: Bool { pending == [0x1B] }

    public mutating func decode(_ bytes: [UInt8]) -> [InputKey] {
        // "[" is no letter of a grid: after an Escape that went out alone it is the rest of a
        // control sequence the line split (an arrow's "[B", a click's "[<0;11;4M").
        if escapeWentAlone, pending.isEmpty, bytes.first == UInt8(ascii: "[") { pending = [0x1B] }
        escapeWentAlone = false
        pending += bytes
        var keys: [InputKey] = []
        var index = 0
        let input = pending
        func take(_ count: Int, _ key: InputKey?) {
            if let key { keys.append(key) }
            index += count
        }
        while index < input.count {
            let byte = input[index]
            switch byte {
            case 0x1B:
                guard index + 1 < input.count else {
                    pending = [0x1B]
                    return keys
                }
                let next = input[index + 1]
                if next == UInt8(ascii: "[") {
                    // CSI: parameters, then a final byte in 0x40...0x7E.
                    var end = index + 2
                    while end < input.count, !(0x40...0x7E).contains(input[end]) { end += 1 }
                    guard end < input.count else {
                        // Unfinished: wait for the rest, unless it is longer than any sequence.
                        pending = input.count - index > Self.longestSequence ? [] : Array(input[index...])
                        return keys
                    }
                    let parameters = String(decoding: input[(index + 2)..<end], as: UTF8.self)
                    take(end - index + 1, Self.sequence(final: input[end], parameters: parameters))
                } else if next == UInt8(ascii: "O"), index + 2 < input.count, Self.ss3Finals.contains(input[index + 2]) {
                    // SS3 (F1–F4, and Home or End on some terminals): always sent whole. An
                    // Escape then a typed O is Escape and the letter.
                    take(3, Self.sequence(final: input[index + 2], parameters: ""))
                } else {
                    take(1, .escape)
                }
            case 0x0D, 0x0A: take(1, .enter)
            case 0x09: take(1, .tab)
            case 0x7F, 0x08: take(1, .backspace)
            case 0x01...0x1A:
                take(1, .control(Character(Unicode.Scalar(byte + 0x60))))
            case 0x00...0x1F: take(1, nil)
            default:
                let decoded = Self.character(in: input, at: index)
                guard decoded.length > 0 else {
                    pending = Array(input[index...])
                    return keys
                }
                take(decoded.length, decoded.character.map(InputKey.character))
            }
        }
        pending = []
        return keys
    }

    /// The Escape left pending, when nothing followed it in time.
    public mutating func flushEscape() -> [InputKey] {
        guard hasPendingEscape else { return [] }
        pending = []
        escapeWentAlone = true
        return [.escape]
    }

    /// The final bytes of the SS3 sequences read whole.
    private static let ss3Finals: Set<UInt8> = Set("ABCDHFPQRS".utf8)

    private static func sequence(final: UInt8, parameters: String) -> InputKey? {
        // SGR mouse reports: "<button;column;row" and M for a press (m for a release, ignored).
        if parameters.hasPrefix("<") {
            let fields = parameters.dropFirst().split(separator: ";").compactMap { Int($0) }
            guard final == UInt8(ascii: "M"), fields.count == 3, fields[1] >= 1, fields[2] >= 1 else { return nil }
            let (button, col, row) = (fields[0], fields[1] - 1, fields[2] - 1)
            switch button {
            case 0: return .click(row: row, col: col)
            case 64, 65: return .wheel(up: button == 64, row: row, col: col)
            default: return nil  // other buttons, drags and modifiers
            }
        }
        return switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): parameters == "1;2" ? .shiftRight : .right
        case UInt8(ascii: "D"): parameters == "1;2" ? .shiftLeft : .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        case UInt8(ascii: "Z"): .shiftTab
        case UInt8(ascii: "I") where parameters.isEmpty: .focus(true)
        case UInt8(ascii: "O") where parameters.isEmpty: .focus(false)
        case UInt8(ascii: "~"):
            switch parameters.split(separator: ";").first {
            case "1", "7": .home
            case "2": .insert
            case "3": .delete
            case "4", "8": .end
            case "5": .pageUp
            case "6": .pageDown
            default: nil
            }
        default: nil
        }
    }

    /// One UTF-8 character at `index`: its length (0 when incomplete) and the character (nil
    /// when the bytes are not UTF-8).
    private static func character(in bytes: [UInt8], at index: Int) -> (length: Int, character: Character?) {
        let first = bytes[index]
        let length =
            switch first {
            case 0..<0x80: 1
            case 0xC0..<0xE0: 2
            case 0xE0..<0xF0: 3
            case 0xF0..<0xF8: 4
            default: 1
            }
        guard index + length <= bytes.count else { return (0, nil) }
        let text = String(validating: bytes[index..<(index + length)], as: UTF8.self)
        return (length, text?.first)
    }
}
