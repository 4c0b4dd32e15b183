import ArgumentParser

@main
struct Crossmate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crossmate",
        abstract: "Collaborative crossword solving: serve games, and read and convert puzzle files.",
        subcommands: [Serve.self, Show.self, Convert.self]
    )
}
