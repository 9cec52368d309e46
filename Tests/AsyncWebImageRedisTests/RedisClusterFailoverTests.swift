import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// A master of a real 6-node Redis Cluster killed (`kill -9`) while loads run.
@Suite("RedisStore on a Redis Cluster: failover", .serialized, .timeLimit(.minutes(2)))
struct RedisClusterFailoverTests {
    @Test("a master killed mid-load: its replica is promoted, loads go on (misses allowed), none fails or waits past the budget, and the new master is used")
    func masterKilledMidLoad() async throws {
        let cluster = try await RedisCluster()
        let origin = LoopbackServer()
        try origin.start()
        defer { origin.stop() }
        let image = try FleetFixture.png()
        for index in 0..<600 { origin.route("/i\(index).png", .ok(image, contentType: "image/png")) }
        var configuration = RedisStore.Configuration(endpoints: Array(cluster.endpoints.prefix(2)))
        configuration.topology = .cluster
        configuration.keyPrefix = "failover:"
        configuration.lookupBudget = .milliseconds(200)
        configuration.commandTimeout = .milliseconds(200)
        configuration.breakerCoolDown = .milliseconds(500)
        let store = try RedisStore(configuration: configuration)
        try await store.checkConnection()
        let node = try FleetFixture.loader(shared: store)
        defer { node.removeDirectory() }
        let map = try #require(try await cluster.map())
        let victim = try #require(map.shards.first).master
        let victimServer = try #require(cluster.node(at: victim))
        let replica = try #require(map.shards.first?.replicas.first)

        // Loads in rounds: each load a fresh image (a shared-tier lookup,
        // a lease, a write), bounded by count and by the test's deadline.
        let clock = ContinuousClock()
        let started = clock.now
        var slowest = Duration.zero
        var loads = 0
        var killedAt: ContinuousClock.Instant?
        var promotedAt: ContinuousClock.Instant?
        // Bounded: 600 rounds, or 20 s, whichever comes first.
        for round in 0..<600 where clock.now - started < .seconds(20) {
            // A new image each round: a shared-tier lookup, a lease, a
            // download, a shared-tier write.
            let url = origin.url("/i\(round).png")
            let loadStart = clock.now
            let response = try await node.loader.response(url, options: .waitStoreCache)
            #expect(response.image.width > 0)
            slowest = max(slowest, clock.now - loadStart)
            loads += 1
            if round == 20 {
                // When the first shard's master dies mid-load (kill -9, reaped)
                victimServer.stop()
                killedAt = clock.now
            }
            if killedAt != nil, promotedAt == nil, try await cluster.map()?.shards.contains(where: { $0.master == replica }) == true {
                promotedAt = clock.now
            }
            // Once the replica is master and the store has read the map again, stop
            if promotedAt != nil, let after = promotedAt, clock.now - after > .seconds(1) { break }
        }
        // Then the replica was promoted
        #expect(promotedAt != nil, "no promotion within the test's 20 s")
        // And no load failed or waited long: the tier's budget (lookup,
        // lease, write) plus the origin's own time, far under the failover's
        #expect(slowest < .seconds(1).scaled, "slowest load \(slowest)")
        // And after the promotion, the store writes to and reads from the new master
        #expect(await eventually(attempts: 3000) {
            try? await store.setData(Data("after".utf8), forKey: "post-failover-\(loads)", extendedData: nil)
            return await store.data(forKey: "post-failover-\(loads)") == Data("after".utf8)
        })
        let keyOnVictimShard = try #require((0..<10_000).lazy.map { "probe-\($0)" }.first {
            map.shard(for: store.placement(for: $0).slot)?.master == victim
        })
        #expect(await eventually(attempts: 3000) {
            (try? await store.setData(Data("moved".utf8), forKey: keyOnVictimShard, extendedData: nil)) != nil
        })
        #expect(await store.data(forKey: keyOnVictimShard) == Data("moved".utf8))
        #expect(try await cluster.node(at: replica)?.command(["EXISTS", String(decoding: store.placement(for: keyOnVictimShard).valueName, as: UTF8.self)]) == .integer(1))
        #expect(store.statistics.topologyRefreshes >= 2)
        print("RedisClusterFailoverTests: \(loads) loads, slowest \(slowest), promotion after \(promotedAt.flatMap { p in killedAt.map { p - $0 } } ?? .zero)")
    }
}
