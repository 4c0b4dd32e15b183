import CrossmateCore
import CrossmateFormats
import NIOPosix
import Synchronization

/// Parses uploaded puzzle files on NIO's blocking-work threads, not on the task pool that
/// answers every request: a slow parse (the formats bound a parse's work, but a big file still
/// takes milliseconds) then cannot hold up `/healthz` or a push. At most `maximumAdmitted` parses
/// run or wait at once; past it an upload is refused as busy, with a time to retry.
final class UploadParser: Sendable {
    private let admitted = Atomic<Int>(0)
    let maximumAdmitted: Int

    init(maximumAdmitted: Int) {
        self.maximumAdmitted = max(1, maximumAdmitted)
    }

    /// Parses running or waiting now.
    var inProgress: Int { admitted.load(ordering: .relaxed) }

    func parse(_ bytes: [UInt8], fileName: String) async throws -> Puzzle {
        try await run { try PuzzleFile.read(bytes, fileName: fileName) }
    }

    /// Runs `work` on a blocking-work thread if there is room, or throws `rateLimited`.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard admitted.add(1, ordering: .relaxed).newValue <= maximumAdmitted else {
            admitted.subtract(1, ordering: .relaxed)
            throw APIError(.rateLimited, "the server is busy reading other uploaded puzzles; retry after 2 s", retryAfterSeconds: 2)
        }
        defer { admitted.subtract(1, ordering: .relaxed) }
        return try await NIOThreadPool.singleton.runIfActive(work)
    }
}
