import CSVGRenderProcess
import AsyncWebImage
#if canImport(Glibc)
import Glibc
#endif

/// A render worker seen from the decode: the child process (this
/// executable started again, see `CSVGRenderProcess`) and the socket to it.
///
/// Every wait — for room to write, for bytes to read — polls the socket
/// with the render's deadline, and the render's cancellation signal beside
/// it; so a decode never waits past its deadline, whatever the worker does.
struct SVGRenderProcess: Sendable {
    /// Why a wait ended without its bytes.
    enum Interruption: Error {
        /// The render's deadline passed.
        case deadline
        /// The render's task was cancelled.
        case cancelled
        /// The worker closed its socket: it ended (a crash, a limit, an idle exit).
        case closed
    }

    let pid: pid_t
    /// A pidfd of the child, or -1 where the kernel gives none.
    private let pidfd: Int32
    /// The decode's end of the socket (non-blocking).
    let socket: Int32
    /// When it last finished a render.
    var idleSince: ContinuousClock.Instant

    /// Environment variables a worker inherits: what finding libraries,
    /// fonts and a locale needs, and a sanitizer's options; nothing else of
    /// the application's (its keys and passwords stay out of the worker).
    private static let inherited = [
        "HOME", "LD_LIBRARY_PATH", "LANG", "LC_ALL", "LC_CTYPE", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_DIRS",
        "FONTCONFIG_FILE", "FONTCONFIG_PATH", "TSAN_OPTIONS", "ASAN_OPTIONS", "UBSAN_OPTIONS",
    ]

    /// Starts a worker and waits for its hello.
    ///
    /// - Throws: ``Interruption`` when the deadline passes or the task is
    ///   cancelled first; ``ImageError/undecodable(_:_:)`` when no worker can be started.
    static func spawn(nice: Int32, deadline: ContinuousClock.Instant, cancellation: SVGRenderCancellation?) throws -> SVGRenderProcess {
        var sockets: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &sockets) == 0 else {
            throw ImageError.undecodable(.svg, "cannot start the SVG render process: socketpair failed (errno \(errno))")
        }
        var environment = ["AWI_SVG_RENDER_WORKER=3", "AWI_SVG_RENDER_NICE=\(nice)"]
        for name in inherited {
            if let value = getenv(name) { environment.append("\(name)=\(String(cString: value))") }
        }
        let pointers = environment.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        let pid = pointers.withUnsafeBufferPointer { awi_svg_spawn_worker(sockets[1], $0.baseAddress) }
        close(sockets[1])
        guard pid > 0 else {
            close(sockets[0])
            throw ImageError.undecodable(.svg, "cannot start the SVG render process (errno \(-pid))")
        }
        _ = fcntl(sockets[0], F_SETFL, fcntl(sockets[0], F_GETFL) | O_NONBLOCK)
        let pidfd = awi_svg_pidfd_open(pid)
        let process = SVGRenderProcess(pid: pid, pidfd: pidfd >= 0 ? pidfd : -1, socket: sockets[0], idleSince: .now)
        do throws(Interruption) {
            guard try process.receiveHeader(deadline: deadline, cancellation: cancellation).kind == .hello else { throw .closed }
        } catch {
            process.terminate()
            if case .closed = error { throw ImageError.undecodable(.svg, "the SVG render process did not start") }
            throw error
        }
        return process
    }

    /// Sends a frame.
    func send(_ kind: SVGRenderFrame.Kind, _ payload: [UInt8], deadline: ContinuousClock.Instant, cancellation: SVGRenderCancellation?) throws(Interruption) {
        try write(SVGRenderFrame.header(kind, length: payload.count), deadline: deadline, cancellation: cancellation)
        try write(payload, deadline: deadline, cancellation: cancellation)
    }

    /// Receives a frame's header.
    func receiveHeader(deadline: ContinuousClock.Instant, cancellation: SVGRenderCancellation?) throws(Interruption) -> (kind: SVGRenderFrame.Kind, length: Int) {
        guard let parsed = SVGRenderFrame.parseHeader(try receive(count: SVGRenderFrame.headerCount, deadline: deadline, cancellation: cancellation)) else {
            throw .closed
        }
        return parsed
    }

    /// Receives `count` payload bytes.
    func receive(count: Int, deadline: ContinuousClock.Instant, cancellation: SVGRenderCancellation?) throws(Interruption) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var failure: Interruption?
        bytes.withUnsafeMutableBytes { buffer in
            do throws(Interruption) {
                try read(into: buffer, deadline: deadline, cancellation: cancellation)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Whether the worker is still there to take a render: nothing to read
    /// and no hang-up on its socket (an idle worker never writes).
    var isAlive: Bool {
        // POLLRDHUP (0x2000, which Glibc's module leaves out): the worker closed its end.
        var ready = pollfd(fd: socket, events: Int16(POLLIN) | 0x2000, revents: 0)
        return poll(&ready, 1, 0) == 0
    }

    /// Kills the worker (SIGKILL, through its pidfd where there is one),
    /// closes the socket and reaps the child: no CPU is spent after this
    /// returns, and no zombie is left.
    func terminate() {
        if pidfd < 0 || awi_svg_pidfd_kill(pidfd) != 0 { kill(pid, SIGKILL) }
        close(socket)
        _ = reap()
        if pidfd >= 0 { close(pidfd) }
    }

    /// How a worker that closed its socket ended.
    enum Ending: CustomStringConvertible {
        /// Killed by RLIMIT_CPU (SIGXCPU).
        case cpuLimit
        case signal(Int32)
        case exit(Int32)
        /// Reaped by another part of the process first.
        case unknown

        var description: String {
            switch self {
            case .cpuLimit: "passed its CPU time limit"
            case .signal(let signal): "was ended by signal \(signal)"
            case .exit(let status): "exited with status \(status)"
            case .unknown: "ended"
            }
        }
    }

    /// Closes the socket, reaps the ended child and says how it ended.
    func ended() -> Ending {
        close(socket)
        let status = reap()
        if pidfd >= 0 { close(pidfd) }
        guard let status else { return .unknown }
        // WIFSIGNALED / WTERMSIG, by hand: glibc's macros are not visible to Swift.
        let signal = status & 0x7F
        if signal != 0 && signal != 0x7F { return signal == SIGXCPU ? .cpuLimit : .signal(signal) }
        return .exit(status >> 8 & 0xFF)
    }

    /// The exit status of the child, once it has ended; `nil` when another
    /// part of the process reaped it first.
    private func reap() -> Int32? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, 0)
            if result == pid { return status }
            if result < 0 && errno == EINTR { continue }
            return nil
        }
    }

    private func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant, cancellation: SVGRenderCancellation?) throws(Interruption) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                try wait(for: Int16(POLLOUT), deadline: deadline, cancellation: cancellation)
            } else {
                throw .closed
            }
        }
    }

    private func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant, cancellation: SVGRenderCancellation?) throws(Interruption) {
        var offset = 0
        while offset < buffer.count {
            let received = recv(socket, buffer.baseAddress! + offset, buffer.count - offset, 0)
            if received > 0 {
                offset += received
            } else if received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                try wait(for: Int16(POLLIN), deadline: deadline, cancellation: cancellation)
            } else {
                throw .closed
            }
        }
    }

    /// Polls the socket for `events` and the cancellation signal, until the deadline.
    private func wait(for events: Int16, deadline: ContinuousClock.Instant, cancellation: SVGRenderCancellation?) throws(Interruption) {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { throw .deadline }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            var descriptors = [pollfd(fd: socket, events: events, revents: 0)]
            if let cancellation { descriptors.append(pollfd(fd: cancellation.descriptor, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), max(1, milliseconds))
            if ready < 0 && errno == EINTR { continue }
            if descriptors.count > 1, descriptors[1].revents != 0 { throw .cancelled }
            if descriptors[0].revents != 0 { return }
        }
    }
}
