import CrossmateCore
import CrossmateFormats
import NIOPosix
import Synchronization

/// Parses uploaded puzzle files on NIO's blocking-work threads, not on the task pool that
/// answers every request: a slow parse (the formats bound a parse's work, but a big file still
/// takes milliseconds) then cannot hold up `/healthz` or a push. At most `maximumAdmitted` parses
/// run or wait at once, and one account holds at most `maximumPerAccount` of them, so no account
/// can keep the others' uploads out; past either an upload is refused as busy, with a time to
/// retry.
final class UploadParser: Sendable {
    private struct Slots {
        var admitted = 0
        var byAccount: [String: Int] = [:]
    }

    private let slots = Mutex(Slots())
    let maximumAdmitted: Int
    let maximumPerAccount: Int

    init(maximumAdmitted: Int) {
        self.maximumAdmitted = max(1, maximumAdmitted)
        maximumPerAccount = max(1, self.maximumAdmitted / 4)
    }

    /// Parses running or waiting now.
    var inProgress: Int { slots.withLock { $0.admitted } }

    func parse(_ bytes: [UInt8], fileName: String, for account: String) async throws -> Puzzle {
        try await run(for: account) { try PuzzleFile.read(bytes, fileName: fileName) }
    }

    /// Runs `work` on a blocking-work thread if there is room for it and for `account`, or
    /// throws `rateLimited`.
    func run<T: Sendable>(for account: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        let refusal: String? = slots.withLock { slots in
            guard slots.admitted < maximumAdmitted else { return "the server is busy reading other uploaded puzzles" }
            guard slots.byAccount[account, default: 0] < maximumPerAccount else {
                return "you have \(maximumPerAccount) uploads being read already; wait for them"
            }
            slots.admitted += 1
            slots.byAccount[account, default: 0] += 1
            return nil
        }
        if let refusal { throw APIError(.rateLimited, "\(refusal); retry after 2 s", retryAfterSeconds: 2) }
        defer {
            slots.withLock { slots in
                slots.admitted -= 1
                slots.byAccount[account, default: 1] -= 1
                if slots.byAccount[account] == 0 { slots.byAccount[account] = nil }
            }
        }
        return try await NIOThreadPool.singleton.runIfActive(work)
    }
}
