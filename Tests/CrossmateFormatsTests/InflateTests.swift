import Foundation
import Testing

@testable import CrossmateFormats

/// The hand-written inflater against zlib, the reference implementation, through Python's zlib
/// module (Tests/oracle/deflate_cases.py): zlib's own streams of every level and strategy must
/// inflate to what zlib gives, and damaged ones must be refused exactly when zlib refuses them.
///
/// Why the inflater is kept rather than replaced by compress-nio's zlib: CrossmateFormats is part
/// of the pure core an Apple app embeds, and compress-nio would bring SwiftNIO and a system zlib
/// into it; this check (and the .jpz fuzz target in scripts/fuzz.sh) is the evidence that the
/// 160 lines agree with zlib on what it accepts and refuse what it refuses.
@Suite struct InflateTests {
    struct Case: Decodable {
        var input: String
        var output: String?
    }

    static func cases(seed: Int, count: Int) throws -> [Case] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("oracle/deflate_cases.py")
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", script.path, "\(seed)", "\(count)"]
        let pipe = Pipe()
        python.standardOutput = pipe
        try python.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        guard python.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Case.self, from: Data($0.utf8))
        }
    }

    @Test(arguments: [1, 2])
    func agreesWithZlib(seed: Int) throws {
        let cases = try Self.cases(seed: seed, count: 1_000)
        #expect(cases.count == 1_000)
        var inflated = 0
        var refused = 0
        for (index, check) in cases.enumerated() {
            let input = [UInt8](Data(base64Encoded: check.input)!)
            let ours: [UInt8]?
            do { ours = try Inflate.decompress(input, limit: 1 << 20) } catch { ours = nil }
            let zlib = check.output.map { [UInt8](Data(base64Encoded: $0)!) }
            #expect(
                ours == zlib,
                "case \(index) of seed \(seed): zlib \(zlib.map { "gives \($0.count) bytes" } ?? "refuses"), ours \(ours.map { "gives \($0.count) bytes" } ?? "refuses")"
            )
            if zlib == nil { refused += 1 } else { inflated += 1 }
        }
        // Both sides of the comparison were exercised.
        #expect(inflated > 500 && refused > 100)
    }

    @Test func outputPastTheLimitIsRefused() throws {
        let stream = try #require(try Self.cases(seed: 3, count: 40).first { ($0.output.flatMap { Data(base64Encoded: $0)?.count } ?? 0) > 1_000 })
        let input = [UInt8](Data(base64Encoded: stream.input)!)
        #expect(throws: Inflate.Failure.tooLarge) { try Inflate.decompress(input, limit: 1_000) }
    }
}
