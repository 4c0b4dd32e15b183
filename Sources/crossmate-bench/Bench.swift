import ArgumentParser

@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crossmate-bench",
        abstract: "Crossmate's benchmarks. Build with -c release; results print as a table, or one JSON object with --json.",
        subcommands: [EngineBench.self, ServerBench.self, ClientBench.self, BystanderBench.self, TerminalBench.self]
    )
}
