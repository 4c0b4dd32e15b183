// libFuzzer entry point for the .puz reader (built by scripts/fuzz.sh, not by SwiftPM).
// A read may succeed or throw; any crash, trap or sanitizer report is a bug.
import CrossmateFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPuz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let puzzle = try? PuzReader.read(bytes) {
        // What we read must also write and read back without trouble.
        if let written = try? PuzWriter.write(puzzle) { _ = try? PuzReader.read(written) }
        _ = try? puzzle.unlocked(withKey: 1234)
    }
    return 0
}
