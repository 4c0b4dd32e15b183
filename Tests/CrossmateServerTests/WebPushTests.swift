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
