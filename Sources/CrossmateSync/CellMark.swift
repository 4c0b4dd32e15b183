/// What checking or revealing has said about a square, and whether its letter is pencilled.
public struct CellMark: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The verdict of the last check or reveal of the current letter.
    public enum Verdict: Int, Hashable, Sendable, Codable, CaseIterable {
        case none = 0
        case checkedWrong = 1
        case checkedRight = 2
        case revealed = 3
    }

    public var isPencil: Bool
    public var verdict: Verdict

    public init(isPencil: Bool = false, verdict: Verdict = .none) {
        self.isPencil = isPencil
        self.verdict = verdict
    }

    public static let none = CellMark()
    public static let pencil = CellMark(isPencil: true)

    /// The whole mark as one integer: bit 0 pencil, bits 1–2 the verdict. `init(code:)` gives
    /// back exactly this mark.
    public var code: Int { (isPencil ? 1 : 0) | verdict.rawValue << 1 }

    /// The mark with this code, or `nil` for a code no mark produces.
    public init?(code: Int) {
        guard (0...7).contains(code), let verdict = Verdict(rawValue: code >> 1) else { return nil }
        self.init(isPencil: code & 1 == 1, verdict: verdict)
    }

    /// Revealed squares are locked: their answer stays (a reveal is never undone).
    public var isLocked: Bool { verdict == .revealed }

    public var description: String {
        [isPencil ? "pencil" : nil, verdict == .none ? nil : "\(verdict)"].compactMap { $0 }.joined(separator: "+")
    }
}
