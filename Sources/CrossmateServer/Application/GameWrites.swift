import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Logging

/// The server's write path. Every write to a game's zone — from an HTTP route, a native
/// device's socket or a browser's hosted replica, which are thin adapters around it — is
/// validated, stored, folded into the game's projection and told to the game's devices here,
/// and nowhere else. Devices hear of a write in one of two ways, both decided here: a poke to the
/// game's sockets (every instance's, through the fan-out; the hosted browser replicas fold the
/// changes it carries), or a feed change to an account's devices (their lists redraw).
///
/// It takes its real dependencies and nothing else: the store, the games' projections, where to
/// publish what happened (`Facts`), the rules beside the store's, the clock and a logger;
/// a test builds it with a store alone.
struct GameWrites: Sendable {
    let store: Store
    let directory: GameDirectory
    let facts: Facts
    let rules: WriteRules
    let clock: @Sendable () -> Int64
    let logger: Logger
    /// Moves each account stores, from all its devices (`Limits.accountMoves`).
    var accountMoves = RateLimiter(Limits.accountMoves)
    /// Counts moves stored (the server's metrics; none in a test).
    var movesIngested: (@Sendable (Int) -> Void)? = nil

    /// A batch of moves from a device, over HTTP or its socket: validated, stored, folded into
    /// the game's projection and poked to the game's other devices. Throws `APIError` when the
    /// whole batch is refused.
    func ingest(
        _ moves: [MoveRecord], into gameID: String, from device: StoredDevice, maximumRecords: Int = ProtocolLimits.maximumRecordsPerBatch
    ) async throws -> PushMovesResponse {
        guard moves.count <= maximumRecords else {
            throw APIError(.limitExceeded, "a batch holds at most \(maximumRecords) records; this one has \(moves.count)")
        }
        // Access is checked inside the store's transaction; the projection (cached after the
        // first request) gives the puzzle to validate against.
        let projection: GameProjection
        if let cached = directory.cached(gameID) {
            projection = cached
        } else {
            let (game, _) = try await store.access(gameID, for: device, write: true)
            projection = try await directory.projection(for: game)
        }
        let now = clock()
        // Letters a check, reveal, undo or redo names as someone else's must be a player's.
        let others = Set(moves.lazy.map(\.cellAuthorID).filter { !$0.isEmpty && $0 != device.authorID })
        let players = others.isEmpty ? [] : try await projection.players(including: others)

        var results = [RecordResult?](repeating: nil, count: moves.count)
        var candidates: [(index: Int, record: MoveRecord)] = []
        for (index, sent) in moves.enumerated() {
            var record = sent
            record.gameID = gameID
            record.authorID = device.authorID  // the server stamps the acting author
            switch validate(record, device: device, game: projection.game, now: now, isPlayer: players.contains) {
            case let .failure(error) where error.error == .clockSkew:
                // The whole batch waits: the client corrects its clock by serverTime and resends
                // (storing the rest would leave a gap at this record anyway). Only a writer of
                // the game hears so: to anyone else the game's existence stays hidden.
                _ = try await store.access(gameID, for: device, write: true)
                throw APIError(error)
            case let .failure(error):
                results[index] = RecordResult(replicaID: record.replicaID, seq: record.seq, status: .rejected, error: error)
            case .success:
                candidates.append((index, record))
            }
        }

        if !candidates.isEmpty {
            try accountMoves.admit(device.authorID, cost: candidates.count, now: now) {
                "your account has stored \(Limits.number(Limits.accountMoves.burst)) moves in a short time, as many as an account may; the rest are kept on your device and go in \($0) s"
            }
        }
        let outcome: AppendOutcome
        do {
            // This instance's browsers, and the devices that take relays, see the moves once they
            // are ordered, before their commit; the sender is answered, and the other devices
            // poked, once it is on disk.
            // When nobody here hears before the commit, nothing is relayed: the poke after the
            // commit tells everyone (one who starts listening meanwhile hears it there).
            let (facts, sender) = (facts, device.deviceID)
            let urgent = facts.hearsBeforeCommit(gameID, exceptDevice: sender)
            var relay: (@Sendable (AppendOutcome) -> Void)?
            if urgent { relay = { ordered in facts.publish(.movesOrdered(game: gameID, saved: ordered.saved, sender: sender)) } }
            outcome = try await store.appendMoves(
                gameID: gameID, authorID: device.authorID, moves: candidates.map(\.record), urgent: urgent, ordered: relay)
        } catch let refusal as StoreRefusal {
            throw refusal.apiError
        } catch {
            // The group did not commit: replicas that were shown its moves read the game again,
            // and devices relayed them reconnect and read it.
            facts.publish(.notCommitted(game: gameID))
            throw error
        }
        for (candidate, result) in zip(candidates, outcome.results) { results[candidate.index] = result }
        movesIngested?(outcome.saved.count)

        var sequence = outcome.zoneSeq
        if let last = outcome.saved.last {
            facts.publish(.mayCallBack(CallBackCandidate(event: .moves, gameID: gameID, sender: device.authorID, sequence: last.sequence)))
            // The fact carries the saved moves (when they end the zone) so up-to-date peers need
            // not fetch them.
            let inline = last.sequence == sequence ? InlineChanges(saved: outcome.saved) : nil
            let changed = Fact.zoneChanged(game: gameID, sequence: sequence, sender: device.deviceID, inline: inline)
            // Published from inside the fold, so in zone order.
            let facts = facts
            let (announced, noticed) = try await projection.fold(saved: outcome.saved) { facts.publish(changed) }
            directory.changed(gameID)
            if let noticed {
                sequence = try await complete(noticed, in: projection, through: sequence, exceptDevice: device.deviceID).sequence
            } else if !announced {
                facts.publish(changed)
            }
        }
        let completion = await projection.completion
        return PushMovesResponse(
            results: results.map { $0! }, token: ChangeToken(zone: gameID, sequence: sequence),
            completion: completion.map(CompletionRecord.init), serverTime: clock())
    }

    /// A new game of `puzzle`, owned by `device`'s account: its zone (the game and owner
    /// records), its list summary, and the owner's feed, told to their devices. The game and
    /// its zone's sequence.
    func create(_ puzzle: Puzzle, title: String, by device: StoredDevice) async throws -> (GameRecord, Int64) {
        let gameID = Secrets.identifier(prefix: "game")
        let game = GameRecord(gameID: gameID, ownerID: device.authorID, createdAt: clock(), puzzle: puzzle)
        let owner = ParticipantRecord(gameID: gameID, authorID: device.authorID, displayName: device.displayName, role: .owner)
        let sequence = try await store.createGame(
            game, title: title, owner: owner, summary: GameProjection.listSummary(puzzle, grid: GameGrid(puzzle: puzzle), through: 2))
        await feedChanged(of: device.authorID)
        logger.info("game created", metadata: ["game": "\(gameID)", "owner": "\(device.authorID)"])
        return (game, sequence)
    }

    /// Stores a device's presence in a game (a native device's through `presence`, a hosted
    /// browser's as it enters, shows and leaves); the account's horizon before it. With
    /// `tellFeed`, the account's devices redraw their lists (the unread badge may change).
    @discardableResult
    func store(_ presence: DevicePresence, tellFeed: Bool) async throws -> Int64 {
        let previous = try await store.putPresence(presence)
        if tellFeed { await feedChanged(of: presence.authorID) }
        return previous
    }

    /// The rules a single record must meet before it may be stored.
    func validate(
        _ record: MoveRecord, device: StoredDevice, game: GameRecord, now: Int64,
        isPlayer: (String) -> Bool
    ) -> Result<Move, ErrorBody> {
        let puzzle = game.puzzle
        guard record.replicaID == device.deviceID else {
            return .failure(ErrorBody(.forbidden, "a device writes only its own moves: replicaID must be \(device.deviceID)"))
        }
        guard record.seq >= 1 else { return .failure(ErrorBody(.invalid, "seq starts at 1")) }
        let move: Move
        do { move = try record.move() } catch { return .failure(error) }
        guard puzzle.contains(move.position) else {
            return .failure(ErrorBody(.invalid, "square (\(record.row), \(record.col)) is outside the \(puzzle.width)×\(puzzle.height) grid"))
        }
        guard puzzle.isLetter(move.position) else {
            return .failure(ErrorBody(.invalid, "square \(move.position) is not a letter square"))
        }
        guard record.letter.isEmpty || SquareText.normalize(record.letter) == record.letter else {
            return .failure(
                ErrorBody(
                    .invalid,
                    "\"\(TextRule.quote(record.letter))\" is not a letter a square takes (1 to \(SquareText.maximumLength) upper case letters, digits or rebus symbols, at most \(SquareText.maximumBytes) bytes)"
                ))
        }
        guard record.batchID.utf8.count <= 200, record.cellAuthorID.utf8.count <= 200 else {
            return .failure(ErrorBody(.invalid, "batchID and cellAuthorID are at most 200 bytes"))
        }
        // No move can be made before its game existed (less the skew a client's clock may have
        // before it learns the server's time): a timestamp below that is in the wrong unit or
        // from a broken clock, and stored it would lose every conflict.
        let skew = rules.maximumSkewMillis
        guard move.timestamp.isWithinGame(createdAt: game.createdAt, skewMillis: skew) else {
            return .failure(
                ErrorBody(
                    .invalid,
                    "move \(record.seq) is stamped \(move.timestamp.wallMillis), before the game was created at \(game.createdAt): timestamp.wallMillis is Unix time in milliseconds, corrected by serverTime"
                ))
        }
        guard move.timestamp.isWithinSkew(of: now, maximumAheadMillis: skew) else {
            return .failure(
                ErrorBody(
                    .clockSkew,
                    "move \(record.seq) is stamped \(move.timestamp.wallMillis - now) ms ahead of the server's clock; correct your clock by serverTime and resend",
                    serverTime: now))
        }
        do {
            try MoveTrust.check(move, puzzle: puzzle, isPlayer: isPlayer)
        } catch {
            return .failure(ErrorBody(.invalid, "move \(record.seq): \(error)"))
        }
        return .success(move)
    }

    /// Records that `device` holds every move it made in the game through `lastSeq` (a replay
    /// waits for every writer's seal). A seal is a write: a removed player's devices may not add one.
    func seal(_ gameID: String, through lastSeq: Int, by device: StoredDevice) async throws {
        _ = try await store.access(gameID, for: device, write: true)
        guard lastSeq >= 0 else { throw APIError(.invalid, "lastSeq cannot be negative") }
        try await put(.seal(Seal(gameID: gameID, replicaID: device.deviceID, lastSeq: lastSeq)), in: gameID)
    }

    /// A player paused: their share of the shared clock stops at `at` (the server's now unless
    /// a browser's command says when it was typed) until their next move (`SolvingTime`), told
    /// to every device like any record. A device that has not moved since its last pause stands
    /// paused: it is answered with that pause and nothing is stored, so a device keeps at most
    /// one pause for each of its moves (and one more).
    func pause(_ gameID: String, by device: StoredDevice, at: Int64? = nil) async throws -> Pause {
        let (game, _) = try await store.access(gameID, for: device, write: true)
        guard game.completion == nil else { throw APIError(.readOnly, "the game is finished; its clock has stopped") }
        if let standing = try await store.standingPause(gameID: gameID, replicaID: device.deviceID) { return standing }
        let pause = Pause(gameID: gameID, authorID: device.authorID, replicaID: device.deviceID, at: max(game.createdAt, at ?? clock()))
        _ = try await put(.pause(pause), in: gameID)
        return pause
    }

    /// Ends the game without a solve: the completion in force, told to every device.
    func resign(_ gameID: String, by device: StoredDevice) async throws -> CompletionRecord {
        let (game, _) = try await store.access(gameID, for: device, write: true)
        let projection = try await directory.projection(for: game)
        let alreadyComplete = APIError(.readOnly, "the game is already complete")
        if let noticed = try await projection.refresh() {
            _ = try await complete(noticed, in: projection)
            throw alreadyComplete
        }
        guard let noticed = await projection.resign(by: device.authorID, now: clock()) else { throw alreadyComplete }
        return try await complete(noticed, in: projection).completion
    }

    /// Stores a completion a projection noticed, with its final grid (the first stored wins, and
    /// the projection adopts whichever did), and tells every device: a poke through the later of
    /// `through` and the completion's sequence (not to `exceptDevice`, which hears it in its
    /// response), then the game's end (`finished`; not for `finishing: false`, a completion the
    /// instance that wrote it finishes).
    func complete(
        _ noticed: NoticedCompletion, in projection: GameProjection, through: Int64 = 0, exceptDevice: String? = nil, finishing: Bool = true
    ) async throws -> (completion: CompletionRecord, sequence: Int64) {
        let stored = try await store.complete(
            gameID: noticed.gameID, completion: CompletionRecord(noticed.completion), game: projection.game, snapshot: noticed.final)
        await projection.adopt(stored)
        logger.info("game completed", metadata: ["game": "\(noticed.gameID)", "by": "\(stored.completion.by)"])
        let sequence = max(through, stored.sequence)
        facts.publish(.zoneChanged(game: noticed.gameID, sequence: sequence, sender: exceptDevice))
        if finishing { await finished(noticed.gameID) }
        return (stored.completion, sequence)
    }

    /// Another instance wrote to `gameID` through `sequence` (its poke says so): this instance's
    /// projection, if it has one, folds the write, and a completion it notices is stored and told
    /// (the writing instance stores it too, and finishes the game). A projection that cannot catch up is dropped, to be read afresh.
    func heard(_ gameID: String, through sequence: Int64, inline: InlineChanges?) async {
        guard let projection = directory.cached(gameID) else { return }
        do {
            if let noticed = try await projection.heard(sequence: sequence, inline: inline) {
                _ = try await complete(noticed, in: projection, finishing: false)
            }
        } catch {
            directory.forget(gameID)
            logger.warning("refreshing a game from another instance's write failed", metadata: ["game": "\(gameID)", "error": "\(error)"])
        }
    }

    /// Stores a record that is not a move (a seal, a pause) under the zone's next sequence and
    /// tells the game's devices; its sequence.
    @discardableResult
    func put(_ record: ZoneChange.Record, in gameID: String) async throws -> Int64 {
        let sequence = try await store.putRecord(gameID: gameID, record)
        await stored(in: gameID, at: sequence)
        return sequence
    }

    /// A chat message from a player's device (over HTTP, or typed in a browser): checked,
    /// stamped with the author, kept once (a resend answers with the message already kept) and
    /// poked to the game's devices like any record.
    func chat(_ body: PostMessageRequest, in gameID: String, by device: StoredDevice) async throws -> PostMessageResponse {
        guard Chat.isValidID(body.messageID) else {
            throw APIError(
                .invalid, "messageID is 1 to \(Chat.maximumIDBytes) letters, digits, \"-\" or \"_\"; it was \(TextRule.quote(body.messageID))")
        }
        let text: String
        do {
            text = try Chat.text(body.text)
        } catch let violation {
            if case .tooLong = violation { throw APIError(.limitExceeded, "\(violation)") }
            throw APIError(.invalid, "\(violation)")
        }
        let (game, _) = try await store.access(gameID, for: device, write: true)
        let now = try admitSocial(body.timestamp, "message", in: game, by: device)
        let message = ChatMessage(
            gameID: gameID, authorID: device.authorID, replicaID: device.deviceID, messageID: body.messageID, text: text, timestamp: body.timestamp)
        // A resend finds the message kept the first time: it is answered with that one.
        let (sequence, kept, isNew) = try await refusedInWords { try await store.putMessage(message, by: device.deviceID) }
        if isNew {
            await stored(in: gameID, at: sequence)
            facts.publish(.mayCallBack(CallBackCandidate(event: .chat, gameID: gameID, sender: device.authorID, sequence: sequence, text: text)))
        }
        return PostMessageResponse(message: kept, sequence: sequence, serverTime: now)
    }

    /// An emoji reaction to a chat message (given or taken back): checked, stamped with the
    /// author, kept when it is the latest for its author, message and emoji, and poked.
    func react(_ body: PostReactionRequest, in gameID: String, by device: StoredDevice) async throws -> PostReactionResponse {
        guard Chat.isReaction(body.emoji) else {
            throw APIError(
                .invalid, "a reaction is one emoji, such as \(Chat.quickReactions.joined(separator: " ")); it was \(TextRule.quote(body.emoji))")
        }
        let (game, _) = try await store.access(gameID, for: device, write: true)
        guard body.messageKey.utf8.count <= 2 * ProtocolLimits.maximumIdentifierBytes + 1,
            try await store.holds(gameID: gameID, .message, key: body.messageKey)
        else {
            throw APIError(.invalid, "there is no message \(TextRule.quote(body.messageKey)) in this game")
        }
        let now = try admitSocial(body.timestamp, "reaction", in: game, by: device)
        let reaction = Reaction(
            gameID: gameID, authorID: device.authorID, messageKey: body.messageKey, emoji: body.emoji, on: body.on, timestamp: body.timestamp)
        let (sequence, kept, isNew) = try await refusedInWords { try await store.putReaction(reaction, by: device.deviceID) }
        if isNew { await stored(in: gameID, at: sequence) }
        return PostReactionResponse(reaction: kept, sequence: sequence, serverTime: now)
    }

    /// A clue flagged for the other players (or its flag taken down): the clue must be one of
    /// the puzzle's; kept when it is the latest for its author and clue, and poked.
    func flag(_ body: PostFlagRequest, in gameID: String, by device: StoredDevice) async throws -> PostFlagResponse {
        let (game, _) = try await store.access(gameID, for: device, write: true)
        guard let puzzle = try await directory.puzzle(of: gameID, store: store),
            puzzle.clues(body.direction).contains(where: { $0.number == body.number })
        else {
            throw APIError(.invalid, "there is no \(Flags.name(body.number, body.direction)) in this puzzle")
        }
        let now = try admitSocial(body.timestamp, "flag", in: game, by: device)
        let flag = ClueFlag(
            gameID: gameID, authorID: device.authorID, number: body.number, direction: body.direction, on: body.on, timestamp: body.timestamp)
        let (sequence, kept, isNew) = try await refusedInWords { try await store.putFlag(flag, by: device.deviceID) }
        if isNew { await stored(in: gameID, at: sequence) }
        return PostFlagResponse(flag: kept, sequence: sequence, serverTime: now)
    }

    /// `body`, with a refusal of the store's said as the API says it (a full chat, say).
    private func refusedInWords<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let refusal as StoreRefusal { throw refusal.apiError }
    }

    /// A message, reaction or flag (`what`) may be stored when its stamp falls within its game
    /// (`HLCTimestamp.isWithinGame`, as a move's must), is not ahead of the server's clock (the device corrects its clock by serverTime and resends) and its author
    /// has not written too many at once (`Limits.chatMessage`). The server's time.
    private func admitSocial(_ timestamp: HLCTimestamp, _ what: String, in game: StoredGame, by device: StoredDevice) throws -> Int64 {
        let now = clock()
        guard timestamp.isWithinGame(createdAt: game.createdAt, skewMillis: rules.maximumSkewMillis) else {
            throw APIError(
                .invalid,
                "the \(what) is stamped \(timestamp.wallMillis), before the game was created at \(game.createdAt): timestamp.wallMillis is Unix time in milliseconds, corrected by serverTime"
            )
        }
        guard timestamp.isWithinSkew(of: now, maximumAheadMillis: rules.maximumSkewMillis) else {
            throw APIError(
                .clockSkew,
                "the \(what) is stamped \(timestamp.wallMillis - now) ms ahead of the server's clock; correct your clock by serverTime and resend",
                serverTime: now)
        }
        try rules.chatLimiter.admit(device.authorID, now: now) { "you are writing quickly; you can send again in \($0) s" }
        return now
    }

    /// A player joins, is renamed or is removed: the zone's participant record, the player's
    /// feed (`feedState`; their devices redraw their lists when `tellFeed`), the game's devices.
    func setParticipant(_ participant: ParticipantRecord, feedState: FeedEntry.State, tellFeed: Bool = true) async throws {
        let sequence = try await store.setParticipant(participant, feedState: feedState)
        await stored(in: participant.gameID, at: sequence)
        if tellFeed { await feedChanged(of: participant.authorID) }
    }

    /// A player leaves: their record says so, their devices stop hearing of the game and drop it
    /// from their lists.
    func leave(_ participant: ParticipantRecord) async throws {
        let sequence = try await store.removeParticipant(participant)
        facts.publish(.left(game: participant.gameID, authorID: participant.authorID))
        await stored(in: participant.gameID, at: sequence)
        await feedChanged(of: participant.authorID)
    }

    /// A record that is not a move (a participant, a seal, a pause) was stored at `sequence`: the
    /// game's projection steps over it (so the next write does not wait for it) and devices are
    /// poked.
    func stored(in gameID: String, at sequence: Int64) async {
        await directory.cached(gameID)?.skip(past: sequence)
        facts.publish(.zoneChanged(game: gameID, sequence: sequence))
    }

    /// A game just completed: its browsers are sealed, and what it contributes to its players'
    /// stats is worked out now, in the background, so no stats request reads its history.
    func finished(_ gameID: String) async {
        await sealBrowsers(of: gameID)
        facts.publish(.finished(game: gameID))
    }

    /// Every browser device that wrote in a finished game is sealed at once (the server made and
    /// stored all its moves), so no replay waits for a browser that is not open.
    func sealBrowsers(of gameID: String) async {
        do {
            for (deviceID, lastSeq) in try await store.unsealedBrowsers(gameID: gameID) {
                try await put(.seal(Seal(gameID: gameID, replicaID: deviceID, lastSeq: lastSeq)), in: gameID)
            }
        } catch {
            logger.error("browsers' seals could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
        }
    }

    /// A native device enters, reads or leaves a game (a browser's hosted replica does the same
    /// for it). Reading cannot run ahead of the zone: a device only shows what exists.
    func presence(_ body: PresenceRequest, in gameID: String, by device: StoredDevice) async throws -> PresenceResponse {
        let (game, _) = try await store.access(gameID, for: device, write: false)
        let readThrough = body.readThrough ?? 0
        guard (0...game.zoneSeq).contains(readThrough) else {
            throw APIError(.invalid, "readThrough must be a sequence of this game, 0 to \(game.zoneSeq); it was \(readThrough)")
        }
        let now = clock()
        var presence =
            try await store.presence(gameID: gameID, deviceID: device.deviceID)
            ?? DevicePresence(gameID: gameID, deviceID: device.deviceID, authorID: device.authorID)
        switch body.action {
        case "enter": presence = Presence.enter(presence, now: now)
        case "leave": presence = Presence.leave(presence, now: now)
        default: throw APIError(.invalid, "action is enter or leave, not \(TextRule.quote(body.action))")
        }
        presence = Presence.showed(presence, through: readThrough)
        let previous = try await store(presence, tellFeed: false)
        // Entering after others moved: the catch-up through what this device holds.
        var catchUp: String?
        var catchUpSquares: [[Int]]?
        if body.action == "enter", previous > 0, readThrough > previous {
            let (moves, _) = try await GameProjection.sequencedMoves(store: store, gameID: gameID, after: previous)
            let name = PlayerNames.namer(try await store.participants(gameID: gameID).filter { !$0.hasLeft }.map { ($0.authorID, $0.displayName) })
            let messages = try await store.messages(gameID: gameID, after: previous, limit: 1_000).filter { $0.sequence <= readThrough }
            let blocked = messages.isEmpty ? [] : try await AccountDecisions.blocked(by: device.authorID, store: store)
            let summary = CatchUp.since(
                previous, moves: moves.filter { $0.sequence <= readThrough }, messages: messages, me: device.authorID, hiding: blocked)
            catchUp = summary.sentence(name: name)
            if catchUp != nil { catchUpSquares = summary.squares.map { [$0.row, $0.col] } }
        }
        // The account's other devices redraw their lists (badges).
        await feedChanged(of: device.authorID)
        return PresenceResponse(
            leaseUntil: presence.leaseUntil, previousHorizon: previous, horizon: max(previous, presence.readThrough), catchUp: catchUp,
            catchUpSquares: catchUpSquares, serverTime: now)
    }

    /// Tells every socket of a game who shows it now, with their last cursors (a device
    /// arrived or left). Devices on this instance: as the browsers' `here` counts are.
    func announceHere(_ gameID: String) async {
        let cursors = Dictionary(
            ((try? await store.cursors(gameID: gameID)) ?? []).map { ($0.deviceID, $0.cursor) }, uniquingKeysWith: { first, _ in first })
        facts.publish(.presenceChanged(game: gameID, cursors: cursors))
    }

    /// A device's cursor: told to the game's other devices at once; stored at most every
    /// `CursorThrottle.millis`, the last one included (it is a hint for who arrives later, not a
    /// record).
    func cursor(_ cursor: CursorPosition, in gameID: String, by device: StoredDevice) async {
        facts.publish(.cursorMoved(game: gameID, deviceID: device.deviceID, authorID: device.authorID, cursor: cursor))
        switch rules.cursors.offer(cursor, deviceID: device.deviceID, gameID: gameID, now: clock()) {
        case .now:
            await storeCursor(cursor, in: gameID, by: device)
        case let .later(millis):
            Task { [self] in
                try? await Task.sleep(for: .milliseconds(millis))
                if let last = rules.cursors.takePending(deviceID: device.deviceID, gameID: gameID, now: clock()) {
                    await storeCursor(last, in: gameID, by: device)
                }
            }
        case .held:
            break
        }
    }

    private func storeCursor(_ cursor: CursorPosition, in gameID: String, by device: StoredDevice) async {
        do {
            try await store.putCursor(gameID: gameID, deviceID: device.deviceID, authorID: device.authorID, cursor: cursor)
        } catch {
            logger.error("a cursor could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
        }
    }

    /// The account's feed changed (a game added, left or read): its devices redraw their lists.
    func feedChanged(of authorID: String) async {
        do {
            let sequence = try await store.feedSequence(authorID: authorID)
            facts.publish(.feedChanged(authorID: authorID, sequence: sequence))
        } catch {
            logger.error("an account's feed could not be read", metadata: ["account": "\(authorID)", "error": "\(error)"])
        }
    }
}
