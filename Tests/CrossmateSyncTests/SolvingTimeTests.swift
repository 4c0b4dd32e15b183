import CrossmateSync
import Testing

/// The shared clock: a move keeps its player solving for a minute or until they pause; the
/// clock runs while anyone is solving.
@Suite struct SolvingTimeTests {
    let second: Int64 = 1_000

    func ana(_ seconds: Int64) -> SolvingTime.Stamp { SolvingTime.Stamp(authorID: "ana", at: seconds * second) }
    func ben(_ seconds: Int64) -> SolvingTime.Stamp { SolvingTime.Stamp(authorID: "ben", at: seconds * second) }

    @Test func aGapOfMoreThanAMinuteCountsAsOneAndTheClockRunsOnAMinute() {
        let measured = SolvingTime.measure(moves: [ana(100), ana(0), ana(10)], pauses: [], end: nil, now: 110 * second)
        #expect(measured.seconds == 10 + 60 + 10 && measured.countsFor == 50)
        #expect(SolvingTime.measure(moves: [], pauses: [], end: nil, now: 5 * second) == (0, 0))
    }

    /// Without pauses the rule is the one every earlier build used: the gaps between moves,
    /// each at most a minute, and up to a minute after the last.
    @Test func withoutPausesItIsTheSumOfCappedGaps() {
        var random = SeededRandomNumberGenerator(seed: 21)
        for _ in 0..<200 {
            let times = (0..<Int.random(in: 1...30, using: &random)).map { _ in Int64.random(in: 0...600_000, using: &random) }
            let now = Int64.random(in: 0...700_000, using: &random)
            let sorted = times.sorted()
            var expected: Int64 = 0
            for (earlier, later) in zip(sorted, sorted.dropFirst()) { expected += min(later - earlier, SolvingTime.idleMillis) }
            let since = max(0, now - sorted.last!)
            expected += min(since, SolvingTime.idleMillis)
            let players = times.map { SolvingTime.Stamp(authorID: Bool.random(using: &random) ? "ana" : "ben", at: $0) }
            let measured = SolvingTime.measure(moves: players, pauses: [], end: nil, now: now)
            #expect(measured.seconds == Int(expected / 1000))
            if sorted.last! <= now { #expect(measured.countsFor == Int(max(0, SolvingTime.idleMillis - since) / 1000)) }
            #expect(SolvingTime.measure(moveTimes: times, end: nil, now: now).seconds == measured.seconds)
        }
    }

    @Test func aPauseStopsTheClockUntilThePlayerMovesAgain() {
        let paused = SolvingTime.measure(moves: [ana(0), ana(10)], pauses: [ana(15)], end: nil, now: 300 * second)
        #expect(paused.seconds == 15 && paused.countsFor == 0)
        let back = SolvingTime.measure(moves: [ana(0), ana(10), ana(300)], pauses: [ana(15)], end: nil, now: 320 * second)
        #expect(back.seconds == 15 + 20 && back.countsFor == 40)
        // A pause before a move does not cut it short.
        #expect(SolvingTime.measure(moves: [ana(10)], pauses: [ana(5)], end: nil, now: 40 * second).seconds == 30)
    }

    @Test func inASharedGameTheClockRunsWhileAnyoneSolves() {
        // Ana pauses at 15 s; Ben moves at 12 s and 40 s, so the clock runs on to 100 s.
        let shared = SolvingTime.measure(moves: [ana(0), ben(12), ben(40)], pauses: [ana(15)], end: nil, now: 70 * second)
        #expect(shared.seconds == 70 && shared.countsFor == 30)
        // Ben's pause does not stop Ana's minute.
        let other = SolvingTime.measure(moves: [ana(0)], pauses: [ben(5)], end: nil, now: 30 * second)
        #expect(other.seconds == 30 && other.countsFor == 30)
    }

    @Test func anEndedGameStopsAtItsEnd() {
        let ended = SolvingTime.measure(moves: [ana(0), ana(20), ana(500)], pauses: [], end: 30 * second, now: 900 * second)
        #expect(ended.seconds == 30 && ended.countsFor == 0)
    }
}
