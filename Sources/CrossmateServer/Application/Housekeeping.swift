import CrossmateStore
import ServiceLifecycle

/// What the server does on a timer rather than on some request's path: it stores the list
/// summaries of games that changed (so a games list reads rows, never builds grids), and frees
/// browser replicas nobody has viewed for the grace period (before, they went only when another
/// socket closed, so one account opening game after game grew the server's memory for good).
struct Housekeeping: Service {
    let state: ServerState

    func run() async throws {
        let interval = state.configuration.housekeepingInterval
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
        let dropped = state.browsers.sweep(now: state.now(), grace: state.configuration.browserReplicaGraceMillis)
        if dropped > 0 { state.metrics.browserReplicas.record(state.browsers.count) }
    }

    /// Stores the list summary of every game whose projection changed since the last pass, in
    /// one transaction.
    func storeSummaries() async {
        var summaries: [String: StoredGameSummary] = [:]
        for (gameID, projection) in state.directory.takeChanged() { summaries[gameID] = await projection.listSummary }
        do {
            try await state.store.putSummaries(summaries)
        } catch {
            state.logger.error("games' list summaries could not be stored", metadata: ["games": "\(summaries.count)", "error": "\(error)"])
        }
    }
}
