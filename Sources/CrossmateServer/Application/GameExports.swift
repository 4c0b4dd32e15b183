import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Prometheus

/// Games written as puzzle files for their players to take away. An export is a history read:
/// a game not open on this server is read on the store's history lane into a projection of its
/// own (never into the cache the live games use), and the files are written on one thread kept
/// for exports, so however many accounts export at once they take at most one core between
/// them, and the sockets, requests and pushes keep the rest. One account exports one zip at a time.
struct GameExports: Sendable {
    let store: Store
    let directory: GameDirectory
    let snapshotInterval: Int
    /// Every export's work, one job at a time.
    let lane: DatabaseThreads
    /// One zip at a time per account.
    let gate = HistoryGate()
    /// Exports being written now (`crossmate_exports_running`).
    let running: Gauge?

    init(
        store: Store, directory: GameDirectory, snapshotInterval: Int, lane: DatabaseThreads = DatabaseThreads(name: "exports"),
        running: Gauge? = nil
    ) {
        self.store = store
        self.directory = directory
        self.snapshotInterval = snapshotInterval
        self.lane = lane
        self.running = running
    }

    /// One game's file in `format`, named after its title, or the reason it cannot be written so.
    func file(_ game: StoredGame, format: PuzzleFormat, fill: Bool) async throws -> (name: String, bytes: [UInt8]) {
        running?.increment()
        defer { running?.decrement() }
        return try await withTaskExecutorPreference(lane) {
            let puzzle = try await exported(game, fill: fill)
            do throws(PuzzleFileError) {
                return (GameExport.fileName(title: puzzle.title, extension: format.rawValue), try format.write(puzzle))
            } catch {
                throw APIError(.invalid, "this game cannot be written as .\(format.rawValue): \(error.description)")
            }
        }
    }

    /// The zip of an account's latest games (`Limits.maximumGamesExported`), each in `format`
    /// or one that can hold it; a README in it says what was left out or written otherwise.
    func zip(of authorID: String, format: PuzzleFormat, fill: Bool) async throws -> [UInt8] {
        let made = try await gate.run(for: authorID) { () async throws -> [UInt8] in
            running?.increment()
            defer { running?.decrement() }
            return try await withTaskExecutorPreference(lane) { try await makeZip(of: authorID, format: format, fill: fill) }
        }
        guard let made else {
            throw APIError(.rateLimited, "your last export is still being written; retry in a few seconds", retryAfterSeconds: 2)
        }
        return made
    }

    private func makeZip(of authorID: String, format: PuzzleFormat, fill: Bool) async throws -> [UInt8] {
        let most = Limits.maximumGamesExported
        // The list carries no puzzle once a game has a summary: each game is read whole below.
        let listed = try await store.games(of: authorID, limit: most + 1)
        var files: [(name: String, bytes: [UInt8])] = []
        var taken: Set<String> = []
        var notes: [String] = []
        if listed.count > most { notes.append("Only your latest \(most) games are in this file; older ones can be exported one at a time.") }
        for (listedGame, participant, _) in listed.prefix(most) where !participant.hasLeft {
            guard let game = try await store.game(listedGame.gameID, lane: .history) else { continue }
            let puzzle = try await exported(game, fill: fill)
            var tried: [String] = []
            var written: (format: PuzzleFormat, bytes: [UInt8])?
            for candidate in [format] + PuzzleFormat.allCases.filter({ $0 != format && (!fill || $0.keepsFill) }) {
                do throws(PuzzleFileError) {
                    written = (candidate, try candidate.write(puzzle))
                    break
                } catch {
                    tried.append(".\(candidate.rawValue): \(error.description)")
                }
            }
            let title = puzzle.title.isEmpty ? game.gameID : puzzle.title
            guard let written else {
                notes.append("Left out \(title) (\(game.gameID)): no format can hold it (\(tried.joined(separator: "; "))).")
                continue
            }
            let name = Self.unique(GameExport.fileName(title: puzzle.title, extension: written.format.rawValue), gameID: game.gameID, taken: &taken)
            if written.format != format, let first = tried.first {
                notes.append("\(name) is a .\(written.format.rawValue) file: it cannot be written as \(first).")
            }
            files.append((name, written.bytes))
        }
        if !notes.isEmpty {
            files.append((Self.unique("README.txt", gameID: "notes", taken: &taken), Array((notes.joined(separator: "\n") + "\n").utf8)))
        }
        return try ZipWriter.write(files)
    }

    /// The puzzle of `game` with its players' letters when `fill`: from the live projection if
    /// this server has the game open, else from a projection read on the history lane for this
    /// export alone.
    private func exported(_ game: StoredGame, fill: Bool) async throws -> Puzzle {
        let projection: GameProjection
        if let live = directory.cached(game.gameID) {
            projection = live
        } else {
            let record = GameRecord(
                gameID: game.gameID, ownerID: game.ownerID, createdAt: game.createdAt, puzzle: try game.puzzle(), completion: game.completion)
            projection = try await GameProjection(game: record, store: store, snapshotInterval: snapshotInterval, lane: .history)
        }
        return GameExport.puzzle(projection.puzzle, grid: await projection.replica.grid, withFill: fill)
    }

    /// `name`, or, when a file of that name is already in the zip, the name with the game's id
    /// (and then a number) before its extension: every entry of a zip has a name of its own.
    static func unique(_ name: String, gameID: String, taken: inout Set<String>) -> String {
        let dot = name.lastIndex(of: ".") ?? name.endIndex
        let (stem, suffix) = (name[..<dot], name[dot...])
        var candidate = name
        var attempt = 1
        while taken.contains(candidate.lowercased()) {
            candidate = "\(stem) \(gameID)\(attempt == 1 ? "" : " \(attempt)")\(suffix)"
            attempt += 1
        }
        taken.insert(candidate.lowercased())
        return candidate
    }
}
