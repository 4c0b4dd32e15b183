import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Hummingbird

/// Games as zones: create, list, push moves, read changes and the joining snapshot, resign, seal.
struct GameController {
    let state: ServerState

    func addRoutes(to router: Router<CrossmateRequestContext>) {
        router.post("v1/games", use: create)
        router.get("v1/games", use: list)
        router.post("v1/games/:game/moves", use: pushMoves)
        router.get("v1/games/:game/changes", use: changes)
        router.get("v1/games/:game/snapshot", use: snapshot)
        router.post("v1/games/:game/resign", use: resign)
        router.post("v1/games/:game/seals", use: seal)
        router.post("v1/games/:game/presence", use: presence)
    }

    @Sendable func create(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        // Base64 makes a file a third larger; the file itself is capped by PuzzleFile.maximumSize.
        let body = try await state.decode(CreateGameRequest.self, from: request, limit: PuzzleFile.maximumSize * 4 / 3 + 64 * 1024)
        var puzzle: Puzzle
        do {
            if let bundled = body.bundled {
                puzzle = try BundledPuzzles.puzzle(bundled)
            } else if let encoded = body.fileBase64 {
                guard let data = Data(base64Encoded: encoded) else { throw APIError(.invalid, "fileBase64 is not base64") }
                puzzle = try await state.uploads.parse(Array(data), fileName: body.fileName ?? "upload", for: device.authorID)
            } else {
                throw APIError(
                    .invalid,
                    "say which puzzle: \"bundled\" (\(BundledPuzzles.identifiers.joined(separator: ", "))) or \"fileBase64\" with \"fileName\"")
            }
            // A locked .puz with its key becomes an unlocked game (its rebus answers included).
            if let key = body.unlockKey { puzzle = try puzzle.unlocked(withKey: key) }
            try BrowserFrameBudget.check(puzzle, socketBufferBytes: state.configuration.socketBufferBytes)
        } catch let error as PuzzleFileError {
            throw APIError(.invalid, "\(TextRule.quote(body.fileName ?? body.bundled ?? "the file")): \(error)")
        }
        let gameID = Secrets.identifier(prefix: "game")
        let game = GameRecord(gameID: gameID, ownerID: device.authorID, createdAt: state.now(), puzzle: puzzle)
        let owner = ParticipantRecord(gameID: gameID, authorID: device.authorID, displayName: device.displayName, role: .owner)
        let sequence = try await state.store.createGame(
            game, title: Self.listTitle(puzzle.title), owner: owner,
            summary: GameProjection.listSummary(puzzle, grid: GameGrid(puzzle: puzzle), through: 2))
        await state.fanout.publish(.feed(authorID: device.authorID, sequence: try await state.store.feedSequence(authorID: device.authorID)))
        state.logger.info("game created", metadata: ["game": "\(gameID)", "owner": "\(device.authorID)"])
        let total = puzzle.letterPositions.count
        return try ServerState.json(
            GameSummary(
                gameID: gameID, title: Self.listTitle(puzzle.title), width: puzzle.width, height: puzzle.height, ownerID: device.authorID,
                role: .owner, readOnly: false, filled: 0, total: total, completion: nil,
                token: ChangeToken(zone: gameID, sequence: sequence), serverTime: state.now()), status: .created)
    }

    /// The title the games list shows: at most 200 bytes of UTF-8, cut between characters (the
    /// full title stays in the puzzle).
    static func listTitle(_ title: String) -> String {
        title.prefix(bytes: 200)
    }

    /// One page of the account's games, newest first (`?limit=`, at most 100; `?after=` the
    /// previous page's `next`). A game's size, progress and picture come from the projection
    /// this instance holds, else from its stored summary (no grid is built for a list); only a
    /// game made before summaries were stored is loaded, once, to store its summary.
    @Sendable func list(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let query = request.uri.queryParameters
        let limit = min(ProtocolLimits.maximumGamesPerPage, max(1, query["limit"].flatMap { Int(String($0)) } ?? ProtocolLimits.maximumGamesPerPage))
        var after: GameListCursor?
        if let raw = query["after"] {
            guard let cursor = GameListCursor(encoded: String(raw)) else {
                throw APIError(.invalid, "after is not a cursor from a game list's next")
            }
            after = cursor
        }
        let page = try await state.store.games(of: device.authorID, after: after.map { ($0.createdAt, $0.gameID) }, limit: limit + 1)
        var summaries: [GameSummary] = []
        for (game, participant, stored) in page.prefix(limit) {
            let shown: StoredGameSummary
            if let held = state.directory.held(game.gameID) {
                shown = await held.listSummary
            } else if let stored {
                shown = stored
            } else {
                let projection = try await state.directory.projection(for: game)
                shown = await projection.listSummary
                try await state.store.putSummary(gameID: game.gameID, shown)
            }
            summaries.append(try await summary(game, participant, shown))
        }
        let next = page.count > limit ? page.prefix(limit).last.map { GameListCursor(createdAt: $0.0.createdAt, gameID: $0.0.gameID) } : nil
        let unread = summaries.count { $0.unread == true }
        return try ServerState.json(GameListResponse(games: summaries, next: next, serverTime: state.now(), unreadCount: unread))
    }

    /// A game as one player's list shows it, from the game's projection.
    func summary(_ game: StoredGame, _ participant: StoredParticipant) async throws -> GameSummary {
        let projection = try await state.directory.projection(for: game)
        return try await summary(game, participant, await projection.listSummary)
    }

    /// A game as one player's list shows it, from its list summary (the completion comes from
    /// the game's row, the authority).
    func summary(_ game: StoredGame, _ participant: StoredParticipant, _ shown: StoredGameSummary) async throws -> GameSummary {
        GameSummary(
            gameID: game.gameID, title: game.title, width: shown.width, height: shown.height, ownerID: game.ownerID,
            role: participant.role, readOnly: participant.revoked, filled: shown.filled, total: shown.total,
            completion: game.completion, token: ChangeToken(zone: game.gameID, sequence: game.zoneSeq),
            serverTime: state.now(), picture: shown.picture, players: try await players(of: game.gameID),
            unread: try await isUnread(game.gameID, for: participant.authorID),
            // A finished game needs no help: its nudges are not listed.
            nudges: game.completion == nil ? try await nudges(game.gameID, for: participant.authorID) : [],
            lastActivity: max(game.createdAt, shown.activeAt))
    }

    /// Whether another player moved after the account's horizon while none of its devices is
    /// in the game (`Presence`).
    func isUnread(_ gameID: String, for authorID: String) async throws -> Bool {
        let devices = try await state.store.presence(gameID: gameID, authorID: authorID)
        let now = state.now()
        if Presence.isHere(devices, now: now) { return false }
        let horizon = Presence.horizon(of: devices, previous: try await state.store.horizon(gameID: gameID, authorID: authorID))
        let latest = try await state.store.latestMove(gameID: gameID, after: horizon, notBy: authorID)
        return Presence.isUnread(latestOtherMove: latest, horizon: horizon, devices: devices, now: now)
    }

    /// Nudges to `authorID` in the last day, never from an account it blocked.
    func nudges(_ gameID: String, for authorID: String) async throws -> [NudgeView] {
        let recent = try await state.store.nudges(gameID: gameID, since: state.now() - SocialController.nudgeShownMillis)
            .filter { $0.fromAuthor != authorID }
        guard !recent.isEmpty else { return [] }
        let blocked = try await SocialController.blocked(by: authorID, store: state.store)
        let names = Dictionary(
            try await state.store.participants(gameID: gameID).map { ($0.authorID, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        return recent.filter { !blocked.contains($0.fromAuthor) }.map {
            NudgeView(
                gameID: gameID, nudgeID: $0.nudgeID, fromAuthor: $0.fromAuthor,
                fromName: names[$0.fromAuthor] ?? PlayerColors.placeholderName($0.fromAuthor),
                message: $0.message, createdAt: $0.createdAt)
        }
    }

    /// A game's players for the list: names of those not removed, the owner first.
    func players(of gameID: String) async throws -> [String] {
        try await state.store.participants(gameID: gameID).filter { !$0.revoked && !$0.hasLeft }
            .sorted { ($0.role == .owner ? 0 : 1, $0.displayName) < ($1.role == .owner ? 0 : 1, $1.displayName) }.map(\.displayName)
    }

    @Sendable func pushMoves(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let gameID = try context.parameters.require("game")
        let body = try await state.decode(PushMovesRequest.self, from: request, limit: ProtocolLimits.maximumBatchBytes)
        return try ServerState.json(try await ingest(body.moves, into: gameID, from: device))
    }

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
        if let cached = state.directory.cached(gameID) {
            projection = cached
        } else {
            let (game, _) = try await state.access(gameID, for: device, write: true)
            projection = try await state.directory.projection(for: game)
        }
        let now = state.now()
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
                _ = try await state.access(gameID, for: device, write: true)
                throw APIError(error)
            case let .failure(error):
                results[index] = RecordResult(replicaID: record.replicaID, seq: record.seq, status: .rejected, error: error)
            case .success:
                candidates.append((index, record))
            }
        }

        let outcome: AppendOutcome
        do {
            outcome = try await state.store.appendMoves(gameID: gameID, authorID: device.authorID, moves: candidates.map(\.record))
        } catch let refusal as StoreRefusal {
            throw refusal.apiError
        }
        for (candidate, result) in zip(candidates, outcome.results) { results[candidate.index] = result }
        state.metrics.movesIngested.increment(by: outcome.saved.count)

        var sequence = outcome.zoneSeq
        if let first = outcome.saved.first, let last = outcome.saved.last {
            // The saved moves are the zone's changes from first to last (one transaction numbers
            // them consecutively), so the poke can carry them and up-to-date peers need not fetch.
            var inline: InlineChanges?
            if outcome.saved.count <= InlineChanges.maximumCount, last.sequence == sequence {
                inline = InlineChanges(
                    after: first.sequence - 1,
                    changes: outcome.saved.map(\.change))
            }
            let poke = FanoutEvent.poke(game: gameID, sequence: sequence, exceptDevice: device.deviceID, inline: inline)
            // This instance's sockets hear of the moves from inside the fold, so in zone order.
            let hub = state.hub
            let (announced, completed) = try await projection.fold(saved: outcome.saved) { hub.deliver(poke) }
            state.directory.changed(gameID)
            if let completed {
                sequence = max(sequence, completed.sequence)
                state.logger.info("game completed", metadata: ["game": "\(gameID)", "by": "\(completed.completion.by)"])
                await state.fanout.publish(.poke(game: gameID, sequence: sequence, exceptDevice: device.deviceID))
                await state.sealBrowsers(of: gameID)
            } else if announced {
                await state.fanout.forward(poke)
            } else {
                await state.fanout.publish(poke)
            }
        }
        let completion = await projection.completion
        return PushMovesResponse(
            results: results.map { $0! }, token: ChangeToken(zone: gameID, sequence: sequence),
            completion: completion.map(CompletionRecord.init), serverTime: state.now())
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
        guard record.letter.isEmpty || LetterRule.normalize(record.letter) == record.letter else {
            return .failure(
                ErrorBody(
                    .invalid,
                    "\"\(TextRule.quote(record.letter))\" is not a letter a square takes (1 to \(LetterRule.maximumLength) upper case letters, digits or rebus symbols, at most \(LetterRule.maximumBytes) bytes)"
                ))
        }
        guard record.batchID.utf8.count <= 200, record.cellAuthorID.utf8.count <= 200 else {
            return .failure(ErrorBody(.invalid, "batchID and cellAuthorID are at most 200 bytes"))
        }
        // No move can be made before its game existed (less the skew a client's clock may have
        // before it learns the server's time): a timestamp below that is in the wrong unit or
        // from a broken clock, and stored it would lose every conflict.
        let skew = state.configuration.maximumSkewMillis
        guard move.timestamp.wallMillis >= game.createdAt - skew else {
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

    @Sendable func changes(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let gameID = try context.parameters.require("game")
        _ = try await state.access(gameID, for: device, write: false)
        var after: Int64 = 0
        if let since = request.uri.queryParameters["since"] {
            guard let token = ChangeToken(encoded: String(since)), token.zone == gameID else {
                throw APIError(.invalid, "since is not a change token of game \(TextRule.quote(gameID))")
            }
            after = token.sequence
        }
        let limit = min(ProtocolLimits.maximumChangesPerPage, max(1, request.uri.queryParameters["limit"].flatMap { Int(String($0)) } ?? 500))
        let stored = try await state.store.changes(gameID: gameID, after: after, limit: limit + 1)
        // At most `limit` records and about a megabyte: a page ends before the record that would
        // take it past the byte cap (but always holds one record, however large).
        var bytes = 0
        let page = stored.prefix(limit).enumerated().prefix { index, change in
            bytes += change.json.utf8.count
            return index == 0 || bytes <= ProtocolLimits.maximumChangesPageBytes
        }.map(\.element)
        let token = ChangeToken(zone: gameID, sequence: page.last?.sequence ?? after)
        // The stored bodies are already the records' JSON, so the page is assembled around them
        // instead of decoding and re-encoding every record. The shape is exactly
        // ChangesResponse's; the route and golden tests decode it as one.
        let json = ChangesResponse.json(changes: page, token: token, moreComing: stored.count > page.count, serverTime: state.now())
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: json)))
    }

    @Sendable func snapshot(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let gameID = try context.parameters.require("game")
        let (game, _) = try await state.access(gameID, for: device, write: false)
        let projection = try await state.directory.projection(for: game)
        var record = projection.game
        record.completion = game.completion
        let stored = try await state.store.latestSnapshot(gameID: gameID)
        let through = stored?.zoneSeq ?? 0
        let keyed = try await state.store.keyedRecords(gameID: gameID, through: through)
        let records = try keyed.map { try $0.decoded(gameID: gameID) }
        return try ServerState.json(
            SnapshotResponse(
                game: record, snapshot: stored?.snapshot, records: records, token: ChangeToken(zone: gameID, sequence: through),
                serverTime: state.now()))
    }

    @Sendable func resign(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let gameID = try context.parameters.require("game")
        let (game, _) = try await state.access(gameID, for: device, write: true)
        let projection = try await state.directory.projection(for: game)
        guard let (completion, sequence) = try await projection.resign(by: device.authorID, now: state.now()) else {
            throw APIError(.readOnly, "the game is already complete")
        }
        await state.fanout.publish(.poke(game: gameID, sequence: sequence))
        await state.sealBrowsers(of: gameID)
        return try ServerState.json(CompletionResponse(completion: completion, serverTime: state.now()))
    }

    @Sendable func seal(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let gameID = try context.parameters.require("game")
        let body = try await state.decode(SealRequest.self, from: request, limit: 16 * 1024)
        // A seal is a write: a removed player's devices may not add one.
        _ = try await state.access(gameID, for: device, write: true)
        guard body.lastSeq >= 0 else { throw APIError(.invalid, "lastSeq cannot be negative") }
        let seal = Seal(gameID: gameID, replicaID: device.deviceID, lastSeq: body.lastSeq)
        let sequence = try await state.store.putRecord(gameID: gameID, .seal(seal))
        await state.recordStored(game: gameID, sequence: sequence)
        return try ServerState.json(OKResponse(serverTime: state.now()))
    }

    /// A native device enters, reads or leaves a game (a browser's hosted replica does the same
    /// for it). Reading cannot run ahead of the zone: a device only shows what exists.
    @Sendable func presence(_ request: Request, context: CrossmateRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let gameID = try context.parameters.require("game")
        let body = try await state.decode(PresenceRequest.self, from: request, limit: 4 * 1024)
        let (game, _) = try await state.access(gameID, for: device, write: false)
        let readThrough = body.readThrough ?? 0
        guard (0...game.zoneSeq).contains(readThrough) else {
            throw APIError(.invalid, "readThrough must be a sequence of this game, 0 to \(game.zoneSeq); it was \(readThrough)")
        }
        let now = state.now()
        var presence =
            try await state.store.presence(gameID: gameID, deviceID: device.deviceID)
            ?? DevicePresence(gameID: gameID, deviceID: device.deviceID, authorID: device.authorID)
        switch body.action {
        case "enter": presence = Presence.enter(presence, now: now)
        case "leave": presence = Presence.leave(presence, now: now)
        default: throw APIError(.invalid, "action is enter or leave, not \(TextRule.quote(body.action))")
        }
        presence = Presence.showed(presence, through: readThrough)
        let previous = try await state.store.putPresence(presence)
        // Entering after others moved: the catch-up through what this device holds.
        var catchUp: String?
        var catchUpSquares: [[Int]]?
        if body.action == "enter", previous > 0, readThrough > previous {
            let (moves, _) = try await GameProjection.sequencedMoves(store: state.store, gameID: gameID, after: previous)
            let names = Dictionary(
                try await state.store.participants(gameID: gameID).map { ($0.authorID, $0.displayName) }, uniquingKeysWith: { first, _ in first })
            let summary = CatchUp.since(previous, moves: moves.filter { $0.sequence <= readThrough }, me: device.authorID)
            catchUp = summary.sentence { names[$0] ?? PlayerColors.placeholderName($0) }
            if catchUp != nil { catchUpSquares = summary.squares.map { [$0.row, $0.col] } }
        }
        // The account's other devices redraw their lists (badges).
        await state.fanout.publish(.feed(authorID: device.authorID, sequence: try await state.store.feedSequence(authorID: device.authorID)))
        return try ServerState.json(
            PresenceResponse(
                leaseUntil: presence.leaseUntil, previousHorizon: previous, horizon: max(previous, presence.readThrough), catchUp: catchUp,
                catchUpSquares: catchUpSquares, serverTime: now))
    }
}
