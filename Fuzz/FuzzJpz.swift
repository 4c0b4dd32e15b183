// libFuzzer entry point for the .jpz reader (built by scripts/fuzz.sh, not by SwiftPM): the ZIP
// container, the DEFLATE inflater and the XML reader behind it, seeded with plain and zipped
// files. A read may succeed or throw; any crash, trap or sanitizer report is a bug.
import CrossmateFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJpz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? JpzReader.read(bytes)
    return 0
}
