import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// A real 6-node Redis Cluster (3 masters, 3 replicas) per test, made by
/// `redis-cli --cluster create` and stopped by PID when the test ends.
@Suite("RedisStore on a Redis Cluster", .serialized, .timeLimit(.minutes(2)))
struct RedisClusterTests {
    private func store(_ cluster: RedisCluster, prefix: String, configure: (inout RedisStore.Configuration) -> Void = { _ in }) throws -> RedisStore {
        var configuration = RedisStore.Configuration(endpoints: [cluster.endpoints[0]])
        configuration.topology = .cluster
        configuration.keyPrefix = prefix
        configure(&configuration)
        return try RedisStore(configuration: configuration)
    }

    @Test("routing by slot: 300 keys over the 3 masters from one seed, each read back from any store; removeAll empties every master")
    func routing() async throws {
        let cluster = try await RedisCluster()
        let writer = try store(cluster, prefix: "route:")
        try await writer.checkConnection()
        for index in 0..<300 {
            try await writer.setData(Data([UInt8(index % 256)]), forKey: "key-\(index)", extendedData: nil)
        }
        let map = try #require(try await cluster.map())
        var perMaster: [Int] = []
        for shard in map.shards {
            let count = try await #require(cluster.node(at: shard.master)).command(["DBSIZE"])
            guard case .integer(let keys) = count else { Issue.record("no DBSIZE"); return }
            perMaster.append(Int(keys))
        }
        #expect(perMaster.reduce(0, +) >= 300)
        #expect(perMaster.allSatisfy { $0 >= 60 }, "\(perMaster)")
        // A store seeded with another node finds every key
        var configuration = RedisStore.Configuration(endpoints: [cluster.endpoints[5]])
        configuration.topology = .cluster
        configuration.keyPrefix = "route:"
        let reader = try RedisStore(configuration: configuration)
        for index in stride(from: 0, to: 300, by: 7) {
            #expect(await reader.data(forKey: "key-\(index)") == Data([UInt8(index % 256)]))
        }
        // Straight to the owner: no redirection, one map read each
        #expect(writer.statistics.redirections == 0 && reader.statistics.redirections == 0)
        #expect(writer.statistics.topologyRefreshes == 1)
        #expect(writer.statistics.failedWrites == 0 && writer.statistics.writes == 300)
        try await reader.removeAll()
        for index in stride(from: 0, to: 300, by: 13) { #expect(await writer.data(forKey: "key-\(index)") == nil) }
    }

    @Test("a value and its lease share a slot (one hash tag), so the lease's MGET and script run on one node")
    func valueAndLeaseShareASlot() async throws {
        let cluster = try await RedisCluster()
        let store = try store(cluster, prefix: "slot:")
        for key in ["https://a.example/1.jpg", "b", "ü/🙂"] {
            let placement = store.placement(for: key)
            let slots = try await [placement.valueName, placement.leaseName].asyncMap {
                try await cluster.nodes[0].command([Array("CLUSTER".utf8), Array("KEYSLOT".utf8), $0])
            }
            #expect(slots[0] == slots[1])
            #expect(slots[0] == .integer(Int64(placement.slot)))
        }
        // And a lease wait's MGET works (a CROSSSLOT error would be `unavailable`)
        guard case .acquired(let lease) = await store.acquireLease(forKey: "b", duration: .seconds(5)) else {
            Issue.record("no lease")
            return
        }
        try await store.setData(Data("bytes".utf8), forKey: "b", extendedData: nil)
        guard case .entry(let data, _) = try await store.waitForEntry(forKey: "b", pollInterval: .milliseconds(5), timeout: .seconds(2)) else {
            Issue.record("no entry")
            return
        }
        #expect(data == Data("bytes".utf8))
        #expect(await store.releaseLease(lease))
    }

    @Test("MOVED: a slot resharded after the map was read is followed, the map patched (later reads go straight) and read again")
    func movedAfterResharding() async throws {
        let cluster = try await RedisCluster()
        let store = try store(cluster, prefix: "moved:")
        try await store.setData(Data("v".utf8), forKey: "k", extendedData: nil)
        let placement = store.placement(for: "k")
        // Given the key's slot moves to another master (as redis-cli --cluster reshard does)
        let map = try #require(try await cluster.map())
        let owner = try #require(map.shard(for: placement.slot)).master
        let target = try #require(map.shards.first { $0.master != owner }).master
        try await Self.moveSlot(placement.slot, key: placement.valueName, from: owner, to: target, in: cluster)
        // When the store (whose map is stale) reads the key
        #expect(await store.data(forKey: "k") == Data("v".utf8))
        // Then it followed one MOVED, and the next read goes straight to the new owner
        #expect(store.statistics.redirections == 1)
        #expect(await store.data(forKey: "k") == Data("v".utf8))
        #expect(store.statistics.redirections == 1)
        #expect(await eventually { store.statistics.topologyRefreshes >= 2 })
    }

    @Test("ASK: a key already migrated out of a slot still migrating is read from the importing node after ASKING")
    func askDuringMigration() async throws {
        let cluster = try await RedisCluster()
        let store = try store(cluster, prefix: "ask:")
        try await store.setData(Data("a".utf8), forKey: "k", extendedData: nil)
        let placement = store.placement(for: "k")
        let map = try #require(try await cluster.map())
        let owner = try #require(map.shard(for: placement.slot)).master
        let target = try #require(map.shards.first { $0.master != owner }).master
        let source = try #require(cluster.node(at: owner))
        let destination = try #require(cluster.node(at: target))
        let sourceID = try #require(try await source.command(["CLUSTER", "MYID"]).text)
        let targetID = try #require(try await destination.command(["CLUSTER", "MYID"]).text)
        // Given the slot is mid-migration and this key has moved already
        #expect(try await destination.command(["CLUSTER", "SETSLOT", String(placement.slot), "IMPORTING", sourceID]) == .status("OK"))
        #expect(try await source.command(["CLUSTER", "SETSLOT", String(placement.slot), "MIGRATING", targetID]) == .status("OK"))
        let moved = try await source.command([Array("MIGRATE".utf8), Array("127.0.0.1".utf8), Array(String(target.port).utf8), [], Array("0".utf8), Array("5000".utf8), Array("KEYS".utf8), placement.valueName])
        #expect(moved == .status("OK"))
        // When the store reads it
        #expect(await store.data(forKey: "k") == Data("a".utf8))
        // Then one ASK was followed, and the map still names the old owner (ASK changes no map)
        #expect(store.statistics.redirections == 1)
        #expect(await store.data(forKey: "k") == Data("a".utf8))
        #expect(store.statistics.redirections == 2)
        // Finish the migration so the slot has one owner again
        for node in cluster.nodes where node.isRunning {
            _ = try await node.command(["CLUSTER", "SETSLOT", String(placement.slot), "NODE", targetID])
        }
    }

    @Test("reads from replicas: lookups go to the replicas (INFO commandstats), writes and leases to the masters")
    func replicaReads() async throws {
        let cluster = try await RedisCluster()
        let store = try store(cluster, prefix: "replica:") { $0.topology = .cluster(readsFromReplicas: true) }
        for index in 0..<30 { try await store.setData(Data([UInt8(index)]), forKey: "r\(index)", extendedData: nil) }
        let map = try #require(try await cluster.map())
        let masters = map.shards.compactMap { cluster.node(at: $0.master) }
        let replicas = map.shards.flatMap(\.replicas).compactMap { cluster.node(at: $0) }
        for node in masters + replicas { _ = try await node.command(["CONFIG", "RESETSTAT"]) }
        // Replication is asynchronous: wait until every value reached its replica
        #expect(try await eventually(attempts: 2000) {
            var total = 0
            for replica in replicas { if case .integer(let keys) = try await replica.command(["DBSIZE"]) { total += Int(keys) } }
            return total >= 30
        })
        for index in 0..<30 { #expect(await store.data(forKey: "r\(index)") == Data([UInt8(index)])) }
        var replicaGets = 0
        var masterGets = 0
        for replica in replicas { replicaGets += try await replica.info("commandstats", "cmdstat_get") ?? 0 }
        for master in masters { masterGets += try await master.info("commandstats", "cmdstat_get") ?? 0 }
        #expect(replicaGets == 30)
        #expect(masterGets == 0)
    }

    @Test("two loaders (two servers of a fleet) over the cluster: one origin fetch for 2 × 8 concurrent loads of a slow image")
    func leaseSingleFlight() async throws {
        let cluster = try await RedisCluster()
        let origin = LoopbackServer()
        try origin.start()
        defer { origin.stop() }
        let image = try FleetFixture.png()
        origin.route("/slow.png", FleetFixture.trickled(image, pieces: 8, every: .milliseconds(40)))
        let fleet = try (0..<2).map { _ in
            try FleetFixture.loader(shared: try store(cluster, prefix: "fleet:") { $0.leasePollInterval = .milliseconds(10) })
        }
        defer { for node in fleet { node.removeDirectory() } }
        let url = origin.url("/slow.png")
        let widths = try await withThrowingTaskGroup(of: Int?.self) { group in
            for node in fleet {
                for _ in 0..<8 { group.addTask { try await node.loader.response(url).image.width } }
            }
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(widths.count == 16 && Set(widths).count == 1 && widths[0] != nil)
        #expect(origin.statistics("/slow.png").requests == 1)
        // The other server was served by the tier (its lease wait found the entry)
        #expect(fleet.map { $0.shared.statistics.hits }.reduce(0, +) >= 1)
    }

    /// Moves `slot` (with `key`) from `source` to `target` for good, as a resharding does.
    static func moveSlot(_ slot: Int, key: [UInt8], from owner: RedisStore.Endpoint, to target: RedisStore.Endpoint, in cluster: RedisCluster) async throws {
        let source = try #require(cluster.node(at: owner))
        let destination = try #require(cluster.node(at: target))
        let sourceID = try #require(try await source.command(["CLUSTER", "MYID"]).text)
        let targetID = try #require(try await destination.command(["CLUSTER", "MYID"]).text)
        _ = try await destination.command(["CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID])
        _ = try await source.command(["CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID])
        _ = try await source.command([Array("MIGRATE".utf8), Array("127.0.0.1".utf8), Array(String(target.port).utf8), [], Array("0".utf8), Array("5000".utf8), Array("KEYS".utf8), key])
        for node in cluster.nodes where node.isRunning {
            _ = try await node.command(["CLUSTER", "SETSLOT", String(slot), "NODE", targetID])
        }
    }
}

extension Sequence {
    /// `map` with an async transform, in order.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
