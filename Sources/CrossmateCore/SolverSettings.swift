/// The settings a solver keeps with their account, the same on every device they use: how the
/// keys move (`SolvingKeys.Options`), whether letters are checked as they are typed, and the
/// colour scheme. Each setting has a few named choices; the first is the default.
public struct SolverSettings: Hashable, Sendable {
    public struct Setting: Hashable, Sendable {
        public var name: String
        public var choices: [String]
        public var defaultChoice: String { choices[0] }
    }

    public static let all: [Setting] = [
        Setting(name: "skipFilled", choices: ["on", "off"]),
        Setting(name: "wordEnd", choices: ["next", "stay"]),
        Setting(name: "space", choices: ["turn", "clear"]),
        // At a word's first square, Backspace goes back into the previous word (as the NYT app
        // and cursewords do) unless the solver keeps it in the word.
        Setting(name: "backspace", choices: ["previous", "word"]),
        Setting(name: "autocheck", choices: ["off", "on"]),
        Setting(name: "theme", choices: ["system", "light", "dark"]),
        // Which events call the player back to a game when they are not in it (`CallBack`).
        Setting(name: "notify-nudges", choices: ["on", "off"]),
        Setting(name: "notify-chat", choices: ["on", "off"]),
        Setting(name: "notify-moves", choices: ["on", "off"]),
    ]

    /// Why a setting cannot be stored, in words a user can act on.
    public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        case unknownSetting(String)
        case unknownChoice(setting: String, value: String, choices: [String])

        public var description: String {
            switch self {
            case let .unknownSetting(name):
                "\"\(TextRule.quote(name))\" is not a setting (one of \(SolverSettings.all.map(\.name).joined(separator: ", ")))"
            case let .unknownChoice(setting, value, choices):
                "\(setting) is \(choices.joined(separator: " or ")), not \"\(TextRule.quote(value))\""
            }
        }
    }

    /// Every setting's value, defaults filled in.
    public private(set) var values: [String: String]

    /// Settings from stored values; unknown names and choices are left out (a newer client may
    /// have stored them), so each falls back to its default.
    public init(stored: [String: String] = [:]) {
        var values: [String: String] = [:]
        for setting in Self.all {
            let value = stored[setting.name]
            values[setting.name] = value.flatMap { setting.choices.contains($0) ? $0 : nil } ?? setting.defaultChoice
        }
        self.values = values
    }

    /// Checks that `value` is one of `name`'s choices.
    public static func validate(name: String, value: String) throws(Refusal) {
        guard let setting = all.first(where: { $0.name == name }) else { throw .unknownSetting(name) }
        guard setting.choices.contains(value) else { throw .unknownChoice(setting: name, value: value, choices: setting.choices) }
    }

    public subscript(name: String) -> String { values[name] ?? "" }

    /// How the solving keys behave under these settings.
    public var options: SolvingKeys.Options {
        SolvingKeys.Options(
            skipFilledSquares: self["skipFilled"] == "on", jumpAtWordEnd: self["wordEnd"] == "next", spaceClears: self["space"] == "clear",
            backspaceAcrossWords: self["backspace"] == "previous")
    }

    /// Wrong letters are marked as they are typed.
    public var autocheck: Bool { self["autocheck"] == "on" }
}
