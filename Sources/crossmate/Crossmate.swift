import ArgumentParser

@main
struct Crossmate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crossmate",
        abstract: "Collaborative crossword solving: read, convert and (soon) share puzzles.",
        subcommands: [Show.self, Convert.self]
    )
}
