import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import Logging
import Synchronization

/// Pushing this device's moves: one push in flight, over the socket or HTTP, with backoff, clock-skew correction and settling the answer.
extension SyncEngine {
    /// Starts the push loop if the engine is live and the loop is not running.
    func kickPush() {
        guard socket != nil else { return }
        guard pushTask == nil else {
            wake()
            return
        }
        pushTask = Task { [weak self] in await self?.pushLoop() }
    }

    /// Waits until everything pushable is pushed (what `sync` does), or the server refuses.
    func drainPushes() async throws(ServerFailure) {
        while let work = nextPushWork() {
            let outcome = await pushOnce(work)
            switch outcome {
            case .done: continue
            case let .wait(_, failure): throw failure
            }
        }
    }

    enum PushWork {
        case moves(String, [Move])
        case seal(String, lastSeq: Int)
        case message(ChatMessage)
        case reaction(Reaction)
        case flag(ClueFlag)
    }

    enum PushOutcome {
        case done
        case wait(Duration, ServerFailure)
    }

    func nextPushWork() -> PushWork? {
        let readOnly = Set(((try? store.games()) ?? []).filter(\.readOnly).map(\.game.gameID))
        if let message = ((try? store.unsentMessages()) ?? []).first(where: { !readOnly.contains($0.gameID) }) {
            return .message(message)
        }
        if let reaction = ((try? store.unsentReactions()) ?? []).first(where: { !readOnly.contains($0.gameID) }) {
            return .reaction(reaction)
        }
        if let flag = ((try? store.unsentFlags()) ?? []).first(where: { !readOnly.contains($0.gameID) }) {
            return .flag(flag)
        }
        for local in (try? store.games()) ?? [] where !local.readOnly {
            let gameID = local.game.gameID
            if let unsent = try? store.unsent(gameID: gameID, limit: ProtocolLimits.maximumRecordsPerBatch), !unsent.isEmpty {
                // At most 2 MB: a batch ends before the move that would take it past.
                var bytes = 64
                let batch = unsent.enumerated().prefix { index, move in
                    bytes += MoveRecord(move).sortedJSON.utf8.count + 1
                    return index == 0 || bytes <= ProtocolLimits.maximumBatchBytes
                }.map(\.element)
                return .moves(gameID, batch)
            }
            if local.game.completion != nil, !local.sealed, adoptedFinal.contains(gameID) {
                let last = (try? store.acknowledgedThrough(gameID: gameID, replicaID: identity.deviceID)) ?? 0
                return .seal(gameID, lastSeq: last)
            }
        }
        return nil
    }

    func pushLoop() async {
        defer { pushTask = nil }
        while !Task.isCancelled, let work = nextPushWork() {
            switch await pushOnce(work) {
            case .done:
                pushBackoff.reset()
                if case .throttled = connection { setConnection(socket?.isOpen == true ? .online : .offline(since: clock.local)) }
            case let .wait(delay, failure):
                if case let .refused(body, _, _) = failure, body.error == .rateLimited {
                    setConnection(.throttled(until: clock.local + Int64(delay.components.seconds * 1000)))
                } else if socket?.isOpen != true {
                    setConnection(.offline(since: clock.local))
                }
                await sleep(for: delay)
            }
        }
    }

    /// Sleeps, unless woken by a reconnect or new work.
    func sleep(for delay: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            wakeUp.sleep(on: continuation)
            Task { [weak self] in
                try? await Task.sleep(for: delay)
                await self?.wake()
            }
        }
    }

    func wake() {
        wakeUp.wake()
    }

    func pushOnce(_ work: PushWork) async -> PushOutcome {
        switch work {
        case let .flag(flag):
            do {
                let answer = try await api.postFlag(
                    gameID: flag.gameID, PostFlagRequest(number: flag.number, direction: flag.direction, on: flag.on, timestamp: flag.timestamp))
                _ = try? store.saveFlag(flag, sent: true)
                _ = try? store.saveFlag(answer.flag, sent: true)
                emit(.gridChanged(gameID: flag.gameID, squares: []))
                return .done
            } catch {
                switch Self.socialRefusal(error) {
                case .restamp:
                    var restamped = flag
                    restamped.timestamp = HLCTimestamp(wallMillis: clock.now)
                    _ = try? store.saveFlag(restamped, sent: false)
                case let .forGood(reason):
                    logger.error("the server refused a flag", metadata: ["game": "\(flag.gameID)", "error": "\(reason)"])
                    _ = try? store.saveFlag(flag, sent: true)
                case nil: return failed(error, gameID: flag.gameID)
                }
                return .done
            }
        case let .reaction(reaction):
            do {
                let answer = try await api.postReaction(
                    gameID: reaction.gameID,
                    PostReactionRequest(messageKey: reaction.messageKey, emoji: reaction.emoji, on: reaction.on, timestamp: reaction.timestamp))
                // The server's answer is the one that decides (maybe another device's, later).
                _ = try? store.saveReaction(reaction, sent: true)
                _ = try? store.saveReaction(answer.reaction, sent: true)
                emit(.chatChanged(gameID: reaction.gameID))
                return .done
            } catch {
                switch Self.socialRefusal(error) {
                case .restamp:
                    var restamped = reaction
                    restamped.timestamp = HLCTimestamp(wallMillis: clock.now)
                    _ = try? store.saveReaction(restamped, sent: false)
                case let .forGood(reason):
                    logger.error("the server refused a reaction", metadata: ["game": "\(reaction.gameID)", "error": "\(reason)"])
                    _ = try? store.saveReaction(reaction, sent: true)
                    emit(.chatChanged(gameID: reaction.gameID))
                case nil: return failed(error, gameID: reaction.gameID)
                }
                return .done
            }
        case let .message(message):
            do {
                let answer = try await api.postMessage(
                    gameID: message.gameID, PostMessageRequest(messageID: message.messageID, text: message.text, timestamp: message.timestamp))
                try? store.markMessageSent(answer.message, sequence: answer.sequence)
                emit(.chatChanged(gameID: message.gameID))
                return .done
            } catch {
                switch Self.socialRefusal(error) {
                case .restamp:
                    var restamped = message
                    restamped.timestamp = HLCTimestamp(wallMillis: clock.now)
                    try? store.restampMessage(restamped)
                case let .forGood(reason):
                    // Kept, marked with the reason: nothing typed disappears without a word.
                    try? store.markMessageRefused(message, reason: reason)
                    emit(.chatChanged(gameID: message.gameID))
                case nil: return failed(error, gameID: message.gameID)
                }
                return .done
            }
        case let .seal(gameID, lastSeq):
            do {
                _ = try await api.seal(gameID: gameID, lastSeq: lastSeq)
                try? store.markSealed(gameID)
                try? store.saveSeal(Seal(gameID: gameID, replicaID: identity.deviceID, lastSeq: lastSeq))
                emit(.gamesChanged)
                return .done
            } catch {
                return failed(error, gameID: gameID)
            }
        case let .moves(gameID, batch):
            let result = await send(batch, to: gameID)
            switch result {
            case let .success(response):
                settle(response, batch: batch, gameID: gameID)
                // The answer comes after the commit: what was relayed up to it is stored now
                // (the server sends no separate notice to a socket it answered).
                await commit(gameID, through: response.token.sequence, fetchingOnGap: false)
                await settleCompletion(gameID)
                return .done
            case let .failure(error):
                return failed(error, gameID: gameID)
            }
        }
    }

    /// What a refusal of a message, reaction or flag means: send it again with a new stamp (the
    /// clock is already corrected by the answer's serverTime), or it is refused for good (too
    /// long, not an emoji, the chat full: sending it again cannot mend it), or nil: as any push,
    /// wait (the server busy or away) or stop writing the game (removed, gone).
    enum SocialRefusal: Equatable {
        case restamp
        case forGood(String)
    }

    static func socialRefusal(_ error: ServerFailure) -> SocialRefusal? {
        guard case let .refused(body, status, _) = error else { return nil }
        if body.error == .clockSkew { return .restamp }
        guard status < 500, ![.rateLimited, .readOnly, .forbidden, .notFound, .gone].contains(body.error) else { return nil }
        return .forGood(body.message)
    }

    func failed(_ error: ServerFailure, gameID: String) -> PushOutcome {
        if case let .refused(body, status, retryAfter) = error {
            switch body.error {
            case .clockSkew:
                // The clock is corrected by the answer's serverTime already: restamp and resend.
                restampUnsent(gameID)
                return .done
            case .readOnly, .forbidden, .notFound, .gone:
                becomeReadOnly(gameID, reason: body.message)
                return .done
            case .rateLimited:
                return .wait(pushBackoff.next(atLeast: .seconds(retryAfter ?? 1)), error)
            default:
                if status >= 500 { return .wait(pushBackoff.next(atLeast: .seconds(retryAfter ?? 0)), error) }
                // A refusal that resending cannot mend (a limit, a malformed batch): the batch's
                // moves leave the outbox, named, so the rest can go.
                logger.error("the server refused a batch", metadata: ["game": "\(gameID)", "error": "\(body.message)"])
                for move in (try? store.unsent(gameID: gameID, limit: 1)) ?? [] {
                    try? store.markRefused(gameID: gameID, replicaID: move.replicaID, seq: move.seq)
                    emit(.moveRefused(gameID: gameID, seq: move.seq, reason: body.message))
                }
                return .done
            }
        }
        return .wait(pushBackoff.next(), error)
    }

    func send(_ batch: [Move], to gameID: String) async -> Result<PushMovesResponse, ServerFailure> {
        let records = batch.map(MoveRecord.init)
        if let socket, socket.isOpen {
            let answer = await withCheckedContinuation { (continuation: CheckedContinuation<AwaitedPushes.Answer, Never>) in
                let id = awaited.wait(continuation)
                if !socket.send(.push(gameID: gameID, id: id, moves: records)) {
                    awaited.answer(id, with: .failure(.unreachable("the socket closed")))
                    return
                }
                Task { [weak self] in
                    try? await Task.sleep(for: .seconds(30))
                    await self?.expirePush(id)
                }
            }
            return answer
        }
        do {
            return .success(try await api.push(gameID: gameID, moves: records))
        } catch {
            return .failure(error)
        }
    }

    func expirePush(_ id: Int) {
        awaited.answer(id, with: .failure(.unreachable("no answer to a push within 30 s")))
    }

    /// Takes a push's per-record answers: acknowledged moves leave the outbox, refused ones are
    /// named; the change token moves on when the push's moves were the zone's only changes.
    func settle(_ response: PushMovesResponse, batch: [Move], gameID: String) {
        var acknowledged = 0
        var sequences: [Int64] = []
        var resent = false
        for result in response.results {
            switch result.status {
            case .saved, .duplicate:
                acknowledged = max(acknowledged, result.seq)
                if result.status == .saved, let sequence = result.sequence { sequences.append(sequence) }
            case .rejected where resent:
                continue
            case .rejected:
                // The server's count of this device's moves is behind this device's own (it was
                // restored from a backup): the moves it lost go again, then the rest.
                if let next = result.nextSeq, next < result.seq, result.replicaID == identity.deviceID,
                    let count = try? store.resend(gameID: gameID, replicaID: result.replicaID, from: next), count > 0
                {
                    logger.notice(
                        "the server holds fewer of this device's moves than were acknowledged (restored from a backup?): sending them again",
                        metadata: ["game": "\(gameID)", "from": "\(next)", "moves": "\(count)"])
                    resent = true
                    continue
                }
                try? store.markRefused(gameID: gameID, replicaID: result.replicaID, seq: result.seq)
                emit(.moveRefused(gameID: gameID, seq: result.seq, reason: result.error?.message ?? "refused"))
            }
        }
        if acknowledged > 0 { try? store.markSent(gameID: gameID, replicaID: identity.deviceID, through: acknowledged) }
        if let held = try? store.game(gameID)?.token?.sequence, !sequences.isEmpty {
            ahead.saved(sequences, in: gameID, after: held)
            sequences.sort()
            if sequences.first == held + 1, sequences.last == response.token.sequence,
                sequences.count == Int(response.token.sequence - held)
            {
                try? store.setChangeToken(response.token)
                settled(gameID)
            }
        }
        if let completion = response.completion {
            var local = try? store.game(gameID)
            if local?.game.completion == nil {
                local?.game.completion = completion
                if let local { try? store.saveGame(local.game, title: local.title) }
            }
        }
        emit(.status(status))
    }

    /// The server refused a batch as stamped too far ahead: this device's unsent moves of the
    /// game get new timestamps from the corrected clock (in the same order; nobody has seen
    /// them), and the replica is rebuilt from the store.
    func restampUnsent(_ gameID: String) {
        guard let moves = try? store.moves(gameID: gameID), let unsent = try? store.unsent(gameID: gameID, limit: Int.max) else { return }
        let pendingIDs = Set(unsent.map { MoveID(replicaID: $0.replicaID, seq: $0.seq) })
        var hlc = HybridLogicalClock()
        for move in moves where !pendingIDs.contains(MoveID(replicaID: move.replicaID, seq: move.seq)) && move.timestamp.wallMillis <= clock.now {
            hlc.observe(move.timestamp)
        }
        let restamped = unsent.sorted { $0.seq < $1.seq }.map { move in
            var move = move
            move.timestamp = hlc.tick(wallMillis: clock.now)
            return move
        }
        try? store.restamp(restamped)
        logger.info("moves restamped after clock skew", metadata: ["game": "\(gameID)", "count": "\(restamped.count)"])
        if let before = replicas.removeValue(forKey: gameID)?.grid, let replica = try? replica(gameID) {
            emitChanges(gameID: gameID, before: before, after: replica.grid, at: restamped.map(\.position))
        }
    }
}
