extension Puzzle {
    /// Limits on a puzzle's texts, in UTF-8 bytes.
    public static let maximumTitleBytes = 1_000
    public static let maximumNotesBytes = 16_000
    public static let maximumClueBytes = 2_000

    /// The puzzle with its texts held to `TextRule`: control and direction-changing characters
    /// gone (line breaks kept in the notes), each text cut to its limit. Every reader's puzzle
    /// passes through here, so no file can put an escape sequence on another player's screen.
    public func withCleanText() -> Puzzle {
        var clean = self
        clean.title = TextRule.clean(title, maximumBytes: Self.maximumTitleBytes)
        clean.author = TextRule.clean(author, maximumBytes: Self.maximumTitleBytes)
        clean.copyright = TextRule.clean(copyright, maximumBytes: Self.maximumTitleBytes)
        clean.notes = TextRule.clean(notes, maximumBytes: Self.maximumNotesBytes, allowsLineBreaks: true)
        for index in clean.across.indices {
            clean.across[index].text = TextRule.clean(across[index].text, maximumBytes: Self.maximumClueBytes)
        }
        for index in clean.down.indices {
            clean.down[index].text = TextRule.clean(down[index].text, maximumBytes: Self.maximumClueBytes)
        }
        return clean
    }
}
