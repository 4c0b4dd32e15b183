import Crypto
import Foundation

/// Bearer tokens, link codes and invitation tokens: 256 random bits, of which the server keeps
/// only the SHA-256.
enum Secrets {
    static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A short random identifier for accounts, devices and games.
    static func identifier(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijkmnopqrstuvwxyz23456789")
        return prefix + "-" + String((0..<16).map { _ in alphabet.randomElement(using: &generator)! })
    }

    static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
