import CrossmateCore
import CrossmateProtocol
import CrossmateStore
import CrossmateSync
import Foundation
import Testing

/// The zone's chat records on both engines: a message kept once, a reaction or flag whose latest
/// decides, and a game's chat bounded.
@Suite struct ChatStoreTests {
    let helpers = StoreTests()
    func account(_ store: Store) async throws -> (author: String, device: String, tokenHash: String) { try await helpers.account(store) }
    func game(_ store: Store, owner: String) async throws -> String { try await helpers.game(store, owner: owner) }

    func message(_ gameID: String, _ id: String, by device: String, at millis: Int64 = 10) -> ChatMessage {
        ChatMessage(
            gameID: gameID, authorID: "acct", replicaID: device, messageID: id, text: "text \(id)", timestamp: HLCTimestamp(wallMillis: millis))
    }

    @Test(arguments: Backend.available)
    func messagesAreKeptOnceReactionsDecideByTheLatestAndAChatIsBounded(backend: Backend) async throws {
        try await withStore(backend) { store in
            let ann = try await account(store)
            let id = try await game(store, owner: ann.author)
            let first = try await store.putMessage(message(id, "m1", by: ann.device), maximum: 3)
            var resent = message(id, "m1", by: ann.device)
            resent.text = "other"
            let again = try await store.putMessage(resent, maximum: 3)
            #expect(first.isNew && !again.isNew && again.sequence == first.sequence && again.kept.text == "text m1")
            _ = try await store.putMessage(message(id, "m2", by: ann.device), maximum: 3)
            _ = try await store.putMessage(message(id, "m3", by: ann.device), maximum: 3)
            await #expect(throws: StoreRefusal.tooManyRecords(.message, maximum: 3)) {
                try await store.putMessage(message(id, "m4", by: ann.device), maximum: 3)
            }
            // A resend of one kept is still answered when the chat is full.
            #expect(try await store.putMessage(message(id, "m2", by: ann.device), maximum: 3).isNew == false)
            #expect(try await store.messages(gameID: id, limit: 10).map(\.message.messageID) == ["m1", "m2", "m3"])

            func reaction(_ emoji: String, on: Bool, at millis: Int64) -> Reaction {
                Reaction(gameID: id, authorID: "acct", messageKey: first.kept.key, emoji: emoji, on: on, timestamp: HLCTimestamp(wallMillis: millis))
            }
            let given = try await store.putReaction(reaction("👍", on: true, at: 5), maximum: 2)
            let older = try await store.putReaction(reaction("👍", on: false, at: 4), maximum: 2)
            #expect(given.isNew && !older.isNew && older.kept == given.kept)
            let taken = try await store.putReaction(reaction("👍", on: false, at: 6), maximum: 2)
            #expect(taken.isNew && taken.sequence > given.sequence)
            _ = try await store.putReaction(reaction("❤️", on: true, at: 7), maximum: 2)
            await #expect(throws: StoreRefusal.tooManyRecords(.reaction, maximum: 2)) {
                try await store.putReaction(reaction("🎉", on: true, at: 8), maximum: 2)
            }
            // A later word on a key already held is not a new record: it is taken.
            #expect(try await store.putReaction(reaction("❤️", on: false, at: 9), maximum: 2).isNew)

            let flag = ClueFlag(gameID: id, authorID: "acct", number: 1, direction: .across, on: true, timestamp: HLCTimestamp(wallMillis: 3))
            #expect(try await store.putFlag(flag).isNew)
            var stale = flag
            stale.on = false
            stale.timestamp = HLCTimestamp(wallMillis: 2)
            #expect(try await store.putFlag(stale).kept == flag)
        }
    }
}
