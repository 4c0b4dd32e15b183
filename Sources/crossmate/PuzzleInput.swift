import ArgumentParser
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import Foundation

/// A failure the CLI reports as one line, `crossmate: FILE: message`, with exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let file: String
    let message: String

    var description: String { "\(file): \(message)" }

    func report() -> ExitCode {
        FileHandle.standardError.write(Data("crossmate: \(file): \(message)\n".utf8))
        return ExitCode(1)
    }
}

/// Loading the puzzle a command names: a file path, or `bundled:NAME` for a shipped puzzle.
enum PuzzleInput {
    static func load(_ path: String, key: Int?) throws(CommandFailure) -> Puzzle {
        let data = path.hasPrefix("bundled:") ? nil : try readFile(path)
        do throws(PuzzleFileError) {
            var puzzle: Puzzle
            if let data {
                puzzle = try PuzzleFile.read(data, fileName: path)
            } else {
                puzzle = try BundledPuzzles.puzzle(String(path.dropFirst("bundled:".count)))
            }
            if let key { puzzle = try puzzle.unlocked(withKey: key) }
            return puzzle
        } catch {
            throw CommandFailure(file: path, message: error.description)
        }
    }

    /// A puzzle file to start a game from, read and checked here first, so that a bad one is
    /// named (as `shown`) before anything is sent: the request that uploads it, and whether its
    /// answers are locked.
    static func upload(
        _ path: String, shown: String, unlockKey: Int? = nil
    ) throws(ClientFailure) -> (
        request: CreateGameRequest, locked: Bool
    ) {
        let bytes: [UInt8]
        do { bytes = try readFile(path) } catch { throw ClientFailure("\(error)") }
        let locked: Bool
        do { locked = try PuzzleFile.read(bytes, fileName: path).lock != nil } catch { throw ClientFailure("\(shown): \(error)") }
        let request = CreateGameRequest(
            fileName: (path as NSString).lastPathComponent, fileBase64: Data(bytes).base64EncodedString(), unlockKey: unlockKey)
        return (request, locked)
    }

    static func readFile(_ path: String) throws(CommandFailure) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure(file: path, message: "no such file")
        }
        guard !isDirectory.boolValue else { throw CommandFailure(file: path, message: "is a directory, not a puzzle file") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure(file: path, message: "cannot be opened for reading (check its permissions)")
        }
        defer { try? handle.close() }
        // Read one byte past the limit so an oversized file is reported rather than loaded whole.
        do {
            return Array(try handle.read(upToCount: PuzzleFile.maximumSize + 1) ?? Data())
        } catch {
            throw CommandFailure(file: path, message: "cannot be read (\(error.localizedDescription))")
        }
    }
}

/// Parses a 4-digit unlock key such as 0123.
struct UnlockKey: ExpressibleByArgument {
    let value: Int

    init?(argument: String) {
        guard argument.count == 4, argument.allSatisfy(\.isASCII), let value = Int(argument), value >= 0 else { return nil }
        self.value = value
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
