import CrossmateTestSupport
import Foundation
import Synchronization
import Testing

@testable import CrossmateStore

/// An adaptive commit window (`CommitWindow.adaptive`) waits only while more pushes are on their
/// way: never for a lone push, not at a light load, and under load until the next one due.
@Suite struct CommitPaceTests {
    static let t0 = ContinuousClock.now
    static func at(_ milliseconds: Double) -> ContinuousClock.Instant { t0 + .microseconds(Int64(milliseconds * 1000)) }

    static func pace(arrivingEvery gap: Double, count: Int) -> CommitPace {
        var pace = CommitPace(window: .milliseconds(10), windowBatches: 8)
        for index in 0..<count { pace.arrived(at: at(Double(index) * gap)) }
        return pace
    }

    @Test func aLonePushOnAQuietServerDoesNotWait() {
        var pace = CommitPace(window: .milliseconds(10), windowBatches: 8)
        #expect(!pace.moreOnTheirWay(at: Self.at(0)))
        pace.arrived(at: Self.at(0))
        #expect(!pace.moreOnTheirWay(at: Self.at(0.1)), "one push says nothing of the next")
        // After an idle minute, a push is a lone push again: the gap counts as 100 ms at most,
        // and one such gap after pushes every millisecond is not a server busy.
        var busy = Self.pace(arrivingEvery: 1, count: 50)
        busy.arrived(at: Self.at(60_000))
        #expect(busy.meanGap! < .milliseconds(15))
        #expect(!busy.moreOnTheirWay(at: Self.at(60_000.1)))
    }

    @Test func aLightLoadCommitsAtOnceAndALoadedServerWaitsForTheNextDue() {
        // A push every 5 ms, a commit taking a millisecond: waiting would not pay.
        let light = Self.pace(arrivingEvery: 5, count: 40)
        #expect(!light.moreOnTheirWay(at: Self.at(39 * 5 + 0.1)))
        // A push every millisecond: four or more are due within the 10 ms window, so it waits,
        // until `patience` gaps after the last (the next did not come: the stream paused).
        let loaded = Self.pace(arrivingEvery: 1, count: 40)
        let last = 39.0
        #expect(loaded.moreOnTheirWay(at: Self.at(last + 0.5)))
        let patience = Double(CommitPace.patience)
        #expect(loaded.nextDue(closes: Self.at(last + 10)) == Self.at(last + patience))
        #expect(loaded.moreOnTheirWay(at: Self.at(last + patience - 0.5)))
        #expect(!loaded.moreOnTheirWay(at: Self.at(last + patience + 0.5)))
        #expect(loaded.nextDue(closes: Self.at(last + 1)) == Self.at(last + 1), "never past the window")
    }

    @Test func aBusyServerWaitsForAWholeGroupThroughThePausesOfItsEventLoop() {
        // A push every quarter millisecond (2,000 devices typing): eight are due within 2 ms,
        // so a pause of many gaps (the loop writing out the last commit's pokes) does not close
        // the transaction; only the window, or eight gathered, does.
        let busy = Self.pace(arrivingEvery: 0.25, count: 80)
        let last = 79 * 0.25
        #expect(busy.moreOnTheirWay(at: Self.at(last + 2)))
        #expect(busy.nextDue(closes: Self.at(last + 10)) == Self.at(last + 10))
        // Half as busy, a push every millisecond: the pause is the pushes stopping.
        let loaded = Self.pace(arrivingEvery: 1, count: 40)
        #expect(!loaded.moreOnTheirWay(at: Self.at(39 + 2 * Double(CommitPace.patience))))
    }

    @Test func aSlowCommitMakesWaitingPaySooner() {
        var pace = Self.pace(arrivingEvery: 5, count: 40)
        for _ in 0..<40 { pace.committed(in: .milliseconds(20)) }
        // Pushes come faster than a commit takes: the next shares it.
        #expect(pace.moreOnTheirWay(at: Self.at(39 * 5 + 1)))
    }

    /// Through a real store: with an adaptive window of an hour, a lone push is answered at once
    /// (a fixed window of an hour would hold it that long, see StoreTests).
    @Test func aLonePushIsCommittedAtOnceUnderAnHourLongAdaptiveWindow() async throws {
        let directory = try TemporaryDirectory("crossmate-pace")
        defer { directory.remove() }
        let groups = Mutex([Int]())
        let store = Store(
            database: try SQLiteDatabase(path: directory.path + "/db.sqlite"),
            onGroupCommit: { batches, _ in groups.withLock { $0.append(batches) } }, commitWindow: .adaptive(maximum: .seconds(3600)))
        try await store.migrate(now: 1)
        let helpers = StoreTests()
        let author = try await helpers.account(store).author
        let game = try await helpers.game(store, owner: author)
        let before = groups.withLock(\.count)
        let answered = Mutex(false)
        let push = Task {
            let outcome = try await store.appendMoves(gameID: game, authorID: author, moves: [helpers.move(game, "d1", 1)])
            answered.withLock { $0 = true }
            return outcome
        }
        try await eventually("the lone push is answered") { answered.withLock { $0 } }
        #expect(try await push.value.saved.count == 1)
        #expect(groups.withLock { Array($0.dropFirst(before)) } == [1])
    }
}
