import ArgumentParser
import CrossmateClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import CrossmateTerminal
import Foundation

struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scrub through a finished game's solve, move by move.",
        discussion:
            "Left/right step one move, shift-left/right 10% of the game; space plays at 1×, again at 10×, 100×, then pauses; ctrl-q or q leaves."
    )

    @Argument(help: .game)
    var game: String

    @OptionGroup var profile: ProfileOption

    func run() async throws {
        try await reporting {
            let engine = try profile.engine()
            try RawTerminal.require("replay")
            let gameID = try await engine.resolve(game)
            _ = try? await engine.fetch(gameID)
            let session = try await engine.open(gameID)
            let timeline: ReplayTimeline
            switch try await session.replay() {
            case let .ready(ready): timeline = ready
            case let .waiting(missing):
                throw ClientFailure(
                    "the replay is not ready: \(missing.count) device\(missing.count == 1 ? " has" : "s have") not sent all of their moves yet")
            case .unavailable:
                throw ClientFailure("this game cannot be reached; sync and try again")
            }
            guard try await session.view().completion != nil else { throw ClientFailure("the game is not finished yet") }
            let terminal = try RawTerminal(for: "replay")
            defer { terminal.restore() }
            try await ReplayLoop(
                session: session, timeline: timeline, terminal: terminal, pauses: ((try? engine.store.pauses(gameID: gameID)) ?? []).map(\.stamp)
            ).run()
        }
    }
}

/// Replay's loop: a playhead over the timeline, drawn with the game screen.
struct ReplayLoop {
    let session: GameSession
    let timeline: ReplayTimeline
    let terminal: RawTerminal
    /// The players' pauses, for the solving clock at each move.
    var pauses: [SolvingTime.Stamp] = []

    /// The shared clock's seconds through the first `step` moves (`SolvingTime`, ended at the
    /// last of them).
    func seconds(through step: Int) -> Int {
        guard step > 0 else { return 0 }
        let end = timeline.steps[step - 1].timestamp.wallMillis
        return SolvingTime.measure(moves: timeline.steps.prefix(step).map(\.stamp), pauses: pauses, end: end, now: end).seconds
    }

    func run() async throws {
        let colors = ColorMode(environment: ProcessInfo.processInfo.environment)
        let final = try await session.view()
        // The finish as every device tells it, and the whole solve's time: what the replay's
        // clock counts up to.
        let summary = try await session.summary()
        let total = summary?.seconds ?? seconds(through: timeline.count)
        var step = 0
        var speed = 0  // 0 paused, else 1, 10, 100
        var playhead: Int64 = 0
        let inputs = terminal.inputs
        let (stream, continuation) = AsyncStream.makeStream(of: TerminalInput.self, bufferingPolicy: .unbounded)
        let keys = Task {
            for await input in inputs { continuation.yield(input) }
            continuation.yield(.key(.control("q")))
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(50))
                continuation.yield(.tick)
            }
        }
        defer {
            keys.cancel()
            ticker.cancel()
        }
        func draw() {
            var view = final
            view.grid = timeline.state(through: step)
            view.completion = step == timeline.count ? final.completion : nil
            view.cursors = []
            let position = step > 0 ? timeline.steps[step - 1].position : GridPosition(row: 0, col: 0)
            var state = PlayState(puzzle: view.puzzle) { _ in "" }
            state.cursor.position = position
            let size = terminal.size
            var screen = PlayScreen(
                view: view, state: state, status: SyncStatus(connection: .online, unsent: 0), elapsedSeconds: total, summary: summary)
            screen.replay = PlayScreen.ReplayStatus(
                step: step, count: timeline.count, secondsAtStep: seconds(through: step), totalSeconds: total, speed: speed)
            terminal.write(screen.render(width: size.width, height: size.height, colors: colors).ansi(colors))
        }
        draw()
        let tenth = max(1, timeline.count / 10)
        for await input in stream {
            switch input {
            case let .key(key):
                switch key {
                case .control("q"), .character("q"), .control("c"), .escape: return
                case .left: step = max(0, step - 1)
                case .right: step = min(timeline.count, step + 1)
                case .shiftLeft: step = max(0, step - tenth)
                case .shiftRight: step = min(timeline.count, step + tenth)
                case .home: step = 0
                case .end: step = timeline.count
                case .character(" "):
                    speed = speed == 0 ? 1 : speed == 1 ? 10 : speed == 10 ? 100 : 0
                    if step == timeline.count, speed != 0 { step = 0 }
                    playhead = step > 0 ? timeline.steps[step - 1].timestamp.wallMillis : (timeline.steps.first?.timestamp.wallMillis ?? 0)
                default: break
                }
            case .tick:
                guard speed > 0 else { continue }
                playhead += 50 * Int64(speed)
                // Long pauses in the solve are shortened to a second of replay.
                if step < timeline.count, timeline.steps[step].timestamp.wallMillis - playhead > 1_000 * Int64(speed) {
                    playhead = timeline.steps[step].timestamp.wallMillis - 1_000 * Int64(speed)
                }
                while step < timeline.count, timeline.steps[step].timestamp.wallMillis <= playhead { step += 1 }
                if step == timeline.count { speed = 0 }
            case .resize, .redraw:
                terminal.write("\u{1B}[2J")
            }
            draw()
        }
    }
}
