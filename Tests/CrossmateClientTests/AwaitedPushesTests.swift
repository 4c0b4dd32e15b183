import CrossmateProtocol
import CrossmateTestSupport
import Testing

@testable import CrossmateClient

/// The pushes waiting for their answers over the socket: each is answered once, by its own id; a
/// late or repeated answer is dropped; a closed socket fails every one still waiting.
@Suite struct AwaitedPushesTests {
    /// An actor holding the pushes, as the engine does.
    actor Engine {
        var pushes = AwaitedPushes()
        var sent: [Int] = []

        func push() async -> AwaitedPushes.Answer {
            await withCheckedContinuation { continuation in sent.append(pushes.wait(continuation)) }
        }

        func answer(_ id: Int, _ answer: AwaitedPushes.Answer) { pushes.answer(id, with: answer) }
        func failAll(_ reason: String) { pushes.failAll(reason) }
        func waiting() -> Int { pushes.count }
    }

    static let response = PushMovesResponse(results: [], token: ChangeToken(zone: "g", sequence: 7), completion: nil, serverTime: 1)

    @Test func eachPushIsAnsweredOnceAndAClosedSocketFailsTheRest() async throws {
        let engine = Engine()
        let first = Task { await engine.push() }
        let second = Task { await engine.push() }
        try await eventually("both pushes wait") { await engine.waiting() == 2 }
        let ids = await engine.sent
        #expect(Set(ids) == [1, 2])
        await engine.answer(ids[0], .success(Self.response))
        // Answered again (a duplicate) or answered for an id never sent: dropped.
        await engine.answer(ids[0], .failure(.unreachable("late")))
        await engine.answer(99, .success(Self.response))
        guard case let .success(answer) = await (ids[0] == 1 ? first : second).value else {
            Issue.record("the first push was not answered with its response")
            return
        }
        #expect(answer.token.sequence == 7)
        #expect(await engine.waiting() == 1)
        await engine.failAll("the socket closed")
        guard case let .failure(.unreachable(reason)) = await (ids[0] == 1 ? second : first).value else {
            Issue.record("the push still waiting did not fail")
            return
        }
        #expect(reason == "the socket closed")
        #expect(await engine.waiting() == 0)
    }
}
