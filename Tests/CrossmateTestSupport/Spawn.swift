import Foundation

/// Runs a program and waits for it, with only standard input, output and error open in it.
/// Foundation's `Process` notices a child's exit by a descriptor the child inherits, so a child
/// that leaves a daemon behind (tmux's server, `pg_ctl restart`'s postmaster) never "ends" for
/// it. Standard input is /dev/null, standard output goes to `outputPath` (else /dev/null),
/// standard error to /dev/null; no signal is blocked in the child (Swift's concurrency threads
/// block most, and a child inherits the mask). The exit status.
@discardableResult
public func runDetached(_ argv: [String], outputPath: String? = nil) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    // glibc ignores closing a descriptor that is not open, so every one up to the highest open
    // now (and a margin for any opened meanwhile) can be named.
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
    for descriptor in 3...((open.max() ?? 1024) + 64) { posix_spawn_file_actions_addclose(&actions, descriptor) }
    var cStrings = argv.map { strdup($0) }
    defer { for pointer in cStrings { free(pointer) } }
    cStrings.append(nil)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var nothing = sigset_t()
    sigemptyset(&nothing)
    var everything = sigset_t()
    sigfillset(&everything)
    posix_spawnattr_setsigmask(&attributes, &nothing)
    posix_spawnattr_setsigdefault(&attributes, &everything)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid = pid_t()
    let spawned = posix_spawnp(&pid, argv[0], &actions, &attributes, cStrings, environ)
    guard spawned == 0 else { throw SpawnFailure(program: argv[0], code: spawned) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status
}

public struct SpawnFailure: Error, CustomStringConvertible {
    public var program: String
    public var code: Int32
    public var description: String { "\(program) could not be started (error \(code)); is it installed?" }
}
