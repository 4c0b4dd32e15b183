import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync

/// A hosted browser's commands: each performed once (`CommandLedger`), through the same write
/// path as every device's pushes and chat (`GameWrites`), and answered with the game as it now
/// is.
extension BrowserGame {
    /// A command's answer: the squares it changed and the game as it now is (`made`: the
    /// command's moves, not yet read back into `moves`). Every applied command answers so.
    private func applied(_ request: CommandRequest, squares: [SquareView] = [], made: [Move] = [], now: Int64) -> ServerSocketMessage {
        .applied(CommandApplied(id: request.id, state(squares: squares, made: made, now: now)))
    }

    /// How far in the past a command's `typedAt` may be: a browser offline for longer sends its
    /// queue stamped no earlier than this.
    static let oldestTypedAt: Int64 = 7 * 24 * 3_600_000

    /// Performs a browser's command from the page on `connection` and stores its moves as this
    /// device's; the answer. The device's other pages with the game open (another tab) are told
    /// what the answer shows: the squares the command changed and the news it carries, which the
    /// answer alone would have taken to the one page.
    func perform(_ request: CommandRequest, host: BrowserHost, from connection: Int) async -> ServerSocketMessage {
        await exclusively {
            let answer = await performAlone(request, host: host)
            let others = host.viewers(of: self).subtracting([connection])
            if case let .applied(applied) = answer, !others.isEmpty, applied.state.showsSomething {
                let update = ServerSocketMessage.update(GameUpdate(applied.state, players: roster.views, readOnly: readOnly))
                for page in others { host.services.hub.tell(.socket(page), update) }
            }
            return answer
        }
    }

    private func performAlone(_ request: CommandRequest, host: BrowserHost) async -> ServerSocketMessage {
        let services = host.services
        if let earlier = ledger.earlier(request, device: device.deviceID) {
            // Already answered: the grid the browser was sent on reopening holds its effect.
            if let refusal = earlier { return .refused(refusal) }
            return applied(request, now: services.now())
        }
        let answer = await performOnce(request, host: host)
        ledger.remember(request, answer)
        return answer
    }

    /// The player paused: their share of the shared clock stops at the moment they did (as
    /// typed, within the bounds a command's time has) until their next move.
    private func pause(_ request: CommandRequest, services: BrowserServices) async -> ServerSocketMessage {
        guard !readOnly else { return refusal(request, .removed, "you were removed from this game; it is read-only for you") }
        guard replica.completion == nil else { return refusal(request, .finished, "the game is finished; its clock has stopped") }
        let now = services.now()
        do {
            let pause = try await services.writes.pause(gameID, by: device, at: typedAt(request, now: now))
            if pauseKeys.insert(pause.key).inserted { pauses.append(pause.stamp) }
        } catch {
            services.logger.error("a browser's pause could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
            return refusal(request, .serverError, "the server could not save that; it has been logged")
        }
        return applied(request, now: now)
    }

    /// When a command was typed, within the bounds a command's time has: never before the game
    /// existed (a browser whose clock offset is stale may say so) nor after now, nor more than a
    /// week back.
    private func typedAt(_ request: CommandRequest, now: Int64) -> Int64 {
        max(createdAt, min(now, max(now - Self.oldestTypedAt, request.typedAt ?? now)))
    }

    private func refusal(_ request: CommandRequest, _ code: RefusalCode, _ reason: String) -> ServerSocketMessage {
        .refused(CommandRefusal(id: request.id, gameID: gameID, CommandRefusal.Reason(code: code, reason: reason)))
    }

    /// A message, reaction or flag through the write path, `write` given its time as typed:
    /// applied, or refused in the write path's words (or as the server's fault, logged).
    private func performSocial(
        _ request: CommandRequest, services: BrowserServices, _ write: (HLCTimestamp) async throws -> Void
    ) async -> ServerSocketMessage {
        let now = services.now()
        do {
            try await write(HLCTimestamp(wallMillis: typedAt(request, now: now)))
        } catch let error as APIError {
            if error.body.error == .readOnly || error.body.error == .forbidden {
                roster.players = (try? await services.store.participants(gameID: gameID)) ?? roster.players
            }
            return refusal(request, RefusalCode(error.body.error), error.body.message)
        } catch {
            services.logger.error(
                "a browser's command could not be stored",
                metadata: ["game": "\(gameID)", "kind": "\(request.command.kind.name)", "error": "\(error)"])
            return refusal(request, .serverError, "the server could not save that; it has been logged")
        }
        return applied(request, now: now)
    }

    /// The player wrote a chat message: kept once by its id (a command sent again is harmless)
    /// and shown at once in this browser's conversation.
    private func chat(_ request: CommandRequest, text: String, messageID: String, services: BrowserServices) async -> ServerSocketMessage {
        await performSocial(request, services: services) { at in
            let answer = try await services.writes.chat(PostMessageRequest(messageID: messageID, text: text, timestamp: at), in: gameID, by: device)
            social.hear([answer.message])
        }
    }

    /// The player flagged the word at a square for the others (or took the flag down).
    private func flag(
        _ request: CommandRequest, at square: GridPosition, _ direction: Direction, on: Bool, services: BrowserServices
    ) async -> ServerSocketMessage {
        guard let clue = puzzle.clue(containing: square, direction) else {
            return refusal(request, .invalid, "no \(direction.rawValue) word goes through that square")
        }
        let key = ClueFlag(gameID: gameID, authorID: device.authorID, number: clue.number, direction: direction, on: on, timestamp: .zero).key
        return await performSocial(request, services: services) { at in
            let answer = try await services.writes.flag(
                PostFlagRequest(
                    number: clue.number, direction: direction, on: on, timestamp: .after(social.flags[key]?.timestamp, now: at.wallMillis)),
                in: gameID, by: device)
            social.keep([answer.flag])
        }
    }

    /// The player gave or took back a reaction (the latest decides), shown at once.
    private func react(
        _ request: CommandRequest, messageKey: String, emoji: String, on: Bool, services: BrowserServices
    ) async -> ServerSocketMessage {
        let key = Reaction(gameID: gameID, authorID: device.authorID, messageKey: messageKey, emoji: emoji, on: on, timestamp: .zero).key
        return await performSocial(request, services: services) { at in
            let answer = try await services.writes.react(
                PostReactionRequest(
                    messageKey: messageKey, emoji: emoji, on: on, timestamp: .after(social.reactions[key]?.timestamp, now: at.wallMillis)),
                in: gameID, by: device)
            social.hear([answer.reaction])
        }
    }

    private func performOnce(_ request: CommandRequest, host: BrowserHost) async -> ServerSocketMessage {
        let services = host.services
        let command: Command
        switch request.command.action() {
        case let .failure(reason): return .refused(CommandRefusal(id: request.id, gameID: gameID, reason))
        case .success(.pause): return await pause(request, services: services)
        case let .success(.chat(text, messageID)): return await chat(request, text: text, messageID: messageID, services: services)
        case let .success(.react(messageKey, emoji, on)):
            return await react(request, messageKey: messageKey, emoji: emoji, on: on, services: services)
        case let .success(.flag(square, direction, on)): return await flag(request, at: square, direction, on: on, services: services)
        case let .success(.perform(made)): command = made
        }
        do {
            // Changes stored before this command that no relay or poke has brought yet (another
            // instance's, or a poke still on its way) are folded here: the viewers are told of
            // them now, as the pass that folds them (the poke's, when it comes, finds nothing new).
            let before = shown
            tell(host.viewers(of: self), squares: try await catchUp(services: services), since: before, services: services)
        } catch {
            services.logger.error("a browser's replica could not catch up", metadata: ["game": "\(gameID)", "error": "\(error)"])
            return refusal(request, .serverError, "the server could not load this game; it has been logged")
        }
        guard !readOnly else { return refusal(request, .removed, "you were removed from this game; it is read-only for you") }
        let now = services.now()
        var next = replica
        let made: [Move]
        // Moves made and not yet read back into `moves` (the answer's clock and finish count them).
        var unread: [Move] = []
        do {
            made = try next.perform(
                command, wallMillis: typedAt(request, now: now), batchID: CommandLedger.batchID(for: request, device: device.deviceID))
        } catch {
            return .refused(CommandRefusal(id: request.id, gameID: gameID, error.browserReason))
        }
        if !made.isEmpty {
            let response: PushMovesResponse
            do {
                // One gesture is one batch however many squares it touches (a whole 25×25 grid
                // checked is 625 moves): the grid bounds it, not the batch limit pushes have.
                response = try await services.writes.ingest(
                    made.map(MoveRecord.init), into: gameID, from: device, maximumRecords: puzzle.width * puzzle.height)
            } catch let error as APIError {
                if error.body.error == .readOnly { roster.players = (try? await services.store.participants(gameID: gameID)) ?? roster.players }
                let code = RefusalCode(error.body.error)
                return refusal(request, code, error.body.message)
            } catch {
                services.logger.error("a browser's command could not be stored", metadata: ["game": "\(gameID)", "error": "\(error)"])
                return refusal(request, .serverError, "the server could not save that; it has been logged")
            }
            if let refused = response.results.first(where: { $0.status == .rejected }) {
                // The mutator's moves pass the server's rules; one that does not is kept out, and
                // the browser is told why (a command that cannot be stored is not the server's
                // fault to retry for ever).
                services.logger.warning("a browser's move was refused", metadata: ["game": "\(gameID)", "error": "\(refused.error?.message ?? "")"])
                return refusal(request, .invalid, refused.error?.message ?? "the server refused that move")
            }
            ledger.performed(made[0].batchID)
            if !response.results.allSatisfy({ $0.status == .saved }) || !stored(made, through: response.token.sequence) { unread = made }
            if let stored = response.completion?.completion, next.completion != stored,
                let projection = services.directory.cached(gameID)
            {
                next.adopt(stored, finalGrid: await projection.replica.grid)
            }
        }
        let squares = SquareView.changed(from: replica.grid, to: next.grid, of: puzzle)
        replica = next
        await sealIfComplete(services: services)
        return applied(request, squares: squares, made: unread, now: now)
    }
}

extension GameStateView {
    /// Whether a page that did not ask for this has anything to draw from it: squares, or
    /// messages, reactions or flags that are news.
    fileprivate var showsSomething: Bool { !squares.isEmpty || messages != nil || reactions != nil || flags != nil }
}
