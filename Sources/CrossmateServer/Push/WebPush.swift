import CrossmateProtocol
import Crypto
import Foundation

/// Web Push's two pieces of cryptography, written from the RFCs: a message encrypted for one
/// subscription (RFC 8291, `aes128gcm` of RFC 8188), and the server's signed claim to the push
/// service (RFC 8292, VAPID). Pure: keys, salt and clock come in.
enum WebPush {
    /// A subscription's keys as the browser gave them: its P-256 public key (65 bytes,
    /// uncompressed) and its 16-byte authentication secret.
    struct SubscriberKeys {
        var p256dh: P256.KeyAgreement.PublicKey
        var auth: [UInt8]

        /// The keys from their base64url text, or why not.
        init(p256dh: String, auth: String) throws(APIError) {
            guard let point = Base64URL.decode(p256dh), point.count == 65, point.first == 4,
                let key = try? P256.KeyAgreement.PublicKey(x963Representation: point)
            else { throw APIError(.invalid, "keys.p256dh is a P-256 public key: 65 bytes (uncompressed), base64url") }
            guard let secret = Base64URL.decode(auth), secret.count == 16 else {
                throw APIError(.invalid, "keys.auth is 16 bytes, base64url")
            }
            self.p256dh = key
            self.auth = secret
        }
    }

    /// The record size written in the header: the message is one record, well under it.
    static let recordSize: UInt32 = 4_096
    /// Push services take at most 4,096 bytes of body; with the header (86), the padding
    /// delimiter (1) and the tag (16) a message's plaintext fits in this.
    static let maximumPlaintext = 3_993

    /// `plaintext` encrypted for `keys`: the `aes128gcm` body (salt, record size, the server's
    /// ephemeral public key, then the one record). `ephemeral` and `salt` are fresh for every
    /// message; a test passes its own.
    static func encrypt(
        _ plaintext: [UInt8], for keys: SubscriberKeys, ephemeral: P256.KeyAgreement.PrivateKey = .init(),
        salt: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255) }
    ) throws -> [UInt8] {
        precondition(plaintext.count <= maximumPlaintext && salt.count == 16)
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: keys.p256dh)
        let serverPublic = Array(ephemeral.publicKey.x963Representation)
        let subscriberPublic = Array(keys.p256dh.x963Representation)
        // RFC 8291 §3.4: the input keying material, from the ECDH secret and the auth secret.
        let keyInfo = Array("WebPush: info".utf8) + [0] + subscriberPublic + serverPublic
        let sharedBytes = shared.withUnsafeBytes { Array($0) }
        let ikm = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: sharedBytes), salt: keys.auth, info: keyInfo, outputByteCount: 32)
        // RFC 8188 §2.2–2.3: the content-encryption key and nonce, from the salt.
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let cek = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        // One record, the last: the plaintext and its delimiter 0x02, no further padding.
        let sealed = try AES.GCM.seal(
            plaintext + [2], using: cek, nonce: try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Array($0) }))
        var body = salt
        body += withUnsafeBytes(of: recordSize.bigEndian) { Array($0) }
        body.append(UInt8(serverPublic.count))
        body += serverPublic
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }

    /// The `Authorization` header for a push to `endpoint` (RFC 8292): a JWT for the endpoint's
    /// origin, valid 12 hours from `now` (seconds), signed with the server's key, and that key.
    static func vapidAuthorization(
        endpoint: URL, key: P256.Signing.PrivateKey, subject: String, now: Int64
    ) throws -> String {
        guard let scheme = endpoint.scheme, let host = endpoint.host else { throw APIError(.invalid, "the endpoint is not a URL") }
        let origin = "\(scheme)://\(host)" + (endpoint.port.map { ":\($0)" } ?? "")
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = Base64URL.encode(
            Array(JSONText.sorted(Claims(aud: origin, exp: now + 12 * 3_600, sub: subject)).utf8))
        let signingInput = header + "." + claims
        let signature = try key.signature(for: Array(signingInput.utf8))
        let token = signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
        return "vapid t=\(token), k=\(Base64URL.encode(Array(key.publicKey.x963Representation)))"
    }

    private struct Claims: Encodable {
        var aud: String
        var exp: Int64
        var sub: String
    }
}
