import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import Logging
import Synchronization

/// The games the engine holds: the list, reading zones (fetch, relays, commits) and merging them into the replicas.
extension SyncEngine {
    /// The game is on this device's screen, or no longer.
    public func viewing(_ gameID: String, _ on: Bool) {
        if on { viewed.insert(gameID) } else { viewed.remove(gameID) }
        socket?.send(.viewing(gameID: gameID, viewing: on))
    }

    /// This device enters a game (a ten-minute lease; entering again renews it) or leaves it,
    /// having shown everything through its change token. Returns the server's answer, or nil
    /// when it cannot be reached (presence is best effort: the lease runs out by itself).
    @discardableResult
    public func presence(_ gameID: String, entering: Bool) async -> PresenceResponse? {
        let shown = (try? store.game(gameID))?.token?.sequence ?? 0
        let answer = try? await api.presence(gameID: gameID, PresenceRequest(action: entering ? "enter" : "leave", readThrough: shown))
        if answer != nil {
            unread[gameID] = false
            unreadMessages[gameID] = 0
        }
        return answer
    }

    /// Learns the account's games from the server (new ones are loaded, removals turn read-only).
    func refreshGameList(report: inout SyncReport) async throws(ServerFailure) {
        var cursor: GameListCursor?
        var changed = false
        repeat {
            let page = try await api.games(after: cursor)
            if cursor == nil, let restoredAt = page.restoredAt, (try? store.checkedRestore()) != restoredAt {
                // The server was restored from a backup since this device last looked: it may
                // lack moves this device saw acknowledged. Each game's last is sent again.
                let games = (try? store.recheckAcknowledged(replicaID: identity.deviceID)) ?? 0
                logger.notice("the server was restored from a backup: checking this device's moves", metadata: ["games": "\(games)"])
                try? store.setCheckedRestore(restoredAt)
                kickPush()
            }
            for summary in page.games {
                unread[summary.gameID] = summary.unread ?? false
                unreadMessages[summary.gameID] = summary.unreadMessages ?? 0
                nudges[summary.gameID] = summary.nudges ?? []
                let local = try? store.game(summary.gameID)
                if local == nil {
                    _ = try await fetch(summary.gameID)
                    report.newGames.append(summary.gameID)
                    socket?.send(.subscribe(games: [summary.gameID]))
                    changed = true
                }
                if summary.readOnly, local?.readOnly != true {
                    becomeReadOnly(summary.gameID, reason: "removed from the game")
                }
            }
            cursor = page.next
        } while cursor != nil
        if let friends = try? await api.friends() {
            let now = Set(friends.friends.filter(\.blocked).map(\.authorID))
            if now != blocked {
                blocked = now
                for gameID in unreadMessages.keys { emit(.chatChanged(gameID: gameID)) }
            }
        }
        if changed { emit(.gamesChanged) }
    }

    /// Fetches a game's changes since the local token (a game never seen: snapshot plus tail).
    /// Returns how many moves arrived.
    @discardableResult
    public func fetch(_ gameID: String) async throws(ServerFailure) -> Int {
        var received = 0
        var local = try? store.game(gameID)
        if local == nil || local?.token == nil {
            let loaded = try await api.snapshot(gameID: gameID)
            do {
                try store.saveGame(loaded.game, title: loaded.game.puzzle.title)
                if let snapshot = loaded.snapshot {
                    try store.saveSnapshot(gameID: gameID, zoneSeq: loaded.token.sequence, snapshot: snapshot)
                }
            } catch {
                logger.error("the local store failed", metadata: ["error": "\(error)"])
                throw .unreadable("the local store failed: \(error)")
            }
            apply(loaded.records, gameID: gameID)
            try? store.setChangeToken(loaded.token)
            local = try? store.game(gameID)
            emit(.gamesChanged)
        }
        var token = local?.token
        while true {
            let page: ChangesResponse
            do {
                page = try await api.changes(gameID: gameID, since: token)
            } catch {
                if let body = error.errorBody, body.error == .forbidden || body.error == .notFound {
                    becomeReadOnly(gameID, reason: body.message)
                    return received
                }
                throw error
            }
            received += apply(page.changes, gameID: gameID)
            try? store.setChangeToken(page.token)
            token = page.token
            settled(gameID)
            if !page.moreComing { break }
        }
        await settleCompletion(gameID)
        return received
    }

    /// Applies changes from the server: moves merged into the store and the open replica, the
    /// game record, participants and seals stored. Returns the moves applied.
    @discardableResult
    func apply(_ changes: [ZoneChange], gameID: String) -> Int {
        var moves: [Move] = []
        var others = false
        var chatChanged = false
        var flagsChanged = false
        for change in changes {
            switch change.record {
            case let .move(record):
                if let move = try? record.move() { moves.append(move) }
            case let .game(record):
                try? store.saveGame(record, title: record.puzzle.title)
                others = true
            case let .participant(participant):
                try? store.saveParticipant(participant)
                if participant.authorID == identity.authorID, participant.revoked {
                    becomeReadOnly(gameID, reason: "removed from the game")
                }
                others = true
            case let .seal(seal):
                try? store.saveSeal(seal)
                others = true
            case let .pause(pause):
                try? store.savePause(pause)
            case let .message(message):
                try? store.saveMessage(message, sequence: change.sequence)
                chatChanged = true
            case let .reaction(reaction):
                if (try? store.saveReaction(reaction, sent: true)) == true { chatChanged = true }
            case let .flag(flag):
                if (try? store.saveFlag(flag, sent: true)) == true { flagsChanged = true }
            }
        }
        if !moves.isEmpty {
            do { try store.recordReceived(moves) } catch { logger.error("the local store failed", metadata: ["error": "\(error)"]) }
            if !merge(moves, gameID: gameID) { emit(.gridChanged(gameID: gameID, squares: [])) }
        }
        if others { emit(.gamesChanged) }
        if chatChanged { emit(.chatChanged(gameID: gameID)) }
        if flagsChanged { emit(.gridChanged(gameID: gameID, squares: [])) }
        return moves.count
    }

    /// Merges moves into the game's open replica, telling the UI of the squares that changed;
    /// false when the game has no replica open.
    @discardableResult
    func merge(_ moves: [Move], gameID: String) -> Bool {
        guard var replica = replicas[gameID] else { return false }
        let before = replica.grid
        replica.receive(moves)
        replicas[gameID] = replica
        emitChanges(gameID: gameID, before: before, after: replica.grid, at: moves.map(\.position))
        return true
    }

    /// The moves among `changes` (other records left out).
    static func moves(in changes: some Sequence<ZoneChange>) -> [Move] {
        changes.compactMap { change -> Move? in
            if case let .move(record) = change.record { try? record.move() } else { nil }
        }
    }

    /// The zone is on disk through `committed`: the relayed changes up to it are stored and the
    /// token moves on, when they follow on from the token without a gap; else the game is read
    /// (unless not `fetchingOnGap`: a push's answer, where the next poke or relay will tell).
    func commit(_ gameID: String, through committed: Int64, fetchingOnGap: Bool = true) async {
        guard let held = (try? store.game(gameID))?.token?.sequence, committed > held else { return }
        guard let run = ahead.run(in: gameID, from: held, through: committed) else {
            if fetchingOnGap { _ = try? await fetch(gameID) }
            return
        }
        apply(run, gameID: gameID)
        try? store.setChangeToken(ChangeToken(zone: gameID, sequence: committed))
        settled(gameID)
        await settleCompletion(gameID)
    }

    /// Relayed changes the token has reached are stored now: they are dropped from those held.
    func settled(_ gameID: String) {
        guard let token = (try? store.game(gameID))?.token?.sequence else { return }
        ahead.settled(gameID, through: token)
    }

    /// Whether every move among `changes` is in the store (by its replica and seq: a restarted
    /// server may have given its zone sequence to another record).
    func isStored(_ changes: some Collection<ZoneChange>, in gameID: String) -> Bool {
        let moves = Self.moves(in: changes)
        guard !moves.isEmpty else { return true }
        let stored = Set(((try? store.moves(gameID: gameID)) ?? []).map { "\($0.replicaID):\($0.seq)" })
        return moves.allSatisfy { stored.contains("\($0.replicaID):\($0.seq)") }
    }

    /// Reads a game's replica again from the store (dropping what was only relayed, but for what
    /// is relayed now), telling the UI of every square that changed.
    func readAgain(_ gameID: String) {
        guard let old = replicas.removeValue(forKey: gameID), var fresh = try? replica(gameID) else { return }
        fresh.receive(Self.moves(in: ahead.relayed(in: gameID)))
        replicas[gameID] = fresh
        emitChanges(gameID: gameID, before: old.grid, after: fresh.grid, at: fresh.puzzle.letterPositions)
    }

    func emitChanges(gameID: String, before: GameGrid, after: GameGrid, at positions: [GridPosition]) {
        var seen = Set<GridPosition>()
        var squares: [SquareChange] = []
        for position in positions where seen.insert(position).inserted && before.state(at: position) != after.state(at: position) {
            squares.append(SquareChange(position: position, authorID: after.state(at: position).cellAuthorID))
        }
        if !squares.isEmpty { emit(.gridChanged(gameID: gameID, squares: squares)) }
    }

    func becomeReadOnly(_ gameID: String, reason: String) {
        guard let local = try? store.game(gameID), !local.readOnly else { return }
        try? store.setReadOnly(gameID)
        emit(.becameReadOnly(gameID: gameID, reason: reason))
    }

    /// When the game's record carries a completion this device has not adopted: the final grid
    /// comes with the latest snapshot (the one stored with the completion).
    func settleCompletion(_ gameID: String) async {
        guard let local = try? store.game(gameID), let record = local.game.completion else { return }
        let completion = record.completion
        guard !adoptedFinal.contains(gameID) else { return }
        guard let loaded = try? await api.snapshot(gameID: gameID), let final = loaded.snapshot else { return }
        try? store.saveSnapshot(gameID: gameID, zoneSeq: loaded.token.sequence, snapshot: final)
        adoptedFinal.insert(gameID)
        if var replica = replicas[gameID] {
            let before = replica.grid
            replica.adopt(completion, finalGrid: final.grid)
            replicas[gameID] = replica
            emitChanges(gameID: gameID, before: before, after: replica.grid, at: replica.puzzle.letterPositions)
        }
        emit(.completed(gameID: gameID, completion: completion))
        kickPush()
    }
}
