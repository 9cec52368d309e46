import Foundation
import NIOCore
@testable import AsyncWebImageRedis
#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` on 127.0.0.1, started by a test on a free port with
/// persistence off, and stopped by its PID.
final class RedisServer {
    let port: Int
    /// The process ID (for `kill -9` in failover tests).
    var pid: Int32 { process.processIdentifier }
    private let process: Process
    /// How ``command(_:)`` connects (a password, TLS), as the server needs.
    private let admin: RedisConnection.Settings
    private let adminEndpoint: RedisStore.Endpoint

    /// The endpoint to give a ``RedisStore``.
    var endpoint: RedisStore.Endpoint { RedisStore.Endpoint(host: "127.0.0.1", port: port) }

    /// Starts a server (on `port`, or a free one) and waits until it answers.
    ///
    /// - Parameters:
    ///   - arguments: More `redis-server` arguments (`--requirepass`, `--user`, cluster settings).
    ///   - tls: Serve TLS only (`--port 0 --tls-port`), with these certificates; client certificates required.
    ///   - certificate: The server certificate (``TestCertificates/serverCertificate`` by default).
    ///   - adminPassword: What ``command(_:)`` authenticates with.
    ///   - directory: The working directory (cluster nodes write their `nodes.conf` there).
    init(
        port: Int? = nil, arguments: [String] = [], tls: TestCertificates? = nil, certificate: String? = nil,
        adminPassword: String? = nil, directory: String? = nil
    ) async throws {
        let port = try port ?? LoopbackPort.freePort()
        self.port = port
        var listen = ["--port", String(port)]
        if let tls {
            listen = [
                "--port", "0", "--tls-port", String(port), "--tls-cert-file", certificate ?? tls.serverCertificate,
                "--tls-key-file", tls.serverKey, "--tls-ca-cert-file", tls.caBundle, "--tls-auth-clients", "yes",
            ]
        }
        process = Process()
        process.executableURL = try Self.executable("redis-server")
        process.arguments = listen + [
            "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--daemonize", "no", "--protected-mode", "no", "--loglevel", "warning",
        ] + (directory.map { ["--dir", $0] } ?? []) + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        adminEndpoint = RedisStore.Endpoint(host: tls == nil ? "127.0.0.1" : "localhost", port: port)
        admin = RedisConnection.Settings(
            tls: try tls.map { try RedisStore.TLS(caFile: $0.caBundle, certificateFile: $0.clientCertificate, privateKeyFile: $0.clientKey).makeContext() },
            serverName: nil,
            authArguments: adminPassword.map { [Array($0.utf8)] } ?? [],
            database: 0, readOnly: false, maxReplyBytes: 1 << 30, connectTimeout: .seconds(1)
        )
        try process.run()
        // Bounded: 500 tries 10 ms apart; a server that does not answer by then fails the test.
        for _ in 0..<500 {
            if (try? await command(["PING"])) == .status("PONG") { return }
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

    /// Whether the process still runs.
    var isRunning: Bool { process.isRunning }

    /// Sends one command to the server directly, bypassing the store.
    func command(_ arguments: [String]) async throws -> RedisReply {
        try await command(arguments.map { Array($0.utf8) })
    }

    /// Sends one command of raw arguments to the server directly.
    func command(_ arguments: [[UInt8]]) async throws -> RedisReply {
        let deadline = NIODeadline.now() + .seconds(10)
        let connection = try await RedisConnection.connect(
            to: adminEndpoint, settings: admin, eventLoop: RedisTestLoop.eventLoop, deadline: deadline
        )
        defer { connection.close() }
        return try await connection.send([arguments], deadline: deadline)[0]
    }

    /// A number from an `INFO` section (`connected_clients`, `cmdstat_get`'s `calls`).
    func info(_ section: String, _ field: String) async throws -> Int? {
        guard let text = try await command(["INFO", section]).text else { return nil }
        for line in text.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0] == field else { continue }
            if let value = Int(parts[1].trimmingCharacters(in: .whitespaces)) { return value }
            // cmdstat_get:calls=12,usec=…
            for pair in parts[1].split(separator: ",") where pair.hasPrefix("calls=") {
                return Int(pair.dropFirst(6))
            }
        }
        return nil
    }

    static func executable(_ name: String) throws -> URL {
        for directory in ["/usr/bin", "/usr/local/bin", "/usr/sbin"] {
            let path = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return URL(fileURLWithPath: path) }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(name) not installed (scripts/install-deps installs it)"])
    }
}
