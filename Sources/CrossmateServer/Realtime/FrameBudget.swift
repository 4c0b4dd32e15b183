import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

/// The one budget every socket frame the server sends is held to. A frame is built by
/// `encode`; what could grow with what players wrote is fitted before it is built (a replay
/// goes in pages, `ReplayView.page`; an opened game carries the newest messages that fit in
/// `conversationBytes`, `fitConversation`), and a frame that still would not fit is refused in
/// words rather than sent. So no frame is over `maximumFrameBytes`, and no game becomes
/// impossible to open because of what others wrote in it.
enum FrameBudget {
    /// The largest frame sent: three quarters of what a socket may have waiting to be sent
    /// (`ServerConfiguration.socketBufferBytes`, 1 MB), the rest being room for what else is on
    /// its way.
    static let maximumFrameBytes = 768 * 1024
    /// Of an opened game's frame, the room for its conversation (messages and their reactions);
    /// the grid and clues have half the socket's buffer (`check`), players and cursors the rest.
    static let conversationBytes = 160 * 1024

    /// The frame of `message`, or, when it would be larger than `maximumFrameBytes`, an error
    /// that says so (the message's own words are not echoed).
    static func encode(_ message: ServerSocketMessage) -> String {
        let text = encodeWhole(message)
        guard text.utf8.count > maximumFrameBytes else { return text }
        return encodeWhole(
            .error(
                ErrorBody(
                    .limitExceeded,
                    "the server's answer (\(text.utf8.count / 1024) KB) is larger than one message may be (\(maximumFrameBytes / 1024) KB); it was not sent"
                )))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// The answer to a push that stored everything it sent as `ServerSocketMessage.pushedJSON`
    /// spells it, anything else through the JSON encoder.
    private static func encodeWhole(_ message: ServerSocketMessage) -> String {
        if case let .pushed(id, gameID, response) = message, let text = ServerSocketMessage.pushedJSON(id: id, gameID: gameID, response: response) {
            return text
        }
        guard let data = try? encoder.encode(message) else { preconditionFailure("a socket message failed to encode") }
        return String(decoding: data, as: UTF8.self)
    }

    /// The newest of `conversation` (oldest first) that fit in `conversationBytes` with their
    /// reactions (`tallies`, by message key), oldest first. A message's reactions count toward
    /// it; a message whose reactions alone are too many is shown with as many kinds of reaction
    /// as fit.
    static func fitConversation(
        _ conversation: [ChatMessage], tallies: [String: [Chat.Tally]], bytes: Int = conversationBytes
    ) -> (
        messages: [ChatMessage], tallies: [String: [Chat.Tally]]
    ) {
        var left = bytes
        var kept: [ChatMessage] = []
        var keptTallies: [String: [Chat.Tally]] = [:]
        for message in conversation.reversed() {
            let size = size(of: MessageView(message, index: conversation.count))
            guard size <= left else { break }
            left -= size
            kept.append(message)
            let fitted = fitTallies(tallies[message.key] ?? [], key: message.key, bytes: left)
            left -= fitted.bytes
            if !fitted.tallies.isEmpty { keptTallies[message.key] = fitted.tallies }
        }
        return (kept.reversed(), keptTallies)
    }

    /// The first of a message's `tallies` that fit in `bytes`, and the bytes they take.
    static func fitTallies(_ tallies: [Chat.Tally], key: String, bytes: Int) -> (tallies: [Chat.Tally], bytes: Int) {
        var used = 0
        var kept: [Chat.Tally] = []
        for tally in tallies {
            let tallySize = size(of: MessageReactions(key: key, tallies: [tally]))
            guard used + tallySize <= bytes else { break }
            used += tallySize
            kept.append(tally)
        }
        return (kept, used)
    }

    private static func size(of value: some Encodable) -> Int {
        (try? encoder.encode(value).count) ?? Int.max
    }

    /// The bytes of the largest `opened` frame `puzzle` can make (without a conversation).
    static func largestOpenedBytes(_ puzzle: Puzzle) -> Int {
        let author = String(repeating: "a", count: 32)
        let squares = puzzle.letterPositions.map { position in
            SquareView(
                row: position.row, col: position.col, letter: puzzle.cell(at: position).solution ?? "W", pencil: true,
                verdict: .checkedWrong, authorID: author)
        }
        let state = GameStateView(
            gameID: author, squares: squares, completion: nil, scoreboard: nil, canUndo: true, canRedo: true,
            timer: TimerView(seconds: 0, countsFor: 0))
        let opened = GameOpened(state, layout: PuzzleLayout(puzzle), players: [], me: author, deviceID: author, readOnly: false)
        return encodeWhole(.opened(opened)).utf8.count
    }

    /// Refuses a puzzle whose largest frame would take more than half of a socket's buffer, so
    /// that a game that is accepted can always be opened: checked when a game is created,
    /// against the frame as it would be with every square filled and marked.
    static func check(_ puzzle: Puzzle, socketBufferBytes: Int) throws {
        let bytes = largestOpenedBytes(puzzle)
        guard bytes <= socketBufferBytes / 2 else {
            throw APIError(
                .limitExceeded,
                "this \(puzzle.width)×\(puzzle.height) puzzle is too large to play here (\(bytes / 1024) KB to send to a browser, at most \(socketBufferBytes / 2048) KB)"
            )
        }
    }
}
