import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One writer per profile. Each process keeps its replica of a game (journal, next seq) in
/// memory, so two processes typing on one profile would both make "seq 12" and one of the two
/// letters would be lost. A command that writes holds this lock (`flock` on a file in the
/// profile's folder) for as long as it runs; the kernel lets it go when the process ends, even
/// by `kill -9`. A second writer is refused at start, told which process holds the profile.
public final class ProfileLock: Sendable {
    private let descriptor: Int32

    /// Who holds a profile: what the lock file says.
    public struct Held: Error, Hashable, Sendable, CustomStringConvertible {
        public var profile: String
        public var holder: String

        public var description: String {
            "profile '\(profile)' is in use by \(holder): finish there first (or quit it), or use another profile with --profile NAME"
        }

        /// What a command that only reads says when it shows the profile anyway.
        public var readingOnly: String { "profile '\(profile)' is in use by \(holder): showing what this device knows, not synced" }
    }

    /// Takes the lock of `profile`, naming this process as `command` in it; throws `Held` when
    /// another process has it.
    public init(_ profile: Profile, command: String) throws {
        try FileManager.default.createDirectory(atPath: profile.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = profile.directory + "/writer.lock"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = pread(descriptor, &buffer, buffer.count, 0)
            close(descriptor)
            let written = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
            throw Held(profile: profile.name, holder: written.isEmpty ? "another crossmate process" : written)
        }
        let note = Array("`crossmate \(command)` (PID \(getpid()))\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = note.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    deinit {
        _ = ftruncate(descriptor, 0)
        close(descriptor)
    }
}
