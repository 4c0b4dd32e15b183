import ArgumentParser
import CrossmateServer
import CrossmateStore
import Foundation

/// The data directory `serve` would use: `--data`, else CROSSMATE_DATA, else the default.
struct DataDirectoryOption: ParsableArguments {
    @Option(help: "The server's data directory (env CROSSMATE_DATA; default \(ServerConfiguration.defaultDataDirectory)).")
    var data: String?

    var database: String { ServerConfiguration.sqlitePath(dataDirectory: data) }
}

/// `crossmate backup DEST`: a consistent copy of a running server's SQLite database.
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a server's SQLite database while it runs.",
        discussion: """
            Takes a consistent copy through SQLite's online backup API without stopping the server or its writes: \
            every move acknowledged before the backup began is in it. `crossmate restore` puts it back. For a server on \
            PostgreSQL, use pg_dump (README, "Hosting Crossmate").
            """
    )

    @Argument(help: "The file to write (it must not exist yet).")
    var destination: String

    @OptionGroup var directory: DataDirectoryOption

    func run() throws {
        do {
            let summary = try SQLiteBackup.backup(database: directory.database, to: destination)
            print("Backed up \(Self.describe(summary)) to \(destination).")
        } catch {
            FileHandle.standardError.write(Data("crossmate: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
    }

    static func describe(_ summary: SQLiteBackup.Summary) -> String {
        "\(summary.accounts) accounts, \(summary.games) games and \(summary.moves) moves (schema \(summary.schema))"
    }
}

/// `crossmate restore BACKUP`: a backup put in place as a new data directory's database.
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a backup in place as a server's database.",
        discussion: "Writes only into a data directory with no database yet; start `crossmate serve` on it afterwards."
    )

    @Argument(help: "The backup file (from `crossmate backup`).")
    var backup: String

    @OptionGroup var directory: DataDirectoryOption

    func run() throws {
        do {
            let summary = try SQLiteBackup.restore(from: backup, into: directory.database)
            let folder = (directory.database as NSString).deletingLastPathComponent
            print("Restored \(Backup.describe(summary)) into \(directory.database). Start the server with `crossmate serve --data \(folder)`.")
        } catch {
            FileHandle.standardError.write(Data("crossmate: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}
