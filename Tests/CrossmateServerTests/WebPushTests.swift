import CrossmateProtocol
import CrossmateStore
import Crypto
import Foundation
import Testing

@testable import CrossmateServer

/// Web Push's cryptography, checked by undoing it as a browser would (RFC 8291 §3, RFC 8188),
/// and the endpoints a subscription may name. (The whole path, decrypted by the independent
/// `http-ece` and `py-vapid`, is Tests/oracle/webpush_oracle.py.)
@Suite struct WebPushTests {
    @Test func aMessageDecryptsWithTheSubscribersKeys() throws {
        let browser = P256.KeyAgreement.PrivateKey()
        let auth = (0..<16).map { UInt8($0 * 7) }
        let keys = try WebPush.SubscriberKeys(
            p256dh: Base64URL.encode(Array(browser.publicKey.x963Representation)), auth: Base64URL.encode(auth))
        let plaintext = Array(#"{"type":"chat","body":"Ana: hi"}"#.utf8)
        let body = try WebPush.encrypt(plaintext, for: keys)

        // The header: salt, record size 4096, the server's 65-byte key.
        let salt = Array(body[0..<16])
        #expect(Array(body[16..<20]) == [0, 0, 0x10, 0])
        #expect(body[20] == 65)
        let server = try P256.KeyAgreement.PublicKey(x963Representation: body[21..<86])
        // The browser's side: the same secret from its private key and the server's public one.
        let shared = try browser.sharedSecretFromKeyAgreement(with: server).withUnsafeBytes { Array($0) }
        let info = Array("WebPush: info".utf8) + [0] + Array(browser.publicKey.x963Representation) + Array(server.x963Representation)
        let ikm = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: shared), salt: auth, info: info, outputByteCount: 32)
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let cek = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        let record = Array(body[86...])
        let box = try AES.GCM.SealedBox(
            nonce: try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Array($0) }), ciphertext: record.dropLast(16), tag: record.suffix(16))
        let opened = Array(try AES.GCM.open(box, using: cek))
        #expect(opened == plaintext + [2])
        #expect(body.count <= 4_096)
    }

    @Test func theVAPIDTokenIsSignedForTheEndpointsOrigin() throws {
        let key = P256.Signing.PrivateKey()
        let header = try WebPush.vapidAuthorization(
            endpoint: URL(string: "https://push.example.com:8443/send/abc")!, key: key, subject: "mailto:ops@example.com", now: 1_000)
        let parts = header.split(separator: " ")
        #expect(parts.first == "vapid")
        let token = String(parts[1].dropFirst(2).dropLast())  // "t=…,"
        let k = String(parts[2].dropFirst(2))
        #expect(Base64URL.decode(k) == Array(key.publicKey.x963Representation))
        let pieces = token.split(separator: ".").map(String.init)
        #expect(pieces.count == 3)
        let claims = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(pieces[1])!)) as! [String: Any]
        #expect(claims["aud"] as? String == "https://push.example.com:8443")
        #expect(claims["exp"] as? Int == 1_000 + 12 * 3_600)
        #expect(claims["sub"] as? String == "mailto:ops@example.com")
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Base64URL.decode(pieces[2])!)
        #expect(key.publicKey.isValidSignature(signature, for: Array((pieces[0] + "." + pieces[1]).utf8)))
    }

    @Test func subscriberKeysThatAreNotKeysAreRefusedInWords() {
        #expect(throws: APIError.self) { try WebPush.SubscriberKeys(p256dh: "AAAA", auth: Base64URL.encode([UInt8](repeating: 1, count: 16))) }
        let point = Base64URL.encode(Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation))
        #expect(throws: APIError.self) { try WebPush.SubscriberKeys(p256dh: point, auth: "AAAA") }
        #expect((try? WebPush.SubscriberKeys(p256dh: point, auth: Base64URL.encode([UInt8](repeating: 1, count: 16)))) != nil)
    }

    @Test func endpointsMustBePublicHTTPS() {
        let publicService = "https://fcm.googleapis.com/fcm/send/abc"
        #expect(PushNotifier.refusal(of: publicService, allowLoopback: false) == nil)
        for endpoint in [
            "http://fcm.googleapis.com/x", "https://127.0.0.1/x", "https://10.1.2.3/x", "https://192.168.0.1/x", "https://172.20.0.1/x",
            "https://169.254.169.254/latest", "https://localhost/x", "https://[::1]/x", "https://[fd00::1]/x", "https://intranet/x",
            "https://user:pw@push.example.com/x", "ftp://push.example.com/x", "not a url", "https://0.0.0.0/x",
            "https://push.example.com/" + String(repeating: "a", count: 1_100),
        ] {
            #expect(PushNotifier.refusal(of: endpoint, allowLoopback: false) != nil, "\(endpoint)")
        }
        #expect(PushNotifier.refusal(of: "http://127.0.0.1:9000/push", allowLoopback: false) != nil)
        #expect(PushNotifier.refusal(of: "http://127.0.0.1:9000/push", allowLoopback: true) == nil)
        #expect(PushNotifier.refusal(of: "http://10.0.0.1:9000/push", allowLoopback: true) != nil)
    }
}

/// Subscriptions in the store: one per device, replaced by the next, gone with the device.
@Suite struct PushSubscriptionStoreTests {
    @Test func aDevicesSubscriptionIsReplacedAndGoesWithTheDevice() async throws {
        try await withAnnsGames([]) { store in
            let first = StoredPushSubscription(deviceID: "phone", authorID: "ann", endpoint: "https://push.example.com/1", p256dh: "k", auth: "a")
            try await store.putPushSubscription(first, now: 1)
            var second = first
            second.endpoint = "https://push.example.com/2"
            try await store.putPushSubscription(second, now: 2)
            #expect(try await store.pushSubscriptions(of: ["ann"]) == [second])
            // A 410 for the old endpoint does not drop the new one.
            #expect(try await !store.deletePushSubscription(deviceID: "phone", endpoint: first.endpoint))
            #expect(try await store.pushSubscriptions(of: ["ann"]) == [second])
            #expect(try await store.revokeDevice("phone", of: "ann"))
            #expect(try await store.pushSubscriptions(of: ["ann"]).isEmpty)
        }
    }

    @Test func theServersSecretIsMadeOnceAndKept() async throws {
        try await withAnnsGames([]) { store in
            let made = try await store.serverSecret("vapid-p256") { "first" }
            let again = try await store.serverSecret("vapid-p256") { "second" }
            #expect(made == "first" && again == "first")
        }
    }
}

/// Where pushes may go, and in what order they go out.
@Suite struct PushDeliveryTests {
    @Test func addressesAreCheckedAsNumbersAfterResolving() async {
        // Every spelling of loopback the system's resolver understands resolves to loopback.
        for host in ["0177.0.0.1", "0x7f.1", "127.1", "0.0", "2130706433", "[0::1]", "[::ffff:7f00:1]", "localhost"] {
            if case .allowed = await PushAddress.check(host: host, port: 443, allowLoopback: false) { Issue.record("\(host) allowed") }
            guard case .allowed = await PushAddress.check(host: host, port: 443, allowLoopback: true) else {
                if host != "0.0" { Issue.record("\(host) is loopback, allowed in tests' mode") }
                continue
            }
        }
        let ipv4: [([UInt8], Bool)] = [
            ([8, 8, 8, 8], true), ([142, 250, 1, 1], true), ([10, 0, 0, 1], false), ([172, 16, 0, 1], false), ([172, 32, 0, 1], true),
            ([192, 168, 1, 1], false), ([169, 254, 169, 254], false), ([100, 64, 0, 1], false), ([100, 128, 0, 1], true), ([0, 1, 2, 3], false),
            ([224, 0, 0, 1], false), ([255, 255, 255, 255], false), ([198, 18, 0, 1], false), ([192, 0, 2, 1], false), ([127, 9, 9, 9], false),
        ]
        for (address, allowed) in ipv4 { #expect(PushAddress.isPublic(address) == allowed, "\(address)") }
        func v6(_ text: String) -> [UInt8] {
            var address = in6_addr()
            _ = inet_pton(AF_INET6, text, &address)
            return withUnsafeBytes(of: address) { Array($0) }
        }
        let ipv6: [(String, Bool)] = [
            ("2a00:1450:4001::200e", true), ("::1", false), ("::", false), ("::ffff:7f00:1", false), ("::ffff:8.8.8.8", true),
            ("64:ff9b::a00:1", false), ("64:ff9b::808:808", true), ("2002:a00:1::", false), ("2002:808:808::", true), ("fe80::1", false),
            ("fd00::1", false), ("ff02::1", false), ("2001:db8::1", false), ("2001::1", false), ("::127.0.0.1", false), ("100::1", false),
        ]
        for (text, allowed) in ipv6 { #expect(PushAddress.isPublic(v6(text)) == allowed, "\(text)") }
    }

    @Test func aFairQueueTakesKeysInTurnAndDropsTheOldestOfTheLongest() {
        var queue = FairQueue<Int>(perKey: 3, total: 5)
        for item in 1...3 { #expect(queue.push(item, key: "busy").isEmpty) }
        #expect(queue.push(4, key: "busy") == [1], "a key past its bound drops its own oldest")
        #expect(queue.push(10, key: "quiet").isEmpty)
        #expect(queue.push(20, key: "other").isEmpty)
        #expect(queue.push(21, key: "other") == [2], "a full queue drops the oldest of the longest")
        var order: [Int] = []
        while let (_, item) = queue.pop() { order.append(item) }
        #expect(order == [3, 10, 20, 4, 21])
    }

    func delivery(_ recipient: String, _ endpoint: String) -> PushDelivery {
        PushDelivery(
            recipient: recipient, subscription: StoredPushSubscription(deviceID: "d", authorID: recipient, endpoint: endpoint, p256dh: "", auth: ""),
            message: PushMessage(CallBackCandidate(event: .chat, gameID: "g", sender: "s", sequence: 1, text: "hi"), senderName: "S", title: "T"),
            queuedAt: .now)
    }

    @Test func oneSlowPlayerOrServiceNeverHoldsTheOthers() {
        let schedule = PushSchedule()
        for index in 0..<6 { _ = schedule.enqueue(delivery("mal", "https://tarpit.example/\(index)"), now: 0) }
        _ = schedule.enqueue(delivery("ben", "https://push.example/ben"), now: 0)
        var taken: [PushDelivery] = []
        while let next = schedule.next(now: 0) { taken.append(next) }
        // Mal's two in flight, then Ben's, though Mal's six were queued first.
        #expect(taken.map(\.recipient) == ["mal", "ben", "mal"])
        #expect(taken.filter { $0.recipient == "mal" }.count == Limits.pushesInFlightPerPlayer)
        // A tarpit that timed out rests, with its service: Mal's others are dropped, not sent.
        for mal in taken where mal.recipient == "mal" { schedule.finished(mal, .unreachable, now: 1_000) }
        #expect(schedule.next(now: 2_000) == nil)
        #expect(schedule.takeDropped().0.resting == 4)
        _ = schedule.enqueue(delivery("mal", "https://tarpit.example/late"), now: 2_000)
        #expect(schedule.next(now: 2_000) == nil, "the service rests")
        // Two failures in a row: the service rests 30 s, then 60 s.
        _ = schedule.enqueue(delivery("mal", "https://tarpit.example/later"), now: 70_000)
        #expect(schedule.next(now: 70_000)?.recipient == "mal", "and is tried again after its rest")
    }

    /// An endpoint the push service no longer knows (404, 410) is asked once: what waits for
    /// it goes, and so does what is queued for it afterwards (weighed before it went).
    @Test func aGoneEndpointIsAskedOnce() {
        let schedule = PushSchedule()
        _ = schedule.enqueue(delivery("ben", "https://push.example/ben"), now: 0)
        _ = schedule.enqueue(delivery("ben", "https://push.example/ben"), now: 0)
        let first = schedule.next(now: 0)
        #expect(first != nil && schedule.next(now: 0) == nil, "one push at a time per endpoint")
        schedule.finished(first!, .gone, now: 10)
        #expect(schedule.next(now: 10) == nil)
        _ = schedule.enqueue(delivery("ben", "https://push.example/ben"), now: 20)
        #expect(schedule.next(now: 20) == nil)
        _ = schedule.enqueue(delivery("cleo", "https://push.example/cleo"), now: 20)
        #expect(schedule.next(now: 20)?.recipient == "cleo")
    }

    @Test func oneEndpointTakesItsShareOfPushes() {
        let schedule = PushSchedule()
        var dropped = 0
        for _ in 0..<30 { dropped += schedule.enqueue(delivery("mal", "https://push.example/shared"), now: 0) }
        #expect(dropped == 30 - Int(Limits.pushEndpointRate.burst))
    }
}
