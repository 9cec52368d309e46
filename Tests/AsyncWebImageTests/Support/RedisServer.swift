import Foundation
@_spi(Benchmarks) @testable import AsyncWebImage
#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` on 127.0.0.1, started by a test on a free port with
/// persistence off, and stopped by its PID.
final class RedisServer {
    let port: Int
    private let process: Process

    /// The endpoint to give a ``RedisStore``.
    var endpoint: RedisStore.Endpoint { RedisStore.Endpoint(host: "127.0.0.1", port: port) }

    /// Starts a server (on `port`, or a free one) and waits until it answers `PING`.
    init(port: Int? = nil) async throws {
        let port = try port ?? Self.freePort()
        self.port = port
        process = Process()
        process.executableURL = try Self.executable()
        process.arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--daemonize", "no", "--protected-mode", "no", "--loglevel", "warning",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Bounded: 500 tries 10 ms apart; a server that does not answer by then fails the test.
        for _ in 0..<500 {
            if let connection = try? RedisConnection(host: "127.0.0.1", port: port, connectTimeout: .milliseconds(100), commandTimeout: .seconds(1)),
               (try? connection.command([Array("PING".utf8)])) == .status("PONG") {
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        stop()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "redis-server did not start on \(port)"])
    }

    deinit { stop() }

    /// Stops the server (SIGKILL: as abrupt as a crash) and waits for it to exit.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Sends one command to the server directly, bypassing the store.
    func command(_ arguments: [String]) throws -> RedisReply {
        try command(arguments.map { Array($0.utf8) })
    }

    /// Sends one command of raw arguments to the server directly.
    func command(_ arguments: [[UInt8]]) throws -> RedisReply {
        let connection = try RedisConnection(host: "127.0.0.1", port: port, connectTimeout: .seconds(1), commandTimeout: .seconds(2))
        return try connection.command(arguments)
    }

    private static func executable() throws -> URL {
        for directory in ["/usr/bin", "/usr/local/bin", "/usr/sbin"] {
            let path = directory + "/redis-server"
            if FileManager.default.isExecutableFile(atPath: path) { return URL(fileURLWithPath: path) }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "redis-server not installed (scripts/install-deps installs it)"])
    }

    /// A port the kernel has just given out on 127.0.0.1 and taken back.
    static func freePort() throws -> Int {
        let (fd, port) = try listeningSocket()
        close(fd)
        return port
    }

    /// A socket listening on 127.0.0.1 that never accepts: connections
    /// complete (the kernel's backlog takes them) and then nothing answers,
    /// like a node that hangs. The caller closes `fd`.
    static func listeningSocket() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
