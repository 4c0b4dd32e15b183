import Foundation

/// The real `crossmate serve` as a child process on a free loopback port.
public final class ServerProcess: @unchecked Sendable {
    public let process = Process()
    public let port: Int

    public static let executable: URL = {
        var folder = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("crossmate").path), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("crossmate")
    }()

    /// Starts the server on `dataDirectory` and waits for the line that names its URL.
    /// `port` 0 picks a free one; a restart passes the port it had. `errorLog`: a file for what
    /// it writes to standard error (its log), else nowhere.
    public init(
        dataDirectory: String, port: Int = 0, extraArguments: [String] = [], environment: [String: String] = [:], errorLog: URL? = nil
    ) throws {
        process.executableURL = Self.executable
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.arguments = ["serve", "--port", String(port), "--data", dataDirectory, "--log-level", "warning"] + extraArguments
        let output = Pipe()
        process.standardOutput = output
        if let errorLog {
            guard FileManager.default.createFile(atPath: errorLog.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
            process.standardError = try FileHandle(forWritingTo: errorLog)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        var seen = ""
        let handle = output.fileHandleForReading
        while true {
            let data = handle.availableData
            guard !data.isEmpty else { throw StartFailure(output: seen) }
            seen += String(decoding: data, as: UTF8.self)
            if let range = seen.range(of: #"serving at http://127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                let digits = seen[range].split(separator: ":").last!.dropLast()
                self.port = Int(digits)!
                return
            }
        }
    }

    /// Runs `crossmate serve` with `arguments` where it should refuse to start: its exit status
    /// and what it wrote to standard error.
    public static func refusal(_ arguments: [String]) throws -> (status: Int32, message: String) {
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

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// SIGKILL: no chance to flush or finish anything.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM: the graceful shutdown path.
    public func terminate() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public var output: String
        public var description: String { "crossmate serve exited before serving; it printed: \(output)" }
    }
}

/// Waits for `condition` to hold, checking every 20 ms; fails after `deadline` (a safety net, not
/// synchronisation: the condition is what the test waits for).
public func eventually(
    _ what: String, within deadline: Duration = .seconds(20), _ condition: () async throws -> Bool
) async throws {
    let start = ContinuousClock.now
    while true {
        if try await condition() { return }
        guard ContinuousClock.now - start < deadline else { throw NotInTime(what: what) }
        try await Task.sleep(for: .milliseconds(20))
    }
}

public struct NotInTime: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "not in time: \(what)" }
}

/// A fresh temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(_ prefix: String = "crossmate-test") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs the real `crossmate` with `arguments` (and `environment` over this process's) to its
/// end: its status, standard output and standard error, whatever the status.
public func runCrossmate(
    _ arguments: [String], environment: [String: String] = [:]
) throws -> (
    status: Int32, output: String, errors: String
) {
    let process = Process()
    process.executableURL = ServerProcess.executable
    process.arguments = arguments
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text, problems)
}
