public import Foundation
import Synchronization
import AWILocking
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real HTTP/1.1 server on 127.0.0.1 with programmable behaviour per path,
/// for the tests and the benchmark.
///
/// Written on POSIX sockets with one accept thread and one thread per
/// connection (bounded by `maxConnections`), so it adds no package
/// dependency. Every path can be given a static ``Response`` or a handler;
/// the server counts per path the requests, the concurrency, the clients
/// that left early (with timestamps) and the headers it saw.
///
/// ```swift
/// let server = LoopbackServer()
/// try server.start()
/// server.route("/a.jpg", .ok(bytes, contentType: "image/jpeg"))
/// // ... fetch server.url("/a.jpg") ...
/// #expect(server.statistics("/a.jpg").requests == 1)
/// server.stop()
/// ```
///
/// - Important: All methods are thread-safe. Handlers run on the
///   connection's thread, outside the server's lock.
public final class LoopbackServer: Sendable {
    /// Answers a request; runs on the connection's thread.
    public typealias Handler = @Sendable (Request) -> Response

    /// Errors from ``start()``.
    public struct StartError: Error, CustomStringConvertible {
        /// The failing call and its `errno` text.
        public var description: String
    }

    struct State {
        var running = false
        var listenFD: Int32 = -1
        var port: UInt16 = 0
        var routes: [String: Handler] = [:]
        var statistics: [String: PathStatistics] = [:]
        var openConnections: Set<Int32> = []
        var connectionsAccepted = 0
        var inFlight = 0
        var maxInFlight = 0
        var log: [String] = []
    }

    let state = Lock(State())
    /// Entered by every server thread, so ``stop()`` can wait for all of them.
    let threads = DispatchGroup()
    /// The most connections served at once; more are answered 503 and closed.
    public let maxConnections: Int

    /// Creates a stopped server.
    /// - Parameter maxConnections: The most connections served at once (256 by default).
    public init(maxConnections: Int = 256) {
        self.maxConnections = maxConnections
    }

    deinit {
        stop()
    }

    /// The port the server listens on (0 before ``start()``).
    public var port: UInt16 { state.withLock { $0.port } }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The URL of `path` (which should start with `/`) on this server.
    /// - Parameter path: A path, optionally with a query.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Binds 127.0.0.1 on an ephemeral port and starts accepting connections.
    /// - Throws: ``StartError`` when a socket call fails.
    public func start() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StartError(description: "socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 512) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw StartError(description: "bind/listen: \(message)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        state.withLock {
            $0.listenFD = fd
            $0.port = UInt16(bigEndian: address.sin_port)
            $0.running = true
        }
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop(fd)
            threads.leave()
        }
        thread.name = "LoopbackServer.accept"
        thread.start()
    }

    /// Stops accepting, closes every connection and waits (up to 5 s) for
    /// all server threads to end. Safe to call more than once.
    public func stop() {
        let wasRunning = state.withLock { state -> Bool in
            let wasRunning = state.running
            state.running = false
            // Wake threads blocked in recv or send; they notice `running` and
            // leave. Under the lock, because a connection thread removes its
            // descriptor under it before closing: no closed (and reused)
            // descriptor is ever shut down.
            for fd in state.openConnections { shutdown(fd, Int32(SHUT_RDWR)) }
            return wasRunning
        }
        guard wasRunning else { return }
        _ = threads.wait(timeout: .now() + 5)
    }

    /// Answers `path` (without query; or a full target with query, which wins) with `response`.
    /// - Parameters:
    ///   - path: The path, e.g. `/a.jpg`.
    ///   - response: The response for every request of that path.
    public func route(_ path: String, _ response: Response) {
        route(path) { _ in response }
    }

    /// Answers `path` with whatever `handler` returns for each request.
    /// - Parameters:
    ///   - path: The path, e.g. `/a.jpg`.
    ///   - handler: Called on the connection's thread for every request.
    public func route(_ path: String, handler: @escaping Handler) {
        state.withLock { $0.routes[path] = handler }
    }

    /// What the server saw for `path` (without query) so far.
    /// - Parameter path: The path.
    public func statistics(_ path: String) -> PathStatistics {
        state.withLock { $0.statistics[path] ?? PathStatistics() }
    }

    /// The targets of all requests, in arrival order, over every path.
    public var requestLog: [String] { state.withLock { $0.log } }

    /// The most requests answered at the same time, over every path.
    public var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    /// Connections accepted so far.
    public var connectionsAccepted: Int { state.withLock { $0.connectionsAccepted } }

    /// Forgets all statistics (routes stay).
    public func resetStatistics() {
        state.withLock {
            $0.statistics = [:]
            $0.log = []
            $0.maxInFlight = $0.inFlight
        }
    }

    /// Waits (polling, bounded by `timeout`) until `condition` holds for the statistics of `path`.
    /// - Parameters:
    ///   - path: The path.
    ///   - timeout: How long to wait at most.
    ///   - condition: The condition to wait for.
    /// - Returns: Whether the condition held before the timeout.
    public func waitUntil(
        _ path: String,
        timeout: Duration = .seconds(5),
        _ condition: @Sendable (PathStatistics) -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(statistics(path)) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(statistics(path))
    }

    var isRunning: Bool { state.withLock { $0.running } }

    private func acceptLoop(_ listenFD: Int32) {
        defer { close(listenFD) }
        while isRunning {
            var poller = pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let fd = accept(listenFD, nil, nil)
            guard fd >= 0 else { continue }
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            let admitted = state.withLock { state -> Bool in
                guard state.running, state.openConnections.count < maxConnections else { return false }
                state.openConnections.insert(fd)
                state.connectionsAccepted += 1
                return true
            }
            guard admitted else {
                let refusal = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                _ = refusal.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                close(fd)
                continue
            }
            threads.enter()
            let thread = Thread { [self] in
                serve(fd)
                state.withLock { _ = $0.openConnections.remove(fd) }
                close(fd)
                threads.leave()
            }
            thread.name = "LoopbackServer.connection"
            thread.stackSize = 512 * 1024
            thread.start()
        }
    }
}
