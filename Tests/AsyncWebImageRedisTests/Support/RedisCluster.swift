import Foundation
@testable import AsyncWebImageRedis
#if canImport(Glibc)
import Glibc
#endif

/// A real 6-node Redis Cluster on 127.0.0.1 — 3 masters, 3 replicas — made
/// as an operator would: six `redis-server --cluster-enabled yes`, then
/// `redis-cli --cluster create … --cluster-replicas 1 --cluster-yes`.
///
/// A node timeout of 1 s (the default is 15) makes a failover take about
/// two seconds, and replicas that sync at once (no diskless-sync delay) and
/// report their offset every second (a replica is `online` in the map only
/// once its offset moved) make a cluster ready in about two seconds, not
/// ten, so the tests stay fast. Stopped by PID.
final class RedisCluster {
    let nodes: [RedisServer]
    private let directory: String

    /// The endpoints, all six: what a store is given as seeds.
    var endpoints: [RedisStore.Endpoint] { nodes.map(\.endpoint) }

    init(nodeTimeout: Duration = .seconds(1)) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("awi-redis-cluster-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let milliseconds = Int(nodeTimeout.components.seconds * 1000 + nodeTimeout.components.attoseconds / 1_000_000_000_000_000)
        var nodes: [RedisServer] = []
        for index in 0..<6 {
            let port = try LoopbackPort.freePort()
            // The cluster bus on a port of its own (Redis 7's cluster-port),
            // not port + 10000, which may be taken or out of range.
            let busPort = try LoopbackPort.freePort()
            nodes.append(try await RedisServer(port: port, arguments: [
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes-\(index).conf",
                "--cluster-node-timeout", String(milliseconds), "--cluster-port", String(busPort),
                "--repl-diskless-sync-delay", "0", "--repl-ping-replica-period", "1",
            ], directory: directory))
        }
        self.nodes = nodes
        try Self.run(try RedisServer.executable("redis-cli"), ["--cluster", "create"] + nodes.map { "127.0.0.1:\($0.port)" } + [
            "--cluster-replicas", "1", "--cluster-yes",
        ])
        // Bounded: 1,000 polls 10 ms apart until every node sees the whole
        // cluster healthy (all slots, 3 masters each with an online replica).
        for _ in 0..<1000 {
            if try await isReady() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the cluster did not become ready"])
    }

    deinit {
        for node in nodes { node.stop() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Whether every live node reports the cluster `ok` and its map has 3
    /// shards of a master and an online replica each.
    func isReady() async throws -> Bool {
        for node in nodes where node.isRunning {
            guard let info = try await node.command(["CLUSTER", "INFO"]).text, info.contains("cluster_state:ok") else { return false }
            let reply = try await node.command(["CLUSTER", "SHARDS"])
            guard let map = ClusterSlotMap(shardsReply: reply, tls: false), map.assignedSlots == RedisKeySlot.count,
                  map.shards.count == 3, map.shards.allSatisfy({ $0.replicas.count == 1 }) else { return false }
        }
        return true
    }

    /// The slot map the first live node that answers reports now.
    func map() async throws -> ClusterSlotMap? {
        for node in nodes where node.isRunning {
            guard let reply = try? await node.command(["CLUSTER", "SHARDS"]) else { continue }
            return ClusterSlotMap(shardsReply: reply, tls: false)
        }
        return nil
    }

    /// The node serving `endpoint`.
    func node(at endpoint: RedisStore.Endpoint) -> RedisServer? {
        nodes.first { $0.port == endpoint.port }
    }

    /// Runs a program to its end; throws when it fails.
    static func run(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(executable.path) \(arguments) exited \(process.terminationStatus)"])
        }
    }
}
