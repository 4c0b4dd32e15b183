import ArgumentParser
import CrossmateProtocol

@main
struct Crossmate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crossmate",
        abstract: "Collaborative crossword solving: serve games, play them in the terminal, read and convert puzzle files.",
        version: "crossmate \(Release.version) (\(Release.date))",
        subcommands: [
            Serve.self, Backup.self, Restore.self, Login.self, Logout.self, Link.self, Games.self, New.self, Invite.self, Uninvite.self, Export.self,
            Join.self,
            Remove.self, Leave.self,
            Play.self, Replay.self, Sync.self,
            Friends.self, Nudge.self, ChatCommand.self, React.self, StatsCommand.self,
            Show.self, Convert.self,
        ]
    )
}
