import CrossmateStore
import Logging
import ServiceLifecycle

/// What the server does on a timer rather than on some request's path: it stores the list
/// summaries of games that changed (so a games list reads rows, never builds grids), and frees
/// browser replicas nobody has viewed for the grace period (before, they went only when another
/// socket closed, so one account opening game after game grew the server's memory for good).
struct Housekeeping: Service {
    let store: Store
    let directory: GameDirectory
    /// What is let go on the timer (the browser replicas nobody views).
    let sweepers: [any IdleSweeper]
    /// How often it runs (`ServerConfiguration.housekeepingInterval`), and the clock.
    let interval: Duration
    let clock: @Sendable () -> Int64
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { break }
                await tick()
            }
        }
        // What changed since the last pass is stored on the way out too.
        await storeSummaries()
    }

    func tick() async {
        await storeSummaries()
        let now = clock()
        for sweeper in sweepers { sweeper.sweepIdle(now: now) }
    }

    /// Stores the list summary of every game whose projection changed since the last pass, in
    /// one transaction.
    func storeSummaries() async {
        var summaries: [String: StoredGameSummary] = [:]
        for (gameID, projection) in directory.takeChanged() { summaries[gameID] = await projection.listSummary }
        do {
            try await store.putSummaries(summaries)
        } catch {
            logger.error("games' list summaries could not be stored", metadata: ["games": "\(summaries.count)", "error": "\(error)"])
        }
    }
}
