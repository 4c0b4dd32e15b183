import CrossmateProtocol
import Testing

@testable import CrossmateStore

/// A group commit's batches, handed to `GroupAppend` at once in one transaction (as the commit
/// queue does under load, but deterministically): each is checked against the ones before it.
extension StoreTests {
    func request(_ game: String, _ author: String, _ moves: [MoveRecord]) -> AppendRequest {
        AppendRequest(gameID: game, authorID: author, moves: moves, bodies: moves.map(\.sortedJSON), maximumMoves: .max)
    }

    /// Runs `requests` as one group, in the order the commit queue gives them (by game, then arrival).
    func appendGroup(_ store: Store, _ requests: [AppendRequest]) async throws -> [Result<AppendOutcome, StoreRefusal>] {
        let order = GroupAppend.commitOrder(requests.map(\.gameID))
        let forUpdate = store.database.forUpdate
        let outcomes = try await store.database.transaction { db in
            var group = GroupAppend()
            let outcomes = try await group.take(order.map { requests[$0] }, on: db, forUpdate: forUpdate)
            try await group.write(on: db)
            return outcomes
        }
        var inArrivalOrder = outcomes
        for (position, index) in order.enumerated() { inArrivalOrder[index] = outcomes[position] }
        return inArrivalOrder
    }

    func statuses(_ outcome: Result<AppendOutcome, StoreRefusal>) -> [RecordResult.Status] {
        (try? outcome.get())?.results.map(\.status) ?? []
    }

    func refusal(_ outcome: Result<AppendOutcome, StoreRefusal>) -> StoreRefusal? {
        if case let .failure(refusal) = outcome { refusal } else { nil }
    }

    @Test(arguments: Backend.available)
    func oneGroupChecksEachBatchAgainstTheOnesBeforeIt(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            let bob = try await account(store)
            let eve = try await account(store)
            let first = try await game(store, owner: ann.author)
            let second = try await game(store, owner: ann.author)
            _ = try await store.setParticipant(
                ParticipantRecord(gameID: first, authorID: bob.author, displayName: "Bob", role: .player, revoked: true),
                feedState: .readOnly)
            // Stored before the group (zone 3 → 4), so its resend below is found in the database.
            #expect(try await store.appendMoves(gameID: first, authorID: ann.author, moves: [move(first, "r0", 1)]).saved.count == 1)

            let outcomes = try await appendGroup(
                store,
                [
                    request(first, ann.author, [move(first, "r1", 1), move(first, "r1", 2)]),
                    request(second, ann.author, [move(second, "r2", 1)]),
                    request(first, ann.author, [move(first, "r0", 1), move(first, "r1", 2), move(first, "r1", 3)]),
                    request(first, ann.author, [move(first, "r1", 3, letter: "Z"), move(first, "r0", 1, letter: "Z"), move(first, "r1", 5)]),
                    request(first, eve.author, [move(first, "r9", 1)]),
                    request(first, bob.author, [move(first, "r8", 1)]),
                    request("missing", ann.author, [move("missing", "r1", 1)]),
                ])
            #expect(statuses(outcomes[0]) == [.saved, .saved])
            #expect((try? outcomes[0].get())?.saved.map(\.sequence) == [5, 6])
            #expect(statuses(outcomes[1]) == [.saved])
            #expect((try? outcomes[1].get())?.zoneSeq == 3)
            // A resend of a move stored earlier, one stored earlier in this group, and a new one.
            #expect(statuses(outcomes[2]) == [.duplicate, .duplicate, .saved])
            #expect((try? outcomes[2].get())?.zoneSeq == 7)
            // Reusing seqs (from this group and from before it) and leaving a gap.
            #expect(statuses(outcomes[3]) == [.rejected, .rejected, .rejected])
            #expect((try? outcomes[3].get())?.results.map { $0.error?.message.contains("gap") == true } == [false, false, true])
            #expect(refusal(outcomes[4]) == .notParticipant)
            #expect(refusal(outcomes[5]) == .revoked)
            #expect(refusal(outcomes[6]) == .gameNotFound)

            // The group wrote the records, the replica heads and the games' counters.
            #expect(try await store.changes(gameID: first, after: 0, limit: 100).map(\.sequence) == Array(1...7))
            let next = try await store.appendMoves(gameID: first, authorID: ann.author, moves: [move(first, "r1", 4), move(first, "r0", 2)])
            #expect(next.saved.map(\.sequence) == [8, 9] && next.moveCount == 6)
            let game = try #require(try await store.game(first))
            #expect(game.zoneSeq == 9 && game.moveCount == 6)
            #expect(try await store.appendMoves(gameID: second, authorID: ann.author, moves: [move(second, "r2", 2)]).saved.map(\.sequence) == [4])
        }
    }

    /// A transaction that takes its pushes one group at a time (urgent batches, relayed as they
    /// arrive) checks each group against the ones before it, and writes them all once at the end.
    @Test(arguments: Backend.available)
    func aTransactionsGroupsAreCheckedInTurnAndWrittenOnce(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            let first = try await game(store, owner: ann.author)
            let second = try await game(store, owner: ann.author)
            #expect(try await store.appendMoves(gameID: first, authorID: ann.author, moves: [move(first, "r0", 1)]).saved.count == 1)
            let base = try #require(try await store.game(first)).zoneSeq
            let forUpdate = store.database.forUpdate
            let groups = try await store.database.transaction { db in
                var append = GroupAppend()
                let one = try await append.take(
                    [request(first, ann.author, [move(first, "r1", 1), move(first, "r0", 2)])], on: db, forUpdate: forUpdate)
                // Nothing is written before the end.
                let written = try await db.query("SELECT COUNT(*) AS n FROM records WHERE game_id = ? AND record_type = 'move'", [.text(first)])
                // A game read for the first time beside one read before: the first keeps what
                // this transaction did to it (its heads are not read back from the table).
                let two = try await append.take(
                    [
                        request(first, ann.author, [move(first, "r1", 1), move(first, "r0", 2), move(first, "r0", 3)]),
                        request(second, ann.author, [move(second, "r2", 1)]),
                    ], on: db, forUpdate: forUpdate)
                let three = try await append.take(
                    [request(first, ann.author, [move(first, "r1", 1, letter: "Z"), move(first, "r1", 2)])], on: db, forUpdate: forUpdate)
                try await append.write(on: db)
                return (one, two, three, try written.first?.integer("n"))
            }
            #expect(groups.3 == 1, "only the move stored before the transaction")
            #expect((try? groups.0[0].get())?.saved.map(\.sequence) == [base + 1, base + 2])
            // Resends of the moves of the group before, and a new one.
            #expect(statuses(groups.1[0]) == [.duplicate, .duplicate, .saved])
            #expect((try? groups.1[0].get())?.saved.map(\.sequence) == [base + 3])
            #expect(statuses(groups.1[1]) == [.saved])
            #expect(statuses(groups.2[0]) == [.rejected, .saved])
            #expect(try await store.changes(gameID: first, after: 0, limit: 100).map(\.sequence) == Array(1...(base + 4)))
            let game = try #require(try await store.game(first))
            #expect(game.zoneSeq == base + 4 && game.moveCount == 5)
            #expect(
                try await store.appendMoves(gameID: first, authorID: ann.author, moves: [move(first, "r1", 3)]).saved.map(\.sequence) == [base + 5])
        }
    }

    @Test(arguments: Backend.available)
    func aGroupLargerThanOneStatementIsWrittenInPieces(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            var games: [String] = []
            for _ in 0..<(GroupAppend.rowsPerStatement + 6) { games.append(try await game(store, owner: ann.author)) }
            let long = (1...(GroupAppend.rowsPerStatement * 2 + 22)).map { move(games[0], "long", $0) }
            let outcomes = try await appendGroup(
                store,
                [request(games[0], ann.author, long)]
                    + games.map { request($0, ann.author, [move($0, "short", 1)]) })
            #expect(statuses(outcomes[0]) == Array(repeating: .saved, count: long.count))
            #expect(outcomes.dropFirst().allSatisfy { statuses($0) == [.saved] })
            let stored = try await store.changes(gameID: games[0], after: 0, limit: 1_000)
            #expect(stored.map(\.sequence) == Array(1...Int64(long.count + 3)))
            for id in games {
                let game = try #require(try await store.game(id))
                #expect(game.moveCount == (id == games[0] ? Int64(long.count + 1) : 1))
            }
        }
    }
}

extension StoreTests {
    /// One invited player cannot fill a shared game: a player's moves stop at their own bound,
    /// the others' go on to the game's; and the owner removing a filler frees the room their
    /// moves took (they stay in the history).
    @Test(arguments: Backend.available)
    func aPlayerFillsOnlyTheirShareOfASharedGame(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            let mal = try await account(store)
            let gameID = try await game(store, owner: ann.author)
            _ = try await store.setParticipant(
                ParticipantRecord(gameID: gameID, authorID: mal.author, displayName: "Mal", role: .player), feedState: .active)
            func push(_ author: String, _ replica: String, _ seqs: ClosedRange<Int>) async throws -> [RecordResult.Status] {
                let moves = seqs.map { move(gameID, replica, $0) }
                let request = AppendRequest(
                    gameID: gameID, authorID: author, moves: moves, bodies: moves.map(\.sortedJSON), maximumMoves: 10, maximumPlayerMoves: 6)
                return statuses(try await appendGroup(store, [request])[0])
            }
            // Mal, from two devices: six moves in all, then refused with a reason.
            #expect(try await push(mal.author, "mal-1", 1...4) == Array(repeating: .saved, count: 4))
            #expect(try await push(mal.author, "mal-2", 1...4) == [.saved, .saved, .rejected, .rejected])
            // Ann goes on to the game's bound.
            #expect(try await push(ann.author, "ann-1", 1...5) == [.saved, .saved, .saved, .saved, .rejected])
            // Ann removes Mal: his six leave the game's count, and Ann has room again.
            _ = try await store.setParticipant(
                ParticipantRecord(gameID: gameID, authorID: mal.author, displayName: "Mal", role: .player, revoked: true), feedState: .readOnly)
            #expect(try await store.game(gameID)?.moveCount == 4)
            #expect(try await push(ann.author, "ann-1", 5...6) == [.saved, .saved])
            #expect(try await push(mal.author, "mal-1", 5...5) == [])
        }
    }
}
