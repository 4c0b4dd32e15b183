import CrossmateTerminal
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the terminal loop reacts to.
enum TerminalInput: Sendable {
    case key(InputKey)
    case resize
    case tick
    case redraw
}

/// The controlling terminal in raw mode on the alternate screen. Restored on exit, on SIGTERM,
/// SIGHUP and on a crash (the signal handlers write the saved settings back before the default
/// action runs).
final class RawTerminal: @unchecked Sendable {
    let inputs: AsyncStream<TerminalInput>
    private let continuation: AsyncStream<TerminalInput>.Continuation
    private var resizeSource: DispatchSourceSignal?
    private var reader: Thread?

    /// Refuses, in words, when standard input or output is not a terminal (a pipe, a file, a
    /// cron job): `command` draws a screen and reads keys.
    static func require(_ command: String) throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw ClientFailure(
                "`crossmate \(command)` draws the game on a terminal and reads your keys from it: "
                    + "run it in a terminal window, not with its input or output a pipe or a file")
        }
    }

    init(for command: String) throws {
        try Self.require(command)
        guard tcgetattr(STDIN_FILENO, &savedTerminal) == 0 else { throw ClientFailure("cannot read the terminal's settings") }
        savedTerminalValid = 1
        (inputs, continuation) = AsyncStream.makeStream(of: TerminalInput.self, bufferingPolicy: .unbounded)
        var raw = savedTerminal
        cfmakeraw(&raw)
        raw.c_oflag |= tcflag_t(OPOST)  // keep \n → \r\n for anything printed by mistake
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        for signal in [SIGTERM, SIGHUP, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            Glibc.signal(signal, restoreAndReraise)
        }
        // The alternate screen, no cursor, mouse presses and the wheel reported (SGR), and the
        // window's focus reported (the player away from it is away from the game).
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J\u{1B}[?1000h\u{1B}[?1006h\u{1B}[?1004h")
        signal(SIGWINCH, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        let sink = continuation
        source.setEventHandler { sink.yield(.resize) }
        source.resume()
        resizeSource = source
        let thread = Thread { Self.readKeys(into: sink) }
        thread.start()
        reader = thread
    }

    /// Leaves the alternate screen and restores the settings it found.
    func restore() {
        resizeSource?.cancel()
        continuation.finish()
        restoreTerminal()
    }

    /// The columns of the terminal standard output is, or nil when it is not one (a pipe or a
    /// file gets whole lines).
    static var outputColumns: Int? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        return windowSize()?.width
    }

    var size: (width: Int, height: Int) { Self.windowSize() ?? (80, 24) }

    /// What the terminal standard output is says its size is, if it says.
    private static func windowSize() -> (width: Int, height: Int)? {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 else { return nil }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { break }
            offset += written
        }
    }

    /// Reads standard input on its own thread (blocking reads do not hold a task), decoding keys.
    /// A lone Escape becomes a key when nothing follows within 60 ms.
    private static func readKeys(into sink: AsyncStream<TerminalInput>.Continuation) {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            // An Escape waits 350 ms for what follows, so Esc then a key works at a person's
            // speed (a terminal's own sequences arrive together, far inside that).
            let ready = poll(&descriptor, 1, decoder.hasPendingEscape ? 350 : 1000)
            if ready == 0 {
                for key in decoder.flushEscape() { sink.yield(.key(key)) }
                continue
            }
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count <= 0 { return }
            for key in decoder.decode(Array(buffer[0..<count])) {
                if case .terminated = sink.yield(.key(key)) { return }
            }
        }
    }
}

// The saved settings live in globals so a signal handler can reach them without allocating.
nonisolated(unsafe) private var savedTerminal = termios()
nonisolated(unsafe) private var savedTerminalValid: sig_atomic_t = 0

private func restoreTerminal() {
    guard savedTerminalValid == 1 else { return }
    // CAN first: a frame cut off by a signal may have left an escape sequence half written, and
    // the terminal must read what follows as the sequences that restore it. Written whole
    // (a short write is continued), with nothing but async-signal-safe calls.
    let leave = "\u{18}\u{1B}[0m\u{1B}[?1004l\u{1B}[?1006l\u{1B}[?1000l\u{1B}[?25h\u{1B}[?1049l"
    leave.withCString { text in
        var offset = 0
        let count = strlen(text)
        while offset < count {
            let written = Glibc.write(STDOUT_FILENO, text + offset, count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
    }
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedTerminal)
    savedTerminalValid = 0
}

private func restoreAndReraise(_ signal: Int32) {
    restoreTerminal()
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}
