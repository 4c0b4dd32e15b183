import ArgumentParser
import CrossmateCore
import CrossmateFormats
import Foundation

/// `crossmate convert IN OUT`: rewrite a puzzle in another format, chosen by OUT's extension.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a puzzle to .puz, .ipuz, .jpz or .xd.",
        discussion: "IN may be any supported format (.puz, .ipuz, .jpz, .xd) or bundled:NAME; OUT's extension picks the format written."
    )

    @Argument(help: "The puzzle to read.")
    var input: String

    @Argument(help: "The file to write (.puz, .ipuz, .jpz or .xd).")
    var output: String

    @Option(help: ArgumentHelp("The 4-digit key of a locked .puz solution, to unlock it.", valueName: "NNNN"))
    var key: UnlockKey?

    @Option(help: ArgumentHelp("Scramble the written .puz solution with this 4-digit key.", valueName: "NNNN"))
    var lock: UnlockKey?

    func run() throws {
        do { try convert() } catch { throw error.report() }
    }

    private func convert() throws(CommandFailure) {
        guard let format = PuzzleFormat(fileName: output), format.canWrite else {
            throw CommandFailure(file: output, message: "unsupported format: Crossmate writes .puz, .ipuz, .jpz and .xd files")
        }
        let puzzle = try PuzzleInput.load(input, key: key?.value)
        let bytes: [UInt8]
        do {
            bytes = try format.write(puzzle, lockKey: lock?.value)
        } catch {
            throw CommandFailure(file: output, message: error.description)
        }
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CommandFailure(file: output, message: "cannot be written (\(error.localizedDescription))")
        }
    }
}
