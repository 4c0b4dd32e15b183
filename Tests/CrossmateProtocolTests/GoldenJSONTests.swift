import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation
import Testing

/// Literal JSON documents as clients send and receive them today. If a type's encoding changes,
/// these fail: an older client would no longer understand the server (or the reverse).
@Suite struct GoldenJSONTests {
    func roundTrip<T: Codable & Equatable>(_ type: T.Type, _ json: String) throws -> T {
        let decoded = try JSONDecoder().decode(T.self, from: Data(json.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let reencoded = String(decoding: try encoder.encode(decoded), as: UTF8.self)
        #expect(reencoded == json)
        return decoded
    }

    @Test func moveRecord() throws {
        let json =
            #"{"authorID":"acct-ann","batchID":"dev-1:7","cellAuthorID":"acct-ann","col":3,"gameID":"game-1","kind":"input","letter":"XYZ","mark":1,"prevSeqAtCell":4,"replicaID":"dev-1","row":2,"seq":7,"targetSeq":null,"timestamp":{"counter":1,"wallMillis":1794890000000}}"#
        let jsonWithoutNull = json.replacingOccurrences(of: #""targetSeq":null,"#, with: "")
        let record = try roundTrip(MoveRecord.self, jsonWithoutNull)
        let move = try record.move()
        #expect(move.position == GridPosition(row: 2, col: 3))
        #expect(move.mark == .pencil)
        #expect(move.kind == .input)
        #expect(move.timestamp == HLCTimestamp(wallMillis: 1_794_890_000_000, counter: 1))
        #expect(MoveRecord(move) == record)
    }

    /// The timestamp is two numbers a JavaScript client holds exactly; a plain number (the old
    /// packed form, or Unix milliseconds in the wrong place) and out-of-range parts are refused.
    @Test func timestampsOutOfShapeOrRangeAreRefused() throws {
        let move =
            #"{"authorID":"a","batchID":"b","cellAuthorID":"","col":0,"gameID":"g","kind":"input","letter":"A","mark":0,"replicaID":"r","row":0,"seq":1,"timestamp":TS}"#
        for bad in [
            "1794890000000", "117629911040000001", #""1794890000000""#, #"{"wallMillis":1794890000000}"#,
            #"{"counter":0,"wallMillis":-1}"#, #"{"counter":0,"wallMillis":281474976710656}"#,
            #"{"counter":65536,"wallMillis":1794890000000}"#, #"{"counter":0,"wallMillis":1.5}"#,
        ] {
            let json = move.replacingOccurrences(of: "TS", with: bad)
            #expect(throws: DecodingError.self, "\(bad)") { try JSONDecoder().decode(MoveRecord.self, from: Data(json.utf8)) }
            let push = #"{"gameID":"g","id":1,"moves":[MOVE],"type":"push"}"#.replacingOccurrences(of: "MOVE", with: json)
            #expect(throws: DecodingError.self, "\(bad)") { try ClientSocketMessage.decode(push) }
        }
        let largest = move.replacingOccurrences(of: "TS", with: #"{"counter":65535,"wallMillis":281474976710655}"#)
        #expect(try roundTrip(MoveRecord.self, largest).timestamp == HLCTimestamp(wallMillis: HLCTimestamp.maximumWall, counter: .max))
    }

    /// Every response carries the server's time.
    @Test func responsesCarryTheServerTime() throws {
        _ = try roundTrip(MeResponse.self, #"{"account":{"authorID":"acct-ann","displayName":"Ann"},"deviceID":"dev-1","serverTime":5}"#)
        _ = try roundTrip(LinkCodeResponse.self, #"{"code":"c","expiresAt":600005,"serverTime":5}"#)
        _ = try roundTrip(
            InvitationResponse.self, #"{"expiresAt":3600005,"gameID":"game-1","linkID":"link-1","path":"/join/t","serverTime":5,"token":"t"}"#)
        _ = try roundTrip(
            InvitationListResponse.self,
            #"{"links":[{"canRevoke":true,"createdAt":4,"createdBy":"acct-1","createdByName":"Ana","linkID":"link-1"}],"maxLinks":20,"serverTime":5}"#
        )
        _ = try roundTrip(
            InvitationPreview.self,
            #"{"gameID":"game-1","invitedBy":"Ana","joined":false,"players":["Ana","Ben"],"serverTime":5,"title":"Daybreak"}"#)
        _ = try roundTrip(
            CompletionResponse.self, #"{"completion":{"at":{"counter":2,"wallMillis":4},"by":"acct-ann","kind":"resigned"},"serverTime":5}"#)
        _ = try roundTrip(
            GameSummary.self,
            #"{"filled":3,"gameID":"game-1","height":5,"ownerID":"acct-ann","readOnly":false,"role":"owner","serverTime":5,"title":"T","token":"djE6Z2FtZS0xOjQy","total":21,"width":5}"#
        )
        // A page of games and the cursor to the next: "createdAt:gameID", base64url.
        let page = try roundTrip(GameListResponse.self, #"{"games":[],"next":"MTc5NDg5MDAwMDAwMDpnYW1lLTE","serverTime":5}"#)
        #expect(page.next == GameListCursor(createdAt: 1_794_890_000_000, gameID: "game-1"))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(GameListResponse.self, from: Data(#"{"games":[],"next":"!!","serverTime":5}"#.utf8))
        }
    }

    @Test func moveRecordWithUnknownKindOrMarkIsRefused() throws {
        var record = try JSONDecoder().decode(
            MoveRecord.self,
            from: Data(
                #"{"authorID":"a","batchID":"b","cellAuthorID":"","col":0,"gameID":"g","kind":"teleport","letter":"","mark":0,"replicaID":"r","row":0,"seq":1,"timestamp":{"counter":0,"wallMillis":1}}"#
                    .utf8))
        #expect(throws: ErrorBody(.invalid, "unknown move kind \"teleport\"")) { try record.move() }
        record.kind = "input"
        record.mark = 9
        #expect(throws: ErrorBody(.invalid, "unknown mark code 9")) { try record.move() }
    }

    @Test func zoneChanges() throws {
        _ = try roundTrip(
            ZoneChange.self,
            #"{"record":{"authorID":"acct-bob","displayName":"Bob","gameID":"game-1","revoked":true,"role":"player"},"sequence":12,"type":"participant"}"#
        )
        _ = try roundTrip(ZoneChange.self, #"{"record":{"gameID":"game-1","lastSeq":40,"replicaID":"dev-2"},"sequence":13,"type":"seal"}"#)
        _ = try roundTrip(
            ZoneChange.self,
            #"{"record":{"at":1700000000000,"authorID":"acct-1","gameID":"game-1","replicaID":"dev-2"},"sequence":14,"type":"pause"}"#)
        _ = try roundTrip(
            ZoneChange.self,
            #"{"record":{"authorID":"a","batchID":"b","cellAuthorID":"","col":0,"gameID":"g","kind":"clear","letter":"","mark":0,"replicaID":"r","row":0,"seq":1,"timestamp":{"counter":0,"wallMillis":1}},"sequence":3,"type":"move"}"#
        )
        _ = try roundTrip(
            ZoneChange.self,
            #"{"record":{"authorID":"acct-1","gameID":"game-1","messageID":"m1","replicaID":"dev-2","text":"try 17 Across","timestamp":{"counter":0,"wallMillis":1700000000000}},"sequence":15,"type":"message"}"#
        )
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ZoneChange.self, from: Data(#"{"record":{},"sequence":1,"type":"sorcery"}"#.utf8))
        }
    }

    /// The hand-spliced change list (pokes, change pages) is byte for byte what the encoder makes
    /// of the same changes decoded, for every kind of record, and each change decodes back.
    @Test func encodedChangesSpliceAsTheEncoderWrites() throws {
        let puzzle = try Puzzle(title: "Two / \"quoted\"", width: 2, height: 1, cells: [.letter("A"), .letter("B")], across: [], down: [])
        var replica = GameReplica(puzzle: puzzle, gameID: "g", replicaID: "dev-1", authorID: "acct-1")
        let move = try #require(try replica.perform(.setLetter(GridPosition(row: 0, col: 1), "B"), wallMillis: 9).first)
        let changes: [ZoneChange] = [
            ZoneChange(sequence: 1, record: .game(GameRecord(gameID: "g", ownerID: "acct-1", createdAt: 5, puzzle: puzzle))),
            ZoneChange(sequence: 2, record: .participant(ParticipantRecord(gameID: "g", authorID: "acct-1", displayName: "Ann \u{1}", role: .owner))),
            ZoneChange(sequence: 3, record: .move(MoveRecord(move))),
            ZoneChange(sequence: 4, record: .seal(Seal(gameID: "g", replicaID: "dev-1", lastSeq: 1))),
            ZoneChange(sequence: 5, record: .pause(Pause(gameID: "g", authorID: "acct-1", replicaID: "dev-1", at: 10))),
            ZoneChange(
                sequence: 6,
                record: .message(
                    ChatMessage(
                        gameID: "g", authorID: "acct-1", replicaID: "dev-1", messageID: "m-1", text: "\"17\" / 3\u{2028} \u{1F440}",
                        timestamp: HLCTimestamp(wallMillis: 11, counter: 2)))),
            ZoneChange(
                sequence: 7,
                record: .reaction(
                    Reaction(gameID: "g", authorID: "acct-1", messageKey: "dev-1:m-1", emoji: "👍🏽", on: true, timestamp: HLCTimestamp(wallMillis: 12)))
            ),
            ZoneChange(
                sequence: 8,
                record: .flag(
                    ClueFlag(gameID: "g", authorID: "acct-1", number: 17, direction: .down, on: false, timestamp: HLCTimestamp(wallMillis: 13)))
            ),
        ]
        #expect(Set(changes.map(\.record.kind)) == Set(ZoneChange.Record.Kind.allCases))
        let encoded = changes.map(EncodedChange.init)
        #expect(EncodedChange.list(encoded) == JSONText.sorted(changes))
        #expect(EncodedChange.list([]) == JSONText.sorted([ZoneChange]()))
        #expect(try encoded.map { try $0.decoded() } == changes)
        #expect(changes.map(\.record.key) == ["game", "acct-1", "dev-1:1", "dev-1", "dev-1:10", "dev-1:m-1", "acct-1|dev-1:m-1|👍🏽", "acct-1|17D"])
        #expect(throws: DecodingError.self) { try EncodedChange(sequence: 6, kind: .seal, json: #"{"lastSeq":"x"}"#).decoded() }

        // The messages spliced around them, each against its Codable twin.
        let token = ChangeToken(zone: "g\"/1", sequence: 5)
        let after = ChangeToken(zone: "g\"/1", sequence: 0)
        #expect(
            ChangesResponse.json(changes: encoded, token: token, moreComing: true, serverTime: 77)
                == JSONText.sorted(ChangesResponse(changes: changes, token: token, moreComing: true, serverTime: 77)))
        #expect(
            ServerSocketMessage.pokeJSON(zone: "g\"/1", token: token, after: after, changes: encoded)
                == JSONText.sorted(ServerSocketMessage.poke(zone: "g\"/1", token: token, after: after, changes: changes)))
        #expect(ServerSocketMessage.pokeJSON(zone: "g", token: token) == JSONText.sorted(ServerSocketMessage.poke(zone: "g", token: token)))
        let relayed = ServerSocketMessage.relayJSON(zone: "g\"/1", after: after, changes: encoded, committed: after)
        #expect(relayed == JSONText.sorted(ServerSocketMessage.relay(zone: "g\"/1", after: after, changes: changes, committed: after)))
        #expect(
            try JSONDecoder().decode(ServerSocketMessage.self, from: Data(relayed.utf8))
                == .relay(zone: "g\"/1", after: after, changes: changes, committed: after))
        let pushed = PushMovesResponse(
            results: [
                RecordResult(replicaID: "dev-\"1", seq: 1, status: .saved, sequence: 3),
                RecordResult(replicaID: "dev-\"1", seq: 2, status: .duplicate),
            ], token: token, completion: nil, serverTime: 78)
        #expect(
            ServerSocketMessage.pushedJSON(id: 4, gameID: "g/1", response: pushed)
                == JSONText.sorted(ServerSocketMessage.pushed(id: 4, gameID: "g/1", response: pushed)))
        var refused = pushed
        refused.results.append(RecordResult(replicaID: "dev-1", seq: 3, status: .rejected, error: ErrorBody(.invalid, "no")))
        #expect(ServerSocketMessage.pushedJSON(id: 4, gameID: "g/1", response: refused) == nil)
        #expect(ClientSocketMessage.pingJSON == JSONText.sorted(ClientSocketMessage.ping))
    }

    @Test func errorBodies() throws {
        _ = try roundTrip(ErrorBody.self, #"{"error":"clockSkew","message":"too far ahead","serverTime":1794890000000}"#)
        let plain = try roundTrip(ErrorBody.self, #"{"error":"rateLimited","message":"slow down"}"#)
        #expect(plain.error == .rateLimited)
        #expect(
            Set(ErrorCode.allCases.map(\.rawValue)) == [
                "unauthorized", "forbidden", "notFound", "readOnly", "limitExceeded",
                "rateLimited", "clockSkew", "invalid", "gone", "serverError",
            ])
    }

    @Test func pushResponse() throws {
        _ = try roundTrip(
            PushMovesResponse.self,
            #"{"completion":{"at":{"counter":0,"wallMillis":1794890000000},"by":"acct-ann","kind":"solved"},"results":[{"replicaID":"dev-1","seq":1,"sequence":41,"status":"saved"},{"error":{"error":"invalid","message":"gap"},"replicaID":"dev-1","seq":3,"status":"rejected"}],"serverTime":1794890000000,"token":"djE6Z2FtZS0xOjQy"}"#
        )
    }

    @Test func changeTokensAreOpaqueAndChecked() throws {
        let token = ChangeToken(zone: "game-1", sequence: 42)
        #expect(token.encoded == "djE6Z2FtZS0xOjQy")
        #expect(ChangeToken(encoded: token.encoded) == token)
        for junk in ["", "!!!", "djE6Z2FtZS0xOi0x", String(repeating: "A", count: 300), "bm90IGEgdG9rZW4", "djE6Z2FtZS0xOjQy==", "djE6Z2FtZS0xOjQz/"]
        {
            #expect(ChangeToken(encoded: junk) == nil, "\(junk)")
        }
    }

    /// Token decoding reads bytes in place; it must accept exactly what splitting the text at
    /// its colons accepts.
    @Test func changeTokensDecodeAsTheirDefinitionSays() {
        func byDefinition(_ bytes: [UInt8]) -> ChangeToken? {
            guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "v1", !parts[1].isEmpty, let sequence = Int64(parts[2]), sequence >= 0 else { return nil }
            return ChangeToken(zone: String(parts[1]), sequence: sequence)
        }
        var random = SeededRandomNumberGenerator(seed: 65)
        let pieces: [[UInt8]] =
            ["v1", "v2", ":", "game-1", "é", "42", "+7", "-0", "-3", "", "9223372036854775808", " 1"].map { Array($0.utf8) } + [[0xFF], [0xC3]]
        var accepted = 0
        for _ in 0..<5_000 {
            func some(_ count: ClosedRange<Int>) -> [UInt8] {
                (0..<Int.random(in: count, using: &random)).flatMap { _ in pieces.randomElement(using: &random)! }
            }
            // Mostly token-shaped (prefix, colon, zone, colon, number), with stray pieces anywhere.
            let bytes =
                (Bool.random(using: &random) ? Array("v1".utf8) : some(0...2)) + Array(":".utf8) + some(0...2)
                + Array(":".utf8) + some(1...2)
            let decoded = ChangeToken(encoded: Base64URL.encode(bytes))
            #expect(decoded == byDefinition(bytes), "\(String(decoding: bytes, as: UTF8.self))")
            if decoded != nil { accepted += 1 }
        }
        #expect(accepted > 50)
    }

    @Test func base64URLAgreesWithFoundation() throws {
        var random = SeededRandomNumberGenerator(seed: 64)
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected)
            #expect(Base64URL.decode(expected) == bytes)
        }
        // One character short of a byte, a stray padding character, and low bits left over.
        for junk in ["A", "AAAAA", "AA=", "AB", "A+/a"] { #expect(Base64URL.decode(junk) == nil, "\(junk)") }
    }

    @Test func socketMessages() throws {
        _ = try roundTrip(ClientSocketMessage.self, #"{"games":["game-1","game-2"],"type":"subscribe"}"#)
        _ = try roundTrip(ClientSocketMessage.self, #"{"cursor":{"col":4,"direction":"across","row":2},"gameID":"game-1","type":"cursor"}"#)
        _ = try roundTrip(ClientSocketMessage.self, #"{"type":"ping"}"#)
        _ = try roundTrip(
            ClientSocketMessage.self,
            #"{"gameID":"game-1","id":7,"moves":[{"authorID":"a","batchID":"b","cellAuthorID":"a","col":0,"gameID":"game-1","kind":"input","letter":"Q","mark":0,"replicaID":"r","row":0,"seq":1,"timestamp":{"counter":0,"wallMillis":1}}],"type":"push"}"#
        )
        _ = try roundTrip(
            ServerSocketMessage.self,
            #"{"gameID":"game-1","id":7,"response":{"results":[{"replicaID":"r","seq":1,"sequence":42,"status":"saved"}],"serverTime":5,"token":"djE6Z2FtZS0xOjQy"},"type":"pushed"}"#
        )
        _ = try roundTrip(
            ServerSocketMessage.self,
            #"{"error":{"error":"rateLimited","message":"slow down"},"gameID":"game-1","id":8,"retryAfterSeconds":2,"type":"pushFailed"}"#)
        _ = try roundTrip(ServerSocketMessage.self, #"{"token":"djE6Z2FtZS0xOjQy","type":"poke","zone":"game-1"}"#)
        _ = try roundTrip(
            ServerSocketMessage.self,
            #"{"devices":[{"authorID":"acct-1","cursor":{"col":2,"direction":"down","row":1},"deviceID":"dev-1"},{"authorID":"acct-2","deviceID":"dev-2"}],"gameID":"game-1","type":"here"}"#
        )
        let inline = try roundTrip(
            ServerSocketMessage.self,
            #"{"after":"djE6Z2FtZS0xOjQx","changes":[{"record":{"authorID":"a","batchID":"b","cellAuthorID":"a","col":0,"gameID":"game-1","kind":"input","letter":"Q","mark":0,"replicaID":"r","row":0,"seq":1,"timestamp":{"counter":0,"wallMillis":1}},"sequence":42,"type":"move"}],"token":"djE6Z2FtZS0xOjQy","type":"poke","zone":"game-1"}"#
        )
        guard case let .poke(_, token, after, changes) = inline else {
            Issue.record("not a poke")
            return
        }
        #expect(after?.sequence == 41 && token.sequence == 42 && changes?.map(\.sequence) == [42])
        _ = try roundTrip(
            ServerSocketMessage.self,
            #"{"authorID":"acct-bob","cursor":{"col":1,"direction":"down","row":0},"deviceID":"dev-9","gameID":"game-1","type":"cursor"}"#)
        _ = try roundTrip(ServerSocketMessage.self, #"{"serverTime":5,"type":"pong"}"#)
        _ = try roundTrip(ServerSocketMessage.self, #"{"error":{"error":"forbidden","message":"no"},"type":"error"}"#)
    }

    @Test func snapshotShape() throws {
        let move = Move(
            gameID: "g", replicaID: "r", authorID: "a", seq: 1, timestamp: HLCTimestamp(wallMillis: 1), position: GridPosition(row: 0, col: 1),
            letter: "Q", cellAuthorID: "a", kind: .input, batchID: "b")
        let snapshot = Snapshot.build(width: 2, height: 1, moves: [move])
        let json =
            #"{"coverage":{"r":1},"grid":{"cells":[{"cellAuthorID":"","letter":"","mark":{"isPencil":false,"verdict":0}},{"cellAuthorID":"a","key":{"authorID":"a","replicaID":"r","seq":1,"timestamp":{"counter":0,"wallMillis":1}},"letter":"Q","mark":{"isPencil":false,"verdict":0}}],"height":1,"width":2},"tally":{"help":{},"lastGesture":{},"moveTimes":{"a":[1]}}}"#
        #expect(try roundTrip(Snapshot.self, json) == snapshot)
    }

    /// A browser's commands and the server's answers (the browser holds no rules: it sends
    /// commands and draws the squares it is sent).
    @Test func browserMessages() throws {
        _ = try roundTrip(ClientSocketMessage.self, #"{"gameID":"game-1","type":"open"}"#)
        _ = try roundTrip(ClientSocketMessage.self, #"{"gameID":"game-1","type":"close"}"#)
        _ = try roundTrip(ClientSocketMessage.self, #"{"gameID":"game-1","type":"viewing","viewing":true}"#)
        _ = try roundTrip(
            ServerSocketMessage.self,
            #"{"nudge":{"createdAt":5,"fromAuthor":"acct-ann","fromName":"Ann","gameID":"game-1","message":"help with 5A","nudgeID":"nudge-1"},"type":"nudge"}"#
        )
        let command = try roundTrip(
            ClientSocketMessage.self,
            #"{"command":{"col":2,"kind":"setLetter","letter":"QU","pencil":true,"row":1},"gameID":"game-1","id":7,"type":"command","typedAt":1794890000000}"#
        )
        guard case let .command(request) = command else {
            Issue.record("not a command")
            return
        }
        #expect(try request.command.command().get() == .setLetter(GridPosition(row: 1, col: 2), "QU", pencil: true))
        _ = try roundTrip(
            ClientSocketMessage.self,
            #"{"command":{"col":0,"direction":"down","kind":"check","row":3,"scope":"word"},"gameID":"game-1","id":8,"type":"command"}"#)
        #expect(
            try BrowserCommand(kind: "check", row: 3, col: 0, scope: .word, direction: .down).command().get()
                == .check(.word(GridPosition(row: 3, col: 0), .down)))
        #expect(try BrowserCommand(kind: "reveal", scope: .puzzle).command().get() == .reveal(.puzzle))
        #expect(try BrowserCommand(kind: "undo").command().get() == .undo)
        // Typed, once: each kind with exactly what it needs, or a refusal naming what is missing.
        #expect(try BrowserCommand(kind: "undo").action().get() == .perform(.undo))
        #expect(try BrowserCommand(kind: "pause").action().get() == .pause)
        #expect(try BrowserCommand(kind: "chat", text: "hi", messageID: "m1").action().get() == .chat(text: "hi", messageID: "m1"))
        #expect(
            try BrowserCommand(kind: "react", messageKey: "k", emoji: "👍", on: true).action().get() == .react(messageKey: "k", emoji: "👍", on: true))
        #expect(
            try BrowserCommand(kind: "flag", row: 1, col: 2, direction: .across, on: false).action().get()
                == .flag(GridPosition(row: 1, col: 2), .across, on: false))
        guard case let .failure(refusal) = BrowserCommand(kind: "flag", row: 1, col: 2, on: true).action() else {
            Issue.record("a flag without its direction was taken")
            return
        }
        #expect(refusal.reason == "that command is incomplete (flag needs row, col, direction and on)")
        guard case let .failure(unknown) = BrowserCommand(kind: "dance").action() else {
            Issue.record("an unknown kind was taken")
            return
        }
        #expect(unknown.reason.contains(#""dance" is not a command"#))
        let square = #"{"authorID":"acct-ann","col":2,"letter":"QU","pencil":true,"row":1,"verdict":"none"}"#
        _ = try roundTrip(
            ServerSocketMessage.self,
            #"{"answer":{"canRedo":false,"canUndo":true,"gameID":"game-1","id":7,"squares":[SQUARE],"timer":{"countsFor":60,"seconds":12}},"type":"applied"}"#
                .replacingOccurrences(of: "SQUARE", with: square))
        _ = try roundTrip(
            ServerSocketMessage.self,
            #"{"refusal":{"code":"squareRevealed","gameID":"game-1","id":8,"reason":"that square was revealed: its answer stays"},"type":"refused"}"#
        )
        _ = try roundTrip(
            ServerSocketMessage.self,
            ##"{"game":{"canRedo":false,"canUndo":false,"completion":{"at":{"counter":0,"wallMillis":4},"by":"acct-bob","kind":"solved"},"gameID":"game-1","players":[{"authorID":"acct-bob","color":"#2563c9","displayName":"Bob","here":1,"removed":false,"role":"player","symbol":"★"}],"readOnly":false,"scoreboard":[{"authorID":"acct-bob","checksUsed":0,"lettersAuthored":21,"revealsUsed":1,"squaresChecked":0,"squaresRevealed":3}],"squares":[SQUARE],"timer":{"countsFor":0,"seconds":300}},"type":"update"}"##
                .replacingOccurrences(of: "SQUARE", with: square))
        let opened = try roundTrip(
            ServerSocketMessage.self,
            #"{"game":{"canRedo":false,"canUndo":false,"catchUp":{"sentence":"Bob filled 2 squares","squares":[[1,2],[1,3]]},"deviceID":"dev-1","gameID":"game-1","layout":{"across":[{"cells":[[0,0],[0,1]],"number":1,"text":"Hi"}],"author":"A","copyright":"","down":[],"hasSolution":true,"height":1,"notes":"","squares":[{"kind":"letter","number":1},{"circled":true,"kind":"letter"},{"kind":"block"}],"title":"T","width":3},"me":"acct-ann","players":[],"readOnly":false,"squares":[SQUARE],"timer":{"countsFor":0,"seconds":0}},"type":"opened"}"#
                .replacingOccurrences(of: "SQUARE", with: square))
        guard case let .opened(game) = opened else {
            Issue.record("not opened")
            return
        }
        #expect(game.layout.squares.map(\.kind) == ["letter", "letter", "block"])
    }
}
