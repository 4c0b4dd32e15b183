import CrossmateProtocol
import Crypto
import Foundation

/// Bearer tokens, link codes and invitation tokens: 256 random bits, of which the server keeps
/// only the SHA-256.
enum Secrets {
    /// 256 random bits in base64url, never starting with `-` or `_`: a code typed after a
    /// command (`crossmate link CODE`) must not read as an option (about 1 in 32 did).
    static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        while true {
            let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let token = Base64URL.encode(bytes)
            if let first = token.first, first != "-", first != "_" { return token }
        }
    }

    /// A short random identifier for accounts, devices and games.
    static func identifier(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijkmnopqrstuvwxyz23456789")
        return prefix + "-" + String((0..<16).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// Lower-case hex of the SHA-256 (every request hashes its token, so no `String(format:)`).
    static func hash(_ secret: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(secret.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
