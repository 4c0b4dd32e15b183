// libFuzzer entry point for the .ipuz reader (built by scripts/fuzz.sh, not by SwiftPM).
// A read may succeed or throw; any crash, trap or sanitizer report is a bug.
import CrossmateFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIpuz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let puzzle = try? IpuzReader.read(bytes) {
        if let written = try? IpuzWriter.write(puzzle) { _ = try? IpuzReader.read(written) }
    }
    return 0
}
