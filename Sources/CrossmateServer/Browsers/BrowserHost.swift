import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Browsers' replicas, hosted by the server. A browser is a device like any other, but it holds
/// no rules: its replica (journal, clock, undo stacks) lives here, rebuilt from the zone's stored
/// moves when a browser opens a game, so any instance can host it. Commands run through the
/// mutator and the moves go through the same ingest as every device's push; other devices'
/// changes reach the replica after each poke and go to the browser as changed squares.
final class BrowserHost: Sendable {
    /// What the replicas read, write and tell their viewers through.
    let services: BrowserServices

    init(services: BrowserServices) {
        self.services = services
    }

    private struct Hosted {
        var game: BrowserGame
        var viewers: Set<Int>
        /// When the last viewer left (nil while someone views it).
        var idleSince: Int64?
    }

    /// By game, then by device: a poke finds its game's replicas without looking at the rest.
    private let hosted = Mutex([String: [String: Hosted]]())

    /// The replica of `gameID` for `device`, shared by every socket of that device (two tabs of
    /// one browser are one device), loaded on first use.
    func open(_ gameID: String, device: StoredDevice, connection: Int) async throws -> BrowserGame {
        let deviceID = device.deviceID
        if let game = hosted.withLock({ hosted -> BrowserGame? in
            hosted[gameID]?[deviceID]?.viewers.insert(connection)
            hosted[gameID]?[deviceID]?.idleSince = nil
            return hosted[gameID]?[deviceID]?.game
        }) {
            return game
        }
        let loaded = try await BrowserGame.load(gameID, device: device, services: services)
        return hosted.withLock { hosted in
            if hosted[gameID, default: [:]][deviceID] == nil { hosted[gameID, default: [:]][deviceID] = Hosted(game: loaded, viewers: []) }
            hosted[gameID]![deviceID]!.viewers.insert(connection)
            return hosted[gameID]![deviceID]!.game
        }
    }

    /// Drops `game`'s replica (its player left): each of `viewers` stops showing the game and
    /// is told why.
    func evict(_ game: BrowserGame, viewers: Set<Int>, reason: String) {
        let gameID = game.gameID
        let deviceID = game.device.deviceID
        let all = hosted.withLock { hosted -> Set<Int> in
            guard let entry = hosted[gameID]?[deviceID], entry.game === game else { return [] }
            hosted[gameID]![deviceID] = nil
            if hosted[gameID]!.isEmpty { hosted[gameID] = nil }
            return entry.viewers
        }
        for viewer in all.union(viewers) {
            services.hub.openInBrowser(viewer, game: gameID, false)
            services.hub.unsubscribe(viewer, from: [gameID])
            services.hub.tell(.socket(viewer), .closed(gameID: gameID, reason: reason))
        }
    }

    func game(_ gameID: String, deviceID: String, connection: Int) -> BrowserGame? {
        hosted.withLock { hosted in
            guard let entry = hosted[gameID]?[deviceID], entry.viewers.contains(connection) else { return nil }
            return entry.game
        }
    }

    /// A socket stops viewing a game (or every game, when it closes). A replica nobody views is
    /// kept for `grace` milliseconds (a reconnecting browser resends what it has not heard
    /// answered), then dropped, to be rebuilt from the store on the next open.
    /// Returns the replicas nobody views any more (their devices have left the game).
    @discardableResult
    func close(connection: Int, gameID: String? = nil, now: Int64, grace: Int64) -> [BrowserGame] {
        hosted.withLock { hosted in
            var left: [BrowserGame] = []
            for game in gameID.map({ [$0] }) ?? Array(hosted.keys) {
                for (deviceID, entry) in hosted[game] ?? [:] where entry.viewers.contains(connection) {
                    hosted[game]![deviceID]!.viewers.remove(connection)
                    if hosted[game]![deviceID]!.viewers.isEmpty {
                        hosted[game]![deviceID]!.idleSince = now
                        left.append(entry.game)
                    }
                }
            }
            Self.dropIdle(&hosted, now: now, grace: grace)
            return left
        }
    }

    /// Drops the replicas nobody has viewed for `grace` milliseconds. Called on a timer, so an
    /// idle replica goes whether or not any other socket ever closes; the number dropped.
    @discardableResult
    func sweep(now: Int64, grace: Int64) -> Int {
        hosted.withLock { hosted in
            let before = hosted.values.reduce(0) { $0 + $1.count }
            Self.dropIdle(&hosted, now: now, grace: grace)
            return before - hosted.values.reduce(0) { $0 + $1.count }
        }
    }

    private static func dropIdle(_ hosted: inout [String: [String: Hosted]], now: Int64, grace: Int64) {
        for (game, devices) in hosted {
            for (deviceID, entry) in devices {
                if let idle = entry.idleSince, now - idle >= grace { hosted[game]![deviceID] = nil }
            }
            if hosted[game]?.isEmpty == true { hosted[game] = nil }
        }
    }

    /// Games one socket has open at once: a page shows one, a few tabs share a socket at most.
    static let maximumOpenPerConnection = 8

    /// How many games `connection` has open.
    func openCount(connection: Int) -> Int {
        hosted.withLock { hosted in hosted.values.reduce(0) { $0 + $1.values.count { $0.viewers.contains(connection) } } }
    }

    /// Something a game's replicas show changed (who is here): every replica of it somebody
    /// views catches up and tells its viewers.
    func changed(gameID: String) {
        for (game, viewers) in viewed(gameID) {
            Task { [self] in await game.refresh(host: self, viewers: viewers) }
        }
    }

    /// The game's zone is committed through `sequence`: each replica of it somebody views moves
    /// on once. One that holds the changes already (relayed before the commit, or its own, which
    /// it made) marks them committed; any other catches up, folding the changes the fact carries
    /// (never its own: `sender`'s replica reads what it lacks from the store).
    func committed(gameID: String, sequence: Int64, sender: String?, inline: InlineChanges?) {
        for (game, viewers) in viewed(gameID) {
            let handed = game.device.deviceID == sender ? nil : inline
            Task { [self] in await game.committed(through: sequence, inline: handed, host: self, viewers: viewers) }
        }
    }

    /// Moves checked and ordered, not yet committed (`Store.appendMoves`): the replicas fold them
    /// and their viewers see them now, a commit's fsync sooner. What this device has shown does
    /// not move on until the commit. Not to `sender`'s replica, which made them.
    func relay(gameID: String, _ saved: [SavedMove], sender: String) {
        let replicas = viewed(gameID).filter { $0.0.device.deviceID != sender }
        guard !replicas.isEmpty, let moves = InlineChanges(saved: saved) else { return }
        // Decoded once here for every replica (one that does not convert is decoded, and
        // reported, by the replica from its stored JSON).
        var decoded: [Int64: Move] = [:]
        for move in saved { decoded[move.sequence] = try? move.move.move() }
        for (game, viewers) in replicas {
            Task { [self, decoded] in await game.refresh(host: self, viewers: viewers, inline: moves, decoded: decoded, committed: nil) }
        }
    }

    /// Moves relayed to the game's replicas were not stored after all (their group commit
    /// failed): each replica is read again from the store and its viewers get the game whole.
    func reload(gameID: String) async {
        for (stale, viewers) in viewed(gameID) {
            do {
                let fresh = try await BrowserGame.load(gameID, device: stale.device, services: services)
                let kept = hosted.withLock { hosted -> Bool in
                    guard hosted[gameID]?[stale.device.deviceID]?.game === stale else { return false }
                    hosted[gameID]![stale.device.deviceID]!.game = fresh
                    return true
                }
                guard kept else { continue }
                try await fresh.open(services: services) { opened in
                    for viewer in viewers { services.hub.tell(.socket(viewer), .opened(opened)) }
                }
            } catch {
                services.logger.error("a browser's replica could not be read again", metadata: ["game": "\(gameID)", "error": "\(error)"])
            }
        }
    }

    /// The sockets viewing `game`'s replica.
    func viewers(of game: BrowserGame) -> Set<Int> {
        hosted.withLock { hosted in
            guard let entry = hosted[game.gameID]?[game.device.deviceID], entry.game === game else { return [] }
            return entry.viewers
        }
    }

    /// Whether a replica of the game here, not `deviceID`'s, has a viewer.
    func isViewed(_ gameID: String, exceptDevice deviceID: String) -> Bool {
        hosted.withLock { $0[gameID]?.values.contains { !$0.viewers.isEmpty && $0.game.device.deviceID != deviceID } ?? false }
    }

    /// The game's replicas somebody views, with their viewers.
    private func viewed(_ gameID: String) -> [(BrowserGame, Set<Int>)] {
        hosted.withLock { $0[gameID]?.values.filter { !$0.viewers.isEmpty }.map { ($0.game, $0.viewers) } ?? [] }
    }

    /// An account's Decisions or Preferences changed: its devices' open games redraw (colours).
    func changed(authorID: String) {
        let games = hosted.withLock { hosted in
            hosted.values.flatMap { $0.values.filter { $0.game.device.authorID == authorID && !$0.viewers.isEmpty }.map { ($0.game, $0.viewers) } }
        }
        for (game, viewers) in games {
            Task { await game.accountZoneChanged(services: services, viewers: viewers) }
        }
    }

    var count: Int { hosted.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}

/// The hosted replicas hear the facts their games' pages show: moves before their commit, the
/// commit, a commit that failed, who is here, an account's colours.
extension BrowserHost: FactListener {
    func hear(_ fact: Fact, from origin: Origin) {
        switch fact {
        case let .movesOrdered(game, saved, sender): relay(gameID: game, saved, sender: sender)
        case let .notCommitted(game): Task { await reload(gameID: game) }
        case let .zoneChanged(game, sequence, sender, inline): committed(gameID: game, sequence: sequence, sender: sender, inline: inline)
        case let .presenceChanged(game, _): changed(gameID: game)
        case let .accountChanged(authorID): changed(authorID: authorID)
        case .feedChanged, .cursorMoved, .left, .finished, .deviceRevoked, .nudged, .nextGame, .mayCallBack: break
        }
    }

    func hearsBeforeCommit(_ game: String, exceptDevice deviceID: String) -> Bool { isViewed(game, exceptDevice: deviceID) }
}

/// Lets go of the replicas nobody has viewed for the grace (`Housekeeping`, on its timer).
struct ReplicaSweep: IdleSweeper {
    let browsers: BrowserHost
    let grace: Int64
    let metrics: ServerMetrics

    func sweepIdle(now: Int64) {
        if browsers.sweep(now: now, grace: grace) > 0 { metrics.browserReplicas.set(Double(browsers.count)) }
    }
}

/// What a hosted replica needs: the store and the games' projections to read, the write path
/// to write through, the hub to tell its viewers, the history reads for replays, and a clock.
struct BrowserServices: Sendable {
    let store: Store
    let directory: GameDirectory
    let writes: GameWrites
    let hub: SocketHub
    let history: HistoryReads
    let metrics: ServerMetrics
    let logger: Logger
    let clock: @Sendable () -> Int64

    func now() -> Int64 { clock() }
}
