import CrossmateCore

/// The original puzzles shipped with Crossmate, so a new player can start solving at once. They are
/// written here, in the source, rather than shipped as resource files: a binary carries them
/// wherever it is installed, with no bundle beside it to lose.
public enum BundledPuzzles {
    /// Identifiers of the bundled puzzles, smallest first.
    public static let identifiers = ["green-light", "best-foot-forward", "daybreak"]

    /// Reads the bundled puzzle with `identifier` (one of `identifiers`).
    public static func puzzle(_ identifier: String) throws(PuzzleFileError) -> Puzzle {
        guard let text = text(identifier) else {
            throw .notACrossword("there is no bundled puzzle named \"\(identifier)\" (try \(identifiers.joined(separator: ", ")))")
        }
        return try XdReader.read(Array(text.utf8))
    }

    /// The bundled puzzle with `identifier` as an .xd file's text, or nil for an unknown name.
    public static func text(_ identifier: String) -> String? {
        switch identifier {
        case "green-light": greenLight
        case "best-foot-forward": bestFootForward
        case "daybreak": daybreak
        default: nil
        }
    }

    private static let greenLight = """
        ## Metadata

        title: Green Light
        author: The Crossmate team
        copyright: © 2026 the Crossmate authors
        description: A 5×5 warm-up. Every answer is a common word.

        ## Grid

        #ALSO
        GREEN
        LEGAL
        UNITY
        EATS#

        ## Clues

        A1. In addition ~ ALSO
        A5. Colour of a go-ahead light ~ GREEN
        A6. Allowed by law ~ LEGAL
        A7. Togetherness ~ UNITY
        A8. Has a meal ~ EATS

        D1. Stadium for a big match ~ ARENA
        D2. Genuine, informally ~ LEGIT
        D3. Chairs and benches ~ SEATS
        D4. Nothing but ~ ONLY
        D5. Craft-table adhesive ~ GLUE
        """

    private static let bestFootForward = """
        ## Metadata

        title: Best Foot Forward
        author: The Crossmate team
        copyright: © 2026 the Crossmate authors
        description: A 5×5 mini for two players to race through.

        ## Grid

        #BEST
        GRACE
        RATES
        EVENT
        WENT#

        ## Clues

        A1. Finest of all ~ BEST
        A5. Elegance on the dance floor ~ GRACE
        A6. Prices per hour, say ~ RATES
        A7. Something on the calendar ~ EVENT
        A8. Left ~ WENT

        D1. Facing danger without fear ~ BRAVE
        D2. Consumed, as a meal ~ EATEN
        D3. A perfume's aroma ~ SCENT
        D4. Exam ~ TEST
        D5. Got taller ~ GREW
        """

    private static let daybreak = """
        ## Metadata

        title: Daybreak
        author: The Crossmate team
        copyright: © 2026 the Crossmate authors
        description: A 9×9 with two long downs crossing a long across.

        ## Grid

        BETA#GRAB
        IRON#ROLE
        DAWN#ABLE
        ###OUT###
        PLAUSIBLE
        ###NET###
        SPEC#USER
        URGE#DOVE
        MOOD#EYED

        ## Clues

        A1. Test version of an app ~ BETA
        A5. Snatch ~ GRAB
        A9. Press a shirt ~ IRON
        A10. Part in a play ~ ROLE
        A11. First light of day ~ DAWN
        A12. Capable ~ ABLE
        A13. Not at home ~ OUT
        A15. Believable ~ PLAUSIBLE
        A16. What a tennis ball must clear ~ NET
        A17. Detailed design document, for short ~ SPEC
        A20. Account holder on a website ~ USER
        A24. Strong desire ~ URGE
        A25. Bird of peace ~ DOVE
        A26. Frame of mind ~ MOOD
        A27. Looked at closely ~ EYED

        D1. Offer at an auction ~ BID
        D2. Historical period ~ ERA
        D3. Pull behind a truck ~ TOW
        D4. Made public ~ ANNOUNCED
        D5. Thankfulness ~ GRATITUDE
        D6. Hold up, as a bank ~ ROB
        D7. Every bit ~ ALL
        D8. Spelling contest ~ BEE
        D14. Put to work ~ USE
        D17. Total ~ SUM
        D18. Expert, informally ~ PRO
        D19. Sense of self ~ EGO
        D21. Sauce for sushi ~ SOY
        D22. Night before a holiday ~ EVE
        D23. Colour of a stop sign ~ RED
        """
}
