// libFuzzer entry point for the socket push reader (built by scripts/fuzz.sh, not by SwiftPM).
// Differential: whatever the hand-written reader accepts, JSONDecoder must read the same way.
// A decline is always fine (JSONDecoder then answers); a disagreement or a crash is a bug.
import Foundation

@testable import CrossmateProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPush(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let read = ClientSocketMessage.readPush(text) {
        let decoded = try? JSONDecoder().decode(ClientSocketMessage.self, from: Data(text.utf8))
        precondition(decoded == read, "the push reader accepted what JSONDecoder reads differently: \(text)")
    }
    _ = try? ClientSocketMessage.decode(text)
    return 0
}
