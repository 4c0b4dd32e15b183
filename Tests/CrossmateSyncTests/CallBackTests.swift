import CrossmateCore
import Testing

@testable import CrossmateSync

/// The rule that calls a player back to a game (`CallBack.calls`), case by case.
@Suite struct CallBackTests {
    let now: Int64 = 10_000_000

    func facts(_ event: CallBack.Event, sender: AuthorID = "ana", recipient: AuthorID = "ben") -> CallBack.Facts {
        CallBack.Facts(event: event, sender: sender, recipient: recipient, horizon: 40, sequence: 50)
    }

    @Test func aNudgeAChatMessageAndMovesCallAnAbsentPlayer() {
        for event in [CallBack.Event.nudge, .chat, .moves] { #expect(CallBack.calls(facts(event), now: now)) }
    }

    @Test func nothingCallsAPlayerForTheirOwnDoing() {
        for event in [CallBack.Event.nudge, .chat, .moves] { #expect(!CallBack.calls(facts(event, sender: "ben"), now: now)) }
    }

    @Test func nothingFromABlockedAccount() {
        for event in [CallBack.Event.nudge, .chat, .moves] {
            var blocked = facts(event)
            blocked.blocked = ["ana"]
            #expect(!CallBack.calls(blocked, now: now))
        }
    }

    @Test func nothingWhileOneOfTheirDevicesHoldsTheGamesLease() {
        let phone = DevicePresence(gameID: "g", deviceID: "phone", authorID: "ben", leaseUntil: now + 1)
        let laptop = DevicePresence(gameID: "g", deviceID: "laptop", authorID: "ben", leaseUntil: now - 1)
        for event in [CallBack.Event.nudge, .chat, .moves] {
            var here = facts(event)
            here.devices = [laptop, phone]
            #expect(!CallBack.calls(here, now: now))
            here.devices = [laptop]  // a lease that ran out is not being here
            #expect(CallBack.calls(here, now: now))
        }
    }

    @Test func eachEventCanBeTurnedOffAlone() {
        var settings = CallBack.Settings(SolverSettings(stored: ["notify-chat": "off"]))
        #expect(settings == CallBack.Settings(nudges: true, chat: false, moves: true))
        var chat = facts(.chat)
        chat.settings = settings
        #expect(!CallBack.calls(chat, now: now))
        var nudge = facts(.nudge)
        nudge.settings = settings
        #expect(CallBack.calls(nudge, now: now))
        settings = CallBack.Settings(SolverSettings(stored: ["notify-moves": "off", "notify-nudges": "off"]))
        for event in [CallBack.Event.nudge, .moves] {
            var off = facts(event)
            off.settings = settings
            #expect(!CallBack.calls(off, now: now))
        }
    }

    @Test func movesCallOnlyPastTheReadHorizon() {
        var read = facts(.moves)
        read.horizon = 50
        #expect(!CallBack.calls(read, now: now))
        read.horizon = 49
        #expect(CallBack.calls(read, now: now))
    }

    @Test func movesCallAtMostOnceInTenMinutesAGame() {
        var recent = facts(.moves)
        recent.lastCalledForMoves = now - CallBack.movesIntervalMillis + 1
        #expect(!CallBack.calls(recent, now: now))
        recent.lastCalledForMoves = now - CallBack.movesIntervalMillis
        #expect(CallBack.calls(recent, now: now))
        // Chat is not held back by the moves' interval.
        var chat = facts(.chat)
        chat.lastCalledForMoves = now
        #expect(CallBack.calls(chat, now: now))
    }
}
