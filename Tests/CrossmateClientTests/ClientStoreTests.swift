import CrossmateClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import Foundation
import Testing

/// The device's local store: what it keeps survives closing and reopening, the outbox holds
/// exactly the moves not yet acknowledged, and profiles keep devices apart.
@Suite struct ClientStoreTests {
    static let puzzle = try! BundledPuzzles.puzzle("green-light")

    func withDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crossmate-client-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory.path)
    }

    @Test func everythingKeptSurvivesReopening() throws {
        try withDirectory { directory in
            let path = directory + "/profiles/default/client.sqlite"
            let game = GameRecord(gameID: "game-1", ownerID: "acct-ann", createdAt: 1, puzzle: Self.puzzle)
            var phone = GameReplica(puzzle: Self.puzzle, gameID: "game-1", replicaID: "dev-1", authorID: "acct-ann")
            var bob = GameReplica(puzzle: Self.puzzle, gameID: "game-1", replicaID: "dev-2", authorID: "acct-bob")
            let mine =
                try phone.perform(.setLetter(GridPosition(row: 1, col: 0), "G"), wallMillis: 10)
                + phone.perform(.setLetter(GridPosition(row: 1, col: 1), "R"), wallMillis: 11)
            let theirs = try bob.perform(.setLetter(GridPosition(row: 2, col: 0), "L"), wallMillis: 12)
            do {
                let store = try ClientStore(path: path)
                try store.saveIdentity(
                    Identity(serverURL: "http://127.0.0.1:8080", authorID: "acct-ann", deviceID: "dev-1", token: "t", displayName: "Ann"))
                try store.saveGame(game, title: "Green Light")
                try store.recordOwn(mine)
                try store.recordReceived(theirs)
                try store.setChangeToken(ChangeToken(zone: "game-1", sequence: 7))
                try store.saveSnapshot(gameID: "game-1", zoneSeq: 5, snapshot: Snapshot.build(width: 5, height: 5, moves: theirs))
            }
            // Reopened, as after a restart: the same identity, game, moves, outbox and token.
            let store = try ClientStore(path: path)
            #expect(try store.appliedMigrations() == ["1", "2", "3", "4", "5", "6"] && store.syncsEveryCommit())
            #expect(try store.identity()?.deviceID == "dev-1")
            let local = try #require(try store.game("game-1"))
            #expect(local.game == game && local.title == "Green Light" && !local.readOnly && local.token?.sequence == 7)
            #expect(try store.unsent(gameID: "game-1") == mine)
            #expect(try Set(store.moves(gameID: "game-1")) == Set(mine + theirs))
            #expect(try store.snapshot(gameID: "game-1")?.zoneSeq == 5)
            // A replica rebuilt from the store is the one that made the moves.
            let rebuilt = GameReplica(
                puzzle: Self.puzzle, gameID: "game-1", replicaID: "dev-1", authorID: "acct-ann", moves: try store.moves(gameID: "game-1"))
            #expect(rebuilt.nextSeq == phone.nextSeq && rebuilt.journal == phone.journal)
        }
    }

    @Test func theOutboxHoldsExactlyWhatIsNotAcknowledged() throws {
        try withDirectory { directory in
            let store = try ClientStore(path: directory + "/client.sqlite")
            var phone = GameReplica(puzzle: Self.puzzle, gameID: "game-1", replicaID: "dev-1", authorID: "acct-ann")
            var moves: [Move] = []
            for (index, square) in Self.puzzle.letterPositions.prefix(5).enumerated() {
                moves += try phone.perform(.setLetter(square, "A"), wallMillis: Int64(index + 1))
            }
            try store.recordOwn(moves)
            #expect(try store.unsentCount() == 5 && store.unsent(gameID: "game-1", limit: 2) == Array(moves.prefix(2)))
            try store.markSent(gameID: "game-1", replicaID: "dev-1", through: 3)
            #expect(try store.unsent(gameID: "game-1") == Array(moves.suffix(2)))
            // Its own move coming back from the server is acknowledged too; sending it again is harmless.
            try store.recordReceived([moves[3]])
            try store.recordOwn([moves[4]])
            #expect(try store.unsent(gameID: "game-1") == [moves[4]])
            // A change token never moves backward.
            try store.saveGame(GameRecord(gameID: "game-1", ownerID: "acct-ann", createdAt: 1, puzzle: Self.puzzle), title: "T")
            try store.setChangeToken(ChangeToken(zone: "game-1", sequence: 9))
            try store.setChangeToken(ChangeToken(zone: "game-1", sequence: 4))
            #expect(try store.game("game-1")?.token?.sequence == 9)
            try store.setReadOnly("game-1")
            try store.markSealed("game-1")
            let game = try #require(try store.game("game-1"))
            #expect(game.readOnly && game.sealed)
        }
    }

    /// What the rest of the store keeps: refusals and how far the server holds a replica, seals
    /// that never go back, a pause kept once, players, the clock offset, a game saved again
    /// keeping what the device learned of it, and erasing forgets all of it.
    @Test func refusalsSealsPausesAndErasing() throws {
        try withDirectory { directory in
            let store = try ClientStore(path: directory + "/client.sqlite")
            var phone = GameReplica(puzzle: Self.puzzle, gameID: "game-1", replicaID: "dev-1", authorID: "acct-ann")
            var moves: [Move] = []
            for (index, square) in Self.puzzle.letterPositions.prefix(4).enumerated() {
                moves += try phone.perform(.setLetter(square, "A"), wallMillis: Int64(index + 1))
            }
            try store.recordOwn(moves)
            #expect(try store.acknowledgedThrough(gameID: "game-1", replicaID: "dev-1") == 0)
            try store.markSent(gameID: "game-1", replicaID: "dev-1", through: 2)
            try store.markRefused(gameID: "game-1", replicaID: "dev-1", seq: 3)
            #expect(try store.acknowledgedThrough(gameID: "game-1", replicaID: "dev-1") == 2)
            #expect(try store.unsent(gameID: "game-1") == [moves[3]] && store.gamesWithUnsentMoves() == ["game-1"])
            #expect(try store.moveCount(gameID: "game-1") == 4)
            try store.markSent(gameID: "game-1", replicaID: "dev-1", through: 4)
            #expect(try store.unsentCount(gameID: "game-1") == 0 && store.gamesWithUnsentMoves().isEmpty)

            try store.saveSeal(Seal(gameID: "game-1", replicaID: "dev-2", lastSeq: 9))
            try store.saveSeal(Seal(gameID: "game-1", replicaID: "dev-2", lastSeq: 4))
            #expect(try store.seals(gameID: "game-1") == [Seal(gameID: "game-1", replicaID: "dev-2", lastSeq: 9)])
            let pause = Pause(gameID: "game-1", authorID: "acct-ann", replicaID: "dev-1", at: 50)
            try store.savePause(pause)
            try store.savePause(pause)
            #expect(try store.pauses(gameID: "game-1") == [pause])
            let bob = ParticipantRecord(gameID: "game-1", authorID: "acct-bob", displayName: "Bob", role: .player)
            try store.saveParticipant(bob)
            try store.saveParticipant(ParticipantRecord(gameID: "game-1", authorID: "acct-bob", displayName: "Bobby", role: .player))
            #expect(try store.participants(gameID: "game-1").map(\.displayName) == ["Bobby"])
            try store.setServerOffsetMillis(-1_234)
            #expect(try store.serverOffsetMillis() == -1_234)

            let game = GameRecord(gameID: "game-1", ownerID: "acct-ann", createdAt: 1, puzzle: Self.puzzle)
            try store.saveGame(game, title: "Old")
            try store.setChangeToken(ChangeToken(zone: "game-1", sequence: 3))
            try store.setReadOnly("game-1")
            try store.saveGame(game, title: "New")
            let saved = try #require(try store.game("game-1"))
            #expect(saved.title == "New" && saved.readOnly && saved.token?.sequence == 3)

            try store.erase()
            #expect(try store.identity() == nil && store.games().isEmpty && store.moveCount(gameID: "game-1") == 0)
            #expect(try store.seals(gameID: "game-1").isEmpty && store.pauses(gameID: "game-1").isEmpty)
            #expect(try store.participants(gameID: "game-1").isEmpty && store.serverOffsetMillis() == 0)
        }
    }

    @Test func theStoreIsOwnerOnlyAndProfilesAreApart() throws {
        try withDirectory { directory in
            let home = ["XDG_DATA_HOME": directory]
            let first = try Profile(environment: home)
            let second = try Profile(name: "tablet", environment: home)
            let fromEnvironment = try Profile(environment: home.merging(["CROSSMATE_PROFILE": "laptop"]) { $1 })
            #expect(first.name == "default" && first.directory == directory + "/crossmate/profiles/default")
            #expect(second.databasePath == directory + "/crossmate/profiles/tablet/client.sqlite")
            #expect(fromEnvironment.name == "laptop")
            #expect(throws: Profile.Failure.invalidName("../etc")) { try Profile(name: "../etc", environment: home) }
            #expect(try Profile(environment: ["HOME": "/home/ann"]).directory == "/home/ann/.local/share/crossmate/profiles/default")

            let store = try ClientStore(path: first.databasePath)
            try store.saveIdentity(Identity(serverURL: "u", authorID: "a", deviceID: "d1", token: "secret", displayName: "Ann"))
            #expect(try ClientStore(path: second.databasePath).identity() == nil)
            let attributes = try FileManager.default.attributesOfItem(atPath: first.databasePath)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let folder = try FileManager.default.attributesOfItem(atPath: first.directory)
            #expect((folder[.posixPermissions] as? Int) == 0o700)
        }
    }
}
