import CrossmateCore
import CrossmateSync
import Testing

@Suite struct MergeLawTests {
    @Test(arguments: 0..<50)
    func mergeIsCommutative(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let a = grid(randomMoves(count: 40, width: 5, height: 5, using: &random))
        let b = grid(randomMoves(count: 40, width: 5, height: 5, using: &random))
        #expect(a.merged(with: b) == b.merged(with: a), "seed \(seed)")
    }

    @Test(arguments: 0..<50)
    func mergeIsAssociative(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let a = grid(randomMoves(count: 30, width: 5, height: 5, using: &random))
        let b = grid(randomMoves(count: 30, width: 5, height: 5, using: &random))
        let c = grid(randomMoves(count: 30, width: 5, height: 5, using: &random))
        #expect(a.merged(with: b).merged(with: c) == a.merged(with: b.merged(with: c)), "seed \(seed)")
    }

    @Test(arguments: 0..<50)
    func mergeIsIdempotent(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let a = grid(randomMoves(count: 40, width: 5, height: 5, using: &random))
        #expect(a.merged(with: a) == a, "seed \(seed)")
    }

    @Test(arguments: 0..<50)
    func anyOrderAndAnyRepetitionGiveTheSameGrid(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let moves = randomMoves(count: 60, width: 5, height: 5, using: &random)
        let reference = grid(moves)
        let shuffledWithDuplicates = (moves + moves.prefix(20)).shuffled(using: &random)
        #expect(grid(shuffledWithDuplicates) == reference, "seed \(seed)")
        let halves = grid(Array(moves.prefix(30))).merged(with: grid(Array(moves.dropFirst(30))))
        #expect(halves == reference, "seed \(seed)")
    }

    @Test func higherTimestampWinsThenSmallerAuthorThenSmallerReplica() {
        let early = move("r1", 1, at: at(0, 0), "A", time: 5)
        let late = move("r2", 1, at: at(0, 0), "B", time: 6)
        #expect(grid([late, early]).letter(at: at(0, 0)) == "B")

        let byZed = move("r1", 2, at: at(0, 1), "Z", time: 7, author: "zed")
        let byAmy = move("r2", 2, at: at(0, 1), "A", time: 7, author: "amy")
        #expect(grid([byAmy, byZed]).letter(at: at(0, 1)) == "A")
        #expect(grid([byZed, byAmy]).letter(at: at(0, 1)) == "A")

        let replicaB = move("rB", 1, at: at(0, 2), "B", time: 9, author: "same")
        let replicaA = move("rA", 1, at: at(0, 2), "A", time: 9, author: "same")
        #expect(grid([replicaB, replicaA]).letter(at: at(0, 2)) == "A")
        #expect(grid([replicaA, replicaB]).letter(at: at(0, 2)) == "A")
    }

    @Test func mergeNotAfterStopsAtTheSeal() {
        let moves = [move("r1", 1, at: at(0, 0), "A", time: 5), move("r1", 2, at: at(0, 0), "B", time: 10)]
        var sealed = GameGrid(width: 5, height: 5)
        sealed.apply(moves, notAfter: HLCTimestamp(wallMillis: 7))
        #expect(sealed.letter(at: at(0, 0)) == "A")
    }

    @Test func movesOutsideTheGridAreIgnored() {
        var grid = GameGrid(width: 2, height: 2)
        let below = grid.apply(move("r1", 1, at: at(5, 0), "A", time: 1))
        let left = grid.apply(move("r1", 2, at: at(0, -1), "A", time: 1))
        #expect(!below && !left)
        #expect(grid == GameGrid(width: 2, height: 2))
    }
}

@Suite struct ClockTests {
    @Test func ticksAreStrictlyIncreasingEvenWhenTheWallClockStandsStillOrGoesBack() {
        var clock = HybridLogicalClock()
        let first = clock.tick(wallMillis: 1_000)
        let second = clock.tick(wallMillis: 1_000)
        let third = clock.tick(wallMillis: 500)
        #expect(first < second && second < third)
        #expect(third.wallMillis == 1_000 && third.counter == 2)
        #expect(clock.tick(wallMillis: 2_000) == HLCTimestamp(wallMillis: 2_000))
    }

    @Test func observingARemoteTimestampPutsTheNextTickAfterIt() {
        var clock = HybridLogicalClock()
        _ = clock.tick(wallMillis: 100)
        clock.observe(HLCTimestamp(wallMillis: 90_000, counter: 7))
        #expect(clock.tick(wallMillis: 100) == HLCTimestamp(wallMillis: 90_000, counter: 8))
    }

    @Test func counterOverflowCarriesIntoTheMilliseconds() {
        var clock = HybridLogicalClock(latest: HLCTimestamp(wallMillis: 50, counter: .max))
        #expect(clock.tick(wallMillis: 10) == HLCTimestamp(wallMillis: 51, counter: 0))
    }

    @Test func packedFormSortsLikeTheTimestamp() {
        var random = SeededRandom(seed: 7)
        let stamps = (0..<500).map { _ in
            HLCTimestamp(wallMillis: Int64.random(in: 0...2_000_000_000_000, using: &random), counter: UInt16.random(in: 0...3, using: &random))
        }
        #expect(stamps.sorted().map(\.packed) == stamps.map(\.packed).sorted())
        #expect(stamps.allSatisfy { HLCTimestamp(packed: $0.packed) == $0 })
    }

    @Test func skewCheckRefusesTimestampsTooFarAhead() {
        let server: Int64 = 1_000_000
        #expect(HLCTimestamp(wallMillis: server + 60_000).isWithinSkew(of: server, maximumAheadMillis: 60_000))
        #expect(!HLCTimestamp(wallMillis: server + 60_001).isWithinSkew(of: server, maximumAheadMillis: 60_000))
        #expect(HLCTimestamp(wallMillis: server - 3_600_000).isWithinSkew(of: server, maximumAheadMillis: 60_000))
    }

    @Test func cellMarkCodesAreLossless() {
        for code in 0...7 {
            let mark = CellMark(code: code)
            #expect(mark?.code == code)
        }
        #expect(CellMark(code: 8) == nil && CellMark(code: -1) == nil)
        #expect(CellMark(isPencil: true, verdict: .checkedWrong).code == 3)
        #expect(CellMark(verdict: .revealed).isLocked)
    }
}
