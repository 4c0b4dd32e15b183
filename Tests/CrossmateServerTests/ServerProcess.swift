import Foundation

/// The real `crossmate serve` as a child process on a free loopback port.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let port: Int

    static let executable: URL = {
        var folder = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("crossmate").path), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("crossmate")
    }()

    /// Starts the server on `dataDirectory` and waits for the line that names its URL.
    init(dataDirectory: String, extraArguments: [String] = []) throws {
        process.executableURL = Self.executable
        process.arguments = ["serve", "--port", "0", "--data", dataDirectory, "--log-level", "warning"] + extraArguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = ""
        let handle = output.fileHandleForReading
        while true {
            let data = handle.availableData
            guard !data.isEmpty else { throw StartFailure(output: seen) }
            seen += String(decoding: data, as: UTF8.self)
            if let range = seen.range(of: #"serving at http://127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                let digits = seen[range].split(separator: ":").last!.dropLast()
                port = Int(digits)!
                return
            }
        }
    }

    /// Runs `crossmate serve` with `arguments` where it should refuse to start: its exit status
    /// and what it wrote to standard error.
    static func refusal(_ arguments: [String]) throws -> (status: Int32, message: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, message)
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// SIGKILL: no chance to flush or finish anything.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM: the graceful shutdown path.
    func terminate() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    struct StartFailure: Error, CustomStringConvertible {
        var output: String
        var description: String { "crossmate serve exited before serving; it printed: \(output)" }
    }
}
