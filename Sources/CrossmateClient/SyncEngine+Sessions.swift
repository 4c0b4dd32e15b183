import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import Logging
import Synchronization

/// What a game screen asks of the engine: the replica, commands, chat, flags, reactions, the cursor, the view, the finish and the replay.
extension SyncEngine {
    /// Loads a game's replica from the local store (its own moves rebuild its journal, so undo
    /// and the next seq are exactly what they were before a restart).
    func replica(_ gameID: String) throws(SessionRefusal) -> GameReplica {
        if let replica = replicas[gameID] { return replica }
        guard let local = try? store.game(gameID) else { throw .unknownGame(gameID) }
        let moves = (try? store.moves(gameID: gameID)) ?? []
        let completion = local.game.completion?.completion
        let replica: GameReplica
        if let snapshot = try? store.snapshot(gameID: gameID) {
            replica = GameReplica(
                puzzle: local.game.puzzle, gameID: gameID, replicaID: identity.deviceID, authorID: identity.authorID,
                snapshot: snapshot.snapshot, moves: moves, completion: completion)
            if completion != nil { adoptedFinal.insert(gameID) }
        } else {
            replica = GameReplica(
                puzzle: local.game.puzzle, gameID: gameID, replicaID: identity.deviceID, authorID: identity.authorID,
                moves: moves, completion: completion)
        }
        replicas[gameID] = replica
        return replica
    }

    /// Opens a game for a UI.
    public func open(_ gameID: String) throws(SessionRefusal) -> GameSession {
        _ = try replica(gameID)
        return GameSession(engine: self, gameID: gameID)
    }

    /// Performs a command: the moves are in the local store before anyone hears of them.
    @discardableResult
    public func perform(_ command: Command, in gameID: String) throws(SessionRefusal) -> [Move] {
        var replica = try replica(gameID)
        if let local = try? store.game(gameID), local.readOnly { throw .readOnly(gameID) }
        let wasComplete = replica.completion != nil
        let before = replica.grid
        let moves: [Move]
        do { moves = try replica.perform(command, wallMillis: clock.now) } catch { throw .refused(error) }
        guard !moves.isEmpty else { return [] }
        do {
            try store.recordOwn(moves)
        } catch {
            // Not stored, so not made: the replica is left as it was.
            logger.error("the local store failed", metadata: ["error": "\(error)"])
            throw .refused(.invalidLetter("(the local store failed: \(error))"))
        }
        replicas[gameID] = replica
        emitChanges(gameID: gameID, before: before, after: replica.grid, at: moves.map(\.position))
        if !wasComplete, let completion = replica.completion { emit(.completed(gameID: gameID, completion: completion)) }
        emit(.status(status))
        kickPush()
        return moves
    }

    /// Writes a chat message: kept in the local store before anyone hears of it, sent when the
    /// server can be reached (a resend after a lost answer is the same message).
    @discardableResult
    public func send(message raw: String, in gameID: String) throws(SessionRefusal) -> ChatMessage {
        guard let local = try? store.game(gameID) else { throw .unknownGame(gameID) }
        if local.readOnly { throw .readOnly(gameID) }
        let text: String
        do { text = try Chat.text(raw) } catch { throw .invalidMessage(error.description) }
        let message = ChatMessage(
            gameID: gameID, authorID: identity.authorID, replicaID: identity.deviceID,
            messageID: Self.messageID(at: clock.local, using: &random), text: text, timestamp: HLCTimestamp(wallMillis: clock.now))
        do { try store.writeMessage(message) } catch { throw .invalidMessage("the local store failed: \(error)") }
        emit(.chatChanged(gameID: gameID))
        kickPush()
        return message
    }

    /// Flags the clue through `position` in `direction` for the other players (`on`), or takes
    /// this player's flag on it down: kept here first, sent when the server can be reached.
    public func flag(_ position: GridPosition, _ direction: Direction, on: Bool, in gameID: String) throws(SessionRefusal) {
        let replica = try replica(gameID)
        if let local = try? store.game(gameID), local.readOnly { throw .readOnly(gameID) }
        guard let clue = replica.puzzle.clue(containing: position, direction) else {
            throw .invalidMessage("no \(direction.rawValue) word goes through that square")
        }
        var flag = ClueFlag(
            gameID: gameID, authorID: identity.authorID, number: clue.number, direction: direction, on: on, timestamp: .zero)
        let held = ((try? store.flags(gameID: gameID)) ?? []).first { $0.key == flag.key }
        flag.timestamp = .after(held?.timestamp, now: clock.now)
        do { try store.saveFlag(flag, sent: false) } catch { throw .invalidMessage("the local store failed: \(error)") }
        emit(.gridChanged(gameID: gameID, squares: []))
        kickPush()
    }

    /// Gives (`on`) or takes back an emoji reaction to a message: kept here first, sent when
    /// the server can be reached.
    public func react(to messageKey: String, with emoji: String, on: Bool = true, in gameID: String) throws(SessionRefusal) {
        guard let local = try? store.game(gameID) else { throw .unknownGame(gameID) }
        if local.readOnly { throw .readOnly(gameID) }
        guard Chat.isReaction(emoji) else {
            throw .invalidMessage("a reaction is one emoji, such as \(Chat.quickReactions.joined(separator: " "))")
        }
        var reaction = Reaction(gameID: gameID, authorID: identity.authorID, messageKey: messageKey, emoji: emoji, on: on, timestamp: .zero)
        let held = ((try? store.reactions(gameID: gameID)) ?? []).first { $0.key == reaction.key }
        reaction.timestamp = .after(held?.timestamp, now: clock.now)
        do { try store.saveReaction(reaction, sent: false) } catch { throw .invalidMessage("the local store failed: \(error)") }
        emit(.chatChanged(gameID: gameID))
        kickPush()
    }

    /// A new message id: the device's time and 12 random letters and digits (an engine started
    /// again with the same seed does not repeat an id it gave before).
    static func messageID(at millis: Int64, using random: inout SeededRandomNumberGenerator) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String(millis, radix: 36) + "-" + String((0..<12).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
    }

    /// A game's conversation as this device shows it: in `Chat.ordered` order, without the
    /// messages of accounts this account blocked.
    public func conversation(_ gameID: String) -> [ChatLine] {
        let held = (try? store.messages(gameID: gameID)) ?? []
        let byKey = Dictionary(held.map { ($0.message.key, $0) }, uniquingKeysWith: { first, _ in first })
        let tallies = Chat.tallies((try? store.reactions(gameID: gameID)) ?? [], hiding: blocked)
        return Chat.shown(Chat.ordered(held.map(\.message)), hiding: blocked).compactMap { message in
            guard let entry = byKey[message.key] else { return nil }
            return ChatLine(message: message, sent: entry.sequence != nil, refusal: entry.refusal, reactions: tallies[message.key] ?? [])
        }
    }

    /// Moves this device's cursor: sent live over the socket, at most every 100 ms (the last
    /// position always goes).
    public func moveCursor(_ position: GridPosition, direction: Direction, in gameID: String) {
        let cursor = CursorPosition(row: position.row, col: position.col, direction: direction)
        if let delay = outgoingCursors.moved(cursor, in: gameID, now: .now) {
            Task { [weak self] in
                try? await Task.sleep(for: delay)
                await self?.flushCursor(gameID)
            }
            return
        }
        flushCursor(gameID)
    }

    func flushCursor(_ gameID: String) {
        guard let cursor = outgoingCursors.take(gameID, now: .now) else { return }
        socket?.send(.cursor(gameID: gameID, cursor: cursor))
    }

    /// The state a UI draws.
    public func view(_ gameID: String) throws(SessionRefusal) -> GameView {
        let replica = try replica(gameID)
        guard let local = try? store.game(gameID) else { throw .unknownGame(gameID) }
        return GameView(
            gameID: gameID, title: local.title, puzzle: replica.puzzle, grid: replica.grid, completion: replica.completion,
            canUndo: replica.canUndo && !local.readOnly, canRedo: replica.canRedo && !local.readOnly, readOnly: local.readOnly,
            players: (try? store.participants(gameID: gameID)) ?? [], cursors: peerCursors(gameID), me: identity.authorID,
            sealed: local.sealed, here: playersHere(gameID),
            flags: Flags.shown((try? store.flags(gameID: gameID)) ?? [], puzzle: replica.puzzle, grid: replica.grid, hiding: blocked))
    }

    /// What the finish and the clock count from the game's moves (`Tally`): the snapshot this
    /// device joined from, if any, and every move it holds beside it.
    func tally(_ gameID: String) -> Tally {
        let moves = (try? store.moves(gameID: gameID)) ?? []
        guard let snapshot = try? store.snapshot(gameID: gameID) else { return Tally(moves) }
        return snapshot.snapshot.tally(adding: moves)
    }

    /// Seconds spent solving, by the shared clock's rule (`SolvingTime`).
    public func solvingSeconds(_ gameID: String) -> Int { solvingSeconds(gameID, tally: tally(gameID)) }

    func solvingSeconds(_ gameID: String, tally: Tally) -> Int {
        let pauses = ((try? store.pauses(gameID: gameID)) ?? []).map(\.stamp)
        return SolvingTime.measure(moves: tally.stamps, pauses: pauses, end: replicas[gameID]?.completion?.at.wallMillis, now: clock.now)
            .seconds
    }

    /// The finished game's summary (`FinishSummary`: how it ended, the scores, the time, the
    /// line that tells it), as every device tells it; nil while it goes on.
    public func summary(_ gameID: String) throws(SessionRefusal) -> FinishSummary? {
        let replica = try replica(gameID)
        guard let completion = replica.completion else { return nil }
        let tally = tally(gameID)
        return FinishSummary(completion, finalGrid: replica.grid, tally: tally, seconds: solvingSeconds(gameID, tally: tally))
    }

    /// The replay of a finished game, once every device has sealed: fetches the game's whole
    /// history when this device holds only a snapshot of it.
    public func replay(_ gameID: String) async throws(SessionRefusal) -> ReplayAvailability {
        let replica = try replica(gameID)
        let puzzle = replica.puzzle
        func assemble() -> ReplayAvailability {
            ReplayAssembler.assemble(
                width: puzzle.width, height: puzzle.height, moves: try? store.moves(gameID: gameID),
                seals: (try? store.seals(gameID: gameID)) ?? [],
                removed: Set(((try? store.participants(gameID: gameID)) ?? []).filter(\.revoked).map(\.authorID)))
        }
        let first = assemble()
        guard case .waiting = first, replica.completion != nil else { return first }
        // Moves a snapshot covered were never fetched: read the zone from its start.
        var token: ChangeToken?
        while let page = try? await api.changes(gameID: gameID, since: token) {
            apply(page.changes, gameID: gameID)
            token = page.token
            if !page.moreComing { break }
        }
        return assemble()
    }
}
