import CrossmateCore
import CrossmateSync
import Testing

@Suite struct PresenceTests {
    let minute: Int64 = 60_000

    func device(_ id: String, author: String = "acct-ann") -> DevicePresence {
        DevicePresence(gameID: "g", deviceID: id, authorID: author)
    }

    @Test func aLeaseLastsTenMinutesIsRefreshedUnderFiveAndEndsOnLeaving() {
        let entered = Presence.enter(device("a"), now: 0)
        #expect(entered.leaseUntil == 10 * minute && entered.isPresent(at: 9 * minute) && !entered.isPresent(at: 10 * minute))
        #expect(!Presence.needsRefresh(entered, now: 5 * minute) && Presence.needsRefresh(entered, now: 5 * minute + 1))
        let left = Presence.leave(entered, now: 2 * minute)
        #expect(!left.isPresent(at: 2 * minute))
        // A leave processed after the lease ran out does not extend it.
        #expect(Presence.leave(entered, now: 20 * minute).leaseUntil == 10 * minute)
    }

    /// The failure of one shared value per account: a device leaving while its sibling stays.
    @Test func oneDeviceLeavingLeavesItsSiblingsLeaseAlone() {
        let a = Presence.leave(Presence.enter(device("a"), now: 0), now: minute)
        let c = Presence.enter(device("c"), now: 0)
        // A friend moves (sequence 7) after both showed through 5.
        let devices = [Presence.showed(a, through: 5), Presence.showed(c, through: 5)]
        let horizon = Presence.horizon(of: devices)
        #expect(!Presence.isUnread(latestOtherMove: 7, horizon: horizon, devices: devices, now: 2 * minute))
        // With both gone the badge shows; and once C's lease runs out by itself, too.
        let bothLeft = [devices[0], Presence.leave(devices[1], now: 3 * minute)]
        #expect(Presence.isUnread(latestOtherMove: 7, horizon: horizon, devices: bothLeft, now: 3 * minute))
        #expect(Presence.isUnread(latestOtherMove: 7, horizon: horizon, devices: devices, now: 10 * minute))
    }

    /// The other failure: a close processed late must not mark read a move no device showed.
    @Test func aLateCloseNeverMarksUnshownMovesRead() {
        var a = Presence.showed(Presence.enter(device("a"), now: 0), through: 10)
        // Move 11 by a friend is stored; A's close reaches the server three minutes later.
        a = Presence.leave(a, now: 3 * minute)
        let horizon = Presence.horizon(of: [a], previous: 10)
        #expect(horizon == 10)
        #expect(Presence.isUnread(latestOtherMove: 11, horizon: horizon, devices: [a], now: 3 * minute))
        // Read-through and the horizon never move backward.
        #expect(Presence.showed(a, through: 4).readThrough == 10)
        #expect(Presence.horizon(of: [device("b")], previous: 10) == 10)
        // My own moves after the horizon are not unread.
        #expect(!Presence.isUnread(latestOtherMove: nil, horizon: horizon, devices: [a], now: 3 * minute))
    }

    @Test func catchUpSaysWhatOthersDidSinceTheBaseline() throws {
        let puzzle = Puzzles.greenLight
        var ana = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "ana-1", authorID: "acct-ana")
        var moves: [(sequence: Int64, move: Move)] = []
        func record(_ made: [Move]) { for move in made { moves.append((Int64(moves.count + 1), move)) } }
        record(try ana.perform(.setLetter(at(1, 0), "G"), wallMillis: 1))  // before the baseline
        record(try ana.perform(.setLetter(at(1, 1), "R"), wallMillis: 2))
        record(try ana.perform(.setLetter(at(1, 2), "X"), wallMillis: 3))
        record(try ana.perform(.check(.word(at(1, 0), .across)), wallMillis: 4))
        record(try ana.perform(.delete(at(1, 2)), wallMillis: 5))
        let catchUp = CatchUp.since(1, moves: moves, me: "acct-me")
        #expect(catchUp.squares == [at(1, 0), at(1, 1), at(1, 2)])
        #expect(catchUp.sentence { $0 == "acct-ana" ? "Ana" : "?" } == "Ana filled 1 square, erased 1 square and made 1 check")
        #expect(CatchUp.since(1, moves: moves, me: "acct-ana").isEmpty)
        #expect(CatchUp.since(Int64(moves.count), moves: moves, me: "acct-me").sentence { _ in "x" } == nil)
    }
}
