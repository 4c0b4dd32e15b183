import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import Logging
import Synchronization

/// The engine's socket: what the server says over it (pokes, relays, answers to pushes, cursors, who is here) and what the engine sends on it.
extension SyncEngine {
    func handle(_ event: SocketEvent) async {
        switch event {
        case .connected:
            setConnection(.online)
            // Moves shown before their commit may not have been stored (the server went down):
            // held apart until the fetches below have read what was.
            let unconfirmed = ahead.dropRelayed()
            socket?.send(.relays)
            let games = ((try? store.games()) ?? []).map(\.game.gameID)
            for start in stride(from: 0, to: games.count, by: 200) {
                socket?.send(.subscribe(games: Array(games[start..<min(games.count, start + 200)])))
            }
            for (gameID, cursor) in outgoingCursors.last { socket?.send(.cursor(gameID: gameID, cursor: cursor)) }
            for gameID in viewed { socket?.send(.viewing(gameID: gameID, viewing: true)) }
            wake()
            var report = SyncReport()
            do {
                try await refreshGameList(report: &report)
                for game in (try? store.games()) ?? [] { _ = try await fetch(game.game.gameID) }
            } catch {
                logger.info("fetch after connecting failed", metadata: ["error": "\(error)"])
            }
            // A replica still showing a relayed move the store lacks reads the store again (read
            // first, every relayed letter blinked off until the fetch brought it back).
            for (gameID, held) in unconfirmed where !isStored(held, in: gameID) { readAgain(gameID) }
            kickPush()
        case let .disconnected(reason, _):
            logger.debug("socket closed", metadata: ["reason": "\(reason)"])
            if case .online = connection { setConnection(.offline(since: clock.local)) }
            awaited.failAll(reason)
            // Who is here is unknown until the socket is back (it is told again then).
            for gameID in present.keys where !(present[gameID] ?? []).isEmpty {
                present[gameID] = []
                cursors[gameID] = [:]
                emit(.cursorsChanged(gameID: gameID, cursors: []))
            }
        case let .message(message):
            await handle(message)
        }
    }

    func handle(_ message: ServerSocketMessage) async {
        switch message {
        case let .poke(zone, token, after, changes):
            guard let local = try? store.game(zone) else { return }
            let held = local.token?.sequence ?? 0
            guard token.sequence > held else { return }
            if let changes, let after, after.sequence == held {
                apply(changes, gameID: zone)
                try? store.setChangeToken(token)
                settled(zone)
                await settleCompletion(zone)
            } else {
                _ = try? await fetch(zone)
            }
        case let .relay(zone, _, changes, committed):
            guard let local = try? store.game(zone) else { return }
            let held = local.token?.sequence ?? 0
            let fresh = ahead.relay(changes, in: zone, after: held)
            // Shown in the open replica, not stored: they are not on disk yet.
            merge(Self.moves(in: fresh), gameID: zone)
            await commit(zone, through: committed.sequence)
        case let .cursor(gameID, deviceID, authorID, cursor):
            guard deviceID != identity.deviceID else { return }
            cursors[gameID, default: [:]][deviceID] = Self.peer(deviceID, authorID, cursor)
            // A device that moves its cursor is here, whatever was last said.
            if present[gameID]?.contains(where: { $0.deviceID == deviceID }) == false {
                present[gameID]?.append(PresentDevice(deviceID: deviceID, authorID: authorID))
            }
            emit(.cursorsChanged(gameID: gameID, cursors: peerCursors(gameID)))
        case let .here(gameID, devices):
            // Who shows the game now: a device that left takes its cursor with it, one that just
            // arrived (or was here when this one opened the game) shows where it last was.
            let others = devices.filter { $0.deviceID != identity.deviceID }
            // A device that arrived learns where this one is without waiting for it to move.
            let before = Set((present[gameID] ?? []).map(\.deviceID))
            if present[gameID] != nil, others.contains(where: { !before.contains($0.deviceID) }), let cursor = outgoingCursors.last[gameID] {
                socket?.send(.cursor(gameID: gameID, cursor: cursor))
            }
            present[gameID] = others
            var kept: [String: PeerCursor] = [:]
            for device in others {
                if let live = cursors[gameID]?[device.deviceID] {
                    kept[device.deviceID] = live
                } else if let cursor = device.cursor {
                    kept[device.deviceID] = Self.peer(device.deviceID, device.authorID, cursor)
                }
            }
            cursors[gameID] = kept
            emit(.cursorsChanged(gameID: gameID, cursors: peerCursors(gameID)))
        case .feed:
            var report = SyncReport()
            try? await refreshGameList(report: &report)
            emit(.accountChanged)
        case let .pong(serverTime):
            clock.observe(serverTime: serverTime)
        case let .pushed(id, _, response):
            awaited.answer(id, with: .success(response))
        case let .pushFailed(id, _, error, retryAfterSeconds):
            let status = error.error == .rateLimited ? 429 : error.error == .serverError ? 500 : 400
            awaited.answer(id, with: .failure(.refused(error, status: status, retryAfterSeconds: retryAfterSeconds)))
        case let .error(body):
            logger.warning("the server refused the socket", metadata: ["error": "\(body.message)"])
        case let .nudge(nudge):
            nudges[nudge.gameID, default: []].insert(nudge, at: 0)
            emit(.nudged(nudge))
        case let .nextGame(next):
            // The new game is fetched (the list learns of it) before a UI is told.
            var report = SyncReport()
            try? await refreshGameList(report: &report)
            emit(.nextGame(next))
        case .opened, .update, .applied, .refused, .replay, .closed:
            break  // answers to a browser's messages, which this engine does not send
        }
    }

    static func peer(_ deviceID: String, _ authorID: String, _ cursor: CursorPosition) -> PeerCursor {
        PeerCursor(deviceID: deviceID, authorID: authorID, position: GridPosition(row: cursor.row, col: cursor.col), direction: cursor.direction)
    }

    public func peerCursors(_ gameID: String) -> [PeerCursor] {
        (cursors[gameID] ?? [:]).values.sorted { $0.deviceID < $1.deviceID }
    }

    /// The other accounts with a device showing the game now, as the server last said (none
    /// known while the socket is down).
    public func playersHere(_ gameID: String) -> Set<String> {
        Set((present[gameID] ?? []).map(\.authorID)).subtracting([identity.authorID])
    }
}
