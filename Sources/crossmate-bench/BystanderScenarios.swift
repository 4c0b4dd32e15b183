import AsyncHTTPClient
import CrossmateCore
import CrossmateFormats
import CrossmateProtocol
import CrossmateSync
import Foundation
import Synchronization

/// The floods of `crossmate-bench bystander` beyond replays and stats: what one account (or
/// two) may do as fast as the limits allow, while Bob types and is called back.
///
/// - `exports`: Fay and Gus each have `exportGames` games of a 58×58 grid and ask for the zip
///   of all their games as often as their allowance lets them (2 at once).
/// - `tarpit`: Mal's four devices name push endpoints that accept a connection and never
///   answer; Fay writes in a game of Mal's and Bob's once a second. Bob's notifications are the
///   measure (from the chat's request to the push reaching his local push service).
/// - `shared`: Mal, invited into Bob's game, pushes moves into it from four devices as fast as
///   his limits allow; Bob's pushes in the same game are the measure, and none may be refused.
struct BystanderScenarios {
    let api: API
    let puzzle: Puzzle

    /// A square puzzle of `side` × `side` with a block in every fourth square of every fourth
    /// row, as .ipuz bytes (uploads are parsed like a player's file).
    static func bigPuzzle(side: Int) throws -> [UInt8] {
        var cells: [Cell] = []
        for row in 0..<side {
            for col in 0..<side {
                let block = row % 4 == 3 && col % 4 == 3
                cells.append(block ? .block : Cell(kind: .letter, solution: String(UnicodeScalar(UInt8(65 + (row * 7 + col) % 26)))))
            }
        }
        let numbering = StandardNumbering(width: side, height: side, cells: cells)
        var texts: [Direction: [Int: String]] = [:]
        for direction in [Direction.across, .down] {
            for entry in numbering.entries(direction) { texts[direction, default: [:]][entry.number] = "Clue \(entry.number) \(direction)" }
        }
        let puzzle = try Puzzle(title: "Big \(side)", author: "Bench", width: side, height: side, cells: cells, clueTexts: texts)
        return try PuzzleFormat.ipuz.write(puzzle)
    }

    /// An account with `games` games of a `side` × `side` grid.
    func exporter(_ name: String, games: Int, side: Int) async throws -> DeviceSession {
        let session: DeviceSession = try await api.call(.POST, "/v1/accounts", json: CreateAccountRequest(displayName: name))
        let file = Data(try Self.bigPuzzle(side: side)).base64EncodedString()
        for _ in 0..<games {
            let _: GameSummary = try await api.call(
                .POST, "/v1/games", token: session.token, json: CreateGameRequest(fileName: "big.ipuz", fileBase64: file))
        }
        return session
    }

    /// Asks for `session`'s zip of all games until `end`, as often as the server takes it:
    /// the zips made, and how long each took.
    func exportLoop(_ session: DeviceSession, until end: ContinuousClock.Instant, counts: FloodCounts) async {
        while ContinuousClock.now < end {
            let started = ContinuousClock.now
            var request = HTTPClientRequest(url: api.base + "/v1/export?format=ipuz&fill=1")
            request.headers.add(name: "Authorization", value: "Bearer \(session.token)")
            do {
                let response = try await api.http.execute(request, timeout: .seconds(120))
                let body = try await response.body.collect(upTo: 256 << 20)
                if response.status.code == 200 {
                    counts.add(export: body.readableBytes, millis: (ContinuousClock.now - started).inSeconds * 1000)
                } else {
                    counts.add(refused: 1)
                    let wait = response.headers.first(name: "Retry-After").flatMap(Double.init) ?? 1
                    try? await Task.sleep(for: .seconds(min(wait, max(0, (end - ContinuousClock.now).inSeconds))))
                }
            } catch {
                counts.add(refused: 1)
            }
        }
    }

    /// Mal with four devices, each subscribed to a push endpoint that never answers.
    func tarpitted(_ tarpit: LocalListener) async throws -> [DeviceSession] {
        let mal: DeviceSession = try await api.call(.POST, "/v1/accounts", json: CreateAccountRequest(displayName: "Mal"))
        var devices = [mal]
        for _ in 0..<3 {
            let code: LinkCodeResponse = try await api.call(.POST, "/v1/devices/link-codes", token: mal.token)
            devices.append(try await api.call(.POST, "/v1/devices", json: LinkDeviceRequest(code: code.code)))
        }
        for device in devices {
            let _: PushSubscriptionResponse = try await api.call(
                .POST, "/v1/push/subscriptions", token: device.token,
                json: PushSubscriptionRequest(endpoint: "\(tarpit.origin)/push/\(device.deviceID)", keys: .init(p256dh: Self.p256dh, auth: Self.auth))
            )
        }
        return devices
    }

    /// A subscriber's keys (a fixed P-256 point and secret: the bench never decrypts).
    static let p256dh = Base64URL.encode(Array(P256Point.uncompressed))
    static let auth = Base64URL.encode([UInt8](repeating: 7, count: 16))

    /// Fay writes in `gameID` once a second until `end`; when each message was sent.
    func chatLoop(_ fay: DeviceSession, gameID: String, until end: ContinuousClock.Instant, sent: SentTimes) async {
        var number = 0
        while ContinuousClock.now < end {
            let started = ContinuousClock.now
            number += 1
            let id = "m\(number)"
            sent.times.withLock { $0.append(started) }
            let body = PostMessageRequest(
                messageID: id, text: "tick \(number)", timestamp: HLCTimestamp(wallMillis: BystanderBench.now(), counter: 0))
            let _: PostMessageResponse? = try? await api.call(.POST, "/v1/games/\(gameID)/messages", token: fay.token, json: body)
            try? await Task.sleep(until: started + .seconds(1))
        }
    }

    /// Mal's devices push moves into `gameID` as fast as the server answers until `end`.
    func moveFlood(_ devices: [DeviceSession], gameID: String, until end: ContinuousClock.Instant, counts: FloodCounts) async {
        await withTaskGroup(of: Void.self) { group in
            for device in devices {
                group.addTask {
                    var replica = GameReplica(puzzle: puzzle, gameID: gameID, replicaID: device.deviceID, authorID: device.account.authorID)
                    let squares = puzzle.letterPositions
                    var index = 0
                    var unsent: [Move] = []
                    while ContinuousClock.now < end {
                        while unsent.count < ProtocolLimits.maximumRecordsPerBatch {
                            guard
                                let made = try? replica.perform(
                                    .setLetter(squares[index % squares.count], index % 2 == 0 ? "X" : "Y", pencil: false),
                                    wallMillis: BystanderBench.now())
                            else { break }
                            unsent += made
                            index += 1
                        }
                        do {
                            let answer: PushMovesResponse = try await api.call(
                                .POST, "/v1/games/\(gameID)/moves", token: device.token, json: PushMovesRequest(moves: unsent.map(MoveRecord.init)))
                            counts.add(floodMoves: answer.results.count { $0.status == .saved })
                            unsent = []
                        } catch {
                            counts.add(refused: 1)
                            try? await Task.sleep(for: .milliseconds(200))
                        }
                    }
                }
            }
        }
    }
}

/// When each chat message was sent, in order.
final class SentTimes: Sendable {
    let times = Mutex<[ContinuousClock.Instant]>([])
}

/// A fixed valid P-256 public key (the generator point), for subscriptions nobody decrypts.
enum P256Point {
    static let uncompressed: [UInt8] =
        [0x04]
        + [
            0x6B, 0x17, 0xD1, 0xF2, 0xE1, 0x2C, 0x42, 0x47, 0xF8, 0xBC, 0xE6, 0xE5, 0x63, 0xA4, 0x40, 0xF2, 0x77, 0x03, 0x7D, 0x81, 0x2D, 0xEB,
            0x33, 0xA0, 0xF4, 0xA1, 0x39, 0x45, 0xD8, 0x98, 0xC2, 0x96,
        ]
        + [
            0x4F, 0xE3, 0x42, 0xE2, 0xFE, 0x1A, 0x7F, 0x9B, 0x8E, 0xE7, 0xEB, 0x4A, 0x7C, 0x0F, 0x9E, 0x16, 0x2B, 0xCE, 0x33, 0x57, 0x6B, 0x31,
            0x5E, 0xCE, 0xCB, 0xB6, 0x40, 0x68, 0x37, 0xBF, 0x51, 0xF5,
        ]
}

/// A local TCP listener standing in for a push service: `answering` takes each request and
/// answers 201, noting when each path was first reached; a tarpit accepts and never answers.
final class LocalListener: @unchecked Sendable {
    let port: Int
    private let descriptor: Int32
    private let answering: Bool
    private let state = Mutex<(arrivals: [String: [ContinuousClock.Instant]], held: [Int32], stopped: Bool)>(([:], [], false))

    var origin: String { "http://127.0.0.1:\(port)" }

    init(answering: Bool) throws {
        self.answering = answering
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound, listen(descriptor, 128) == 0 else { throw BenchFailure("could not listen for pushes") }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    /// When each request to `path` arrived, in order.
    func arrivals(_ path: String) -> [ContinuousClock.Instant] { state.withLock { $0.arrivals[path] ?? [] } }

    func stop() {
        let held = state.withLock { state -> [Int32] in
            state.stopped = true
            return state.held
        }
        for connection in held { close(connection) }
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { return }
            if !answering {
                let stopped = state.withLock { state -> Bool in
                    state.held.append(connection)
                    return state.stopped
                }
                if stopped { close(connection) }
                continue
            }
            Thread { [self] in answer(connection) }.start()
        }
    }

    private func answer(_ connection: Int32) {
        defer { close(connection) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8_192)
        while true {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            received += buffer[0..<count]
            let text = String(decoding: received, as: UTF8.self)
            guard let headEnd = text.range(of: "\r\n\r\n") else { continue }
            let head = text[..<headEnd.lowerBound]
            let length =
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            guard received.count - text.utf8.distance(from: text.startIndex, to: headEnd.upperBound) >= length else { continue }
            let path = String(head.split(separator: " ").dropFirst().first ?? "")
            state.withLock { $0.arrivals[path, default: []].append(.now) }
            let reply = Array("HTTP/1.1 201 Created\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
            _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, reply.count) }
            return
        }
    }
}
