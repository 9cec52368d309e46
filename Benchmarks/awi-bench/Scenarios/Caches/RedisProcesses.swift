import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The `redis-server` processes the shared-tier scenario measures against,
/// on 127.0.0.1: one plain, one TLS-only, and a 6-node Redis Cluster (3
/// masters, 3 replicas, made by `redis-cli --cluster create`). Every
/// process is stopped by PID when the value goes away.
final class RedisProcesses {
    private(set) var processes: [Process] = []
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("awi-bench-redis-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        for process in processes where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether redis-server and redis-cli are installed.
    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-server") && FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-cli")
    }

    /// Starts a server on a free port with `arguments` after the common ones; returns the port once it listens.
    func start(_ arguments: [String], port: Int? = nil, listen: (Int) -> [String] = { ["--port", String($0)] }) async throws -> Int {
        let port = try port ?? HTTP2TLSScenario.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = listen(port) + [
            "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
            "--protected-mode", "no", "--loglevel", "warning", "--dir", directory.path,
        ] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes.append(process)
        try await HTTP2TLSScenario.waitForListener(port: port)
        return port
    }

    /// A TLS-only server (certificates made by `openssl` in the directory); returns its port and the CA file.
    func startTLS() async throws -> (port: Int, caFile: String) {
        try HTTP2TLSScenario.makeCertificates(in: directory.path)
        let path = directory.path
        let port = try await start([], listen: { port in
            ["--port", "0", "--tls-port", String(port), "--tls-cert-file", path + "/server.pem", "--tls-key-file", path + "/server.key",
             "--tls-ca-cert-file", path + "/ca.pem", "--tls-auth-clients", "no"]
        })
        return (port, path + "/ca.pem")
    }

    /// Six cluster nodes joined by `redis-cli --cluster create … --cluster-replicas 1`; returns their ports once the cluster is `ok`.
    func startCluster() async throws -> [Int] {
        var ports: [Int] = []
        for index in 0..<6 {
            let bus = try HTTP2TLSScenario.freePort()
            ports.append(try await start([
                "--cluster-enabled", "yes", "--cluster-config-file", "bench-nodes-\(index).conf",
                "--cluster-node-timeout", "2000", "--cluster-port", String(bus),
                "--repl-diskless-sync-delay", "0", "--repl-ping-replica-period", "1",
            ]))
        }
        let create = Process()
        create.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        create.arguments = ["--cluster", "create"] + ports.map { "127.0.0.1:\($0)" } + ["--cluster-replicas", "1", "--cluster-yes"]
        create.standardOutput = FileHandle.nullDevice
        create.standardError = FileHandle.nullDevice
        try create.run()
        create.waitUntilExit()
        guard create.terminationStatus == 0 else { throw BenchmarkFailure("redis-cli --cluster create failed") }
        // Bounded: 1,000 polls 10 ms apart until every node reports the cluster ok.
        for _ in 0..<1000 {
            if try ports.allSatisfy({ try Self.cli(["-p", String($0), "cluster", "info"]).contains("cluster_state:ok") }) { return ports }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchmarkFailure("the cluster did not become ready")
    }

    /// Runs `redis-cli` with `arguments`; its standard output.
    static func cli(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }
}
