import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import NIOCore
import NIOWebSocket
import Synchronization

/// One simulated browser (`crossmate-bench server --browsers`): its socket opens the game, so the
/// server hosts its replica, and each key goes as a command; the other browsers of the game see
/// it in an update's squares. This is the path a person typing in the web app takes, and what it
/// costs the server per keystroke is the hosted replicas' work.
final class BrowserDeviceHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let setup: DeviceHandler.Setup
    private let typed: TypedSquares
    private var random: SeededRandomNumberGenerator
    private let squares: [GridPosition]
    private var context: ChannelHandlerContext?
    private var end: NIODeadline = .now()
    private var nextID = 0
    /// Commands sent and not yet answered, by id: when each was sent.
    private var unanswered: [Int: ContinuousClock.Instant] = [:]
    private var opened = false

    init(_ setup: DeviceHandler.Setup, typed: TypedSquares) {
        self.setup = setup
        self.typed = typed
        random = SeededRandomNumberGenerator(seed: setup.seed)
        squares = setup.puzzle.letterPositions
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        send(text: String(decoding: (try? JSONEncoder().encode(ClientSocketMessage.open(gameID: setup.gameID))) ?? Data(), as: UTF8.self))
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        setup.fleet.enlist { end in
            bound.eventLoop.execute { bound.value.begin(until: end) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    private func begin(until end: NIODeadline) {
        self.end = end
        scheduleKeystroke(after: Double.random(in: 0..<(1 / setup.keysPerSecond), using: &random))
    }

    private func scheduleKeystroke(after seconds: Double) {
        guard let context else { return }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { bound.value.keystroke() }
    }

    private func keystroke() {
        guard context != nil, NIODeadline.now() < end else { return }
        let letter = String("ABCDEFGHIJKLMNOPRSTUWY".randomElement(using: &random)!)
        let square = squares.randomElement(using: &random)!
        nextID += 1
        let key = MoveID(replicaID: setup.session.deviceID, seq: nextID)
        setup.stats.sent(key)
        typed.note(key, game: setup.gameID, square: square, letter: letter)
        unanswered[nextID] = .now
        let command = BrowserCommand(kind: .setLetter, row: square.row, col: square.col, letter: letter)
        let message = ClientSocketMessage.command(
            CommandRequest(gameID: setup.gameID, id: nextID, command: command, typedAt: Int64(Date().timeIntervalSince1970 * 1000)))
        send(text: String(decoding: (try? JSONEncoder().encode(message)) ?? Data(), as: UTF8.self))
        scheduleKeystroke(after: (1 / setup.keysPerSecond) * Double.random(in: 0.5...1.5, using: &random))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            let scan = JSONScan(frame.unmaskedData)
            if scan.contains(#""type":"update""#) {
                seen(scan)
            } else if scan.contains(#""type":"applied""#) || scan.contains(#""type":"refused""#) {
                // The answer's first id is the command's (the squares come after it).
                guard let id = scan.integers("id").first, let sentAt = unanswered.removeValue(forKey: Int(id)) else { return }
                if scan.contains(#""type":"applied""#) { setup.stats.acknowledged(1, roundTrip: .now - sentAt) } else { setup.stats.failed() }
            } else if !opened, scan.contains(#""type":"opened""#) {
                opened = true
                setup.fleet.ready()
            }
        default:
            _ = context.answerControl(frame)
        }
    }

    /// The squares an update draws: each letter another browser typed there is seen now.
    private func seen(_ scan: JSONScan) {
        let (rows, cols, letters) = (scan.integers("row"), scan.integers("col"), scan.strings("letter"))
        guard rows.count == cols.count, rows.count == letters.count else { return }
        for ((row, col), letter) in zip(zip(rows, cols), letters) where !letter.isEmpty {
            guard let key = typed.key(game: setup.gameID, row: Int(row), col: Int(col), letter: letter),
                key.replicaID != setup.session.deviceID
            else { continue }
            setup.stats.seen(key)
        }
        setup.stats.appliedInline()
    }

    private func send(text: String) {
        context?.sendText(text)
    }
}

/// The last key typed into each square of each game with each letter, so a browser that sees
/// the letter drawn knows whose key it was and when it was typed.
final class TypedSquares: Sendable {
    private let keys = Mutex([String: MoveID]())

    func note(_ key: MoveID, game: String, square: GridPosition, letter: String) {
        keys.withLock { $0["\(game) \(square.row) \(square.col) \(letter)"] = key }
    }

    func key(game: String, row: Int, col: Int, letter: String) -> MoveID? {
        keys.withLock { $0["\(game) \(row) \(col) \(letter)"] }
    }
}
