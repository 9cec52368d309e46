import AWIBenchResults
import AsyncWebImage
import AsyncWebImageRedis
import Foundation

/// Shared-tier hits: `RedisStore` (its RESP client on SwiftNIO) reading one
/// 64 KiB entry over plain TCP, TLS and a 6-node Redis Cluster, each beside
/// the client the tier had before issue 29 — hiredis 0.14's synchronous
/// client on a dedicated thread (`DedicatedThreadPool`), over plain TCP, the
/// entry decoded the same way. hiredis has no TLS and no cluster support, so
/// its plain-TCP figure is the baseline of all three rows.
///
/// One operation = 500 hits in a row (one lookup at a time: latency, not
/// throughput); the rows report latency and CPU per hit. Ours and the
/// baseline alternate rounds (A B B A …).
struct SharedTierScenario: Scenario {
    let name = "shared-tier"
    let summary = "shared-tier hits: RedisStore (SwiftNIO) plain / TLS / cluster vs hiredis 0.14 plain, latency and CPU per hit"

    static let hitsPerRound = 500
    static let entryBytes = 64 << 10

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        guard RedisProcesses.isAvailable else {
            return [.failure(scenario: name, caseName: "all", error: ScenarioSkipped("no redis-server/redis-cli (scripts/install-deps installs them)"))]
        }
        let redis = try RedisProcesses()
        let plainPort = try await redis.start([])
        let (tlsPort, caFile) = try await redis.startTLS()
        let clusterPorts = try await redis.startCluster()

        let plain = Self.configuration([.init(host: "127.0.0.1", port: plainPort)])
        var tls = Self.configuration([.init(host: "127.0.0.1", port: tlsPort)])
        tls.tls = .init(caFile: caFile)
        var cluster = Self.configuration(clusterPorts.map { .init(host: "127.0.0.1", port: $0) })
        cluster.topology = .cluster

        var rows: [ResultRow] = []
        for (caseName, configuration) in [("plain TCP", plain), ("TLS", tls), ("cluster, 3 masters", cluster)] {
            rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                try await measure(caseName: caseName, configuration: configuration, hiredisPort: plainPort, context: context)
            })
        }
        return rows
    }

    /// A store's configuration for the run: deadlines of seconds, not the
    /// tier's production 100–250 ms, so a benchmark machine busy with other
    /// work measures hits rather than timeouts (a hit takes the same path
    /// either way).
    static func configuration(_ endpoints: [RedisStore.Endpoint]) -> RedisStore.Configuration {
        var configuration = RedisStore.Configuration(endpoints: endpoints)
        configuration.keyPrefix = "bench:"
        configuration.connectTimeout = .seconds(1)
        configuration.commandTimeout = .seconds(2)
        configuration.lookupBudget = .seconds(2)
        return configuration
    }

    private func measure(caseName: String, configuration: RedisStore.Configuration, hiredisPort: Int, context: BenchmarkContext) async throws -> ResultRow {
        let key = "https://origin.example/photo-\(caseName).jpg"
        var random = SplitMix64(seed: 29)
        let image = Data((0..<Self.entryBytes).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        let extended = Data("etag: \"v1\"".utf8)
        let store = try RedisStore(configuration: configuration)
        try await store.checkConnection()
        try await store.setData(image, forKey: key, extendedData: extended)
        // The baseline reads the same value, written under the same name on the plain server.
        let baselineStore = try RedisStore(configuration: Self.configuration([.init(host: "127.0.0.1", port: hiredisPort)]))
        try await baselineStore.setData(image, forKey: key, extendedData: extended)
        let valueName = Array("bench:{\(SHA256.hexDigest(key))}:v".utf8)
        // The library's shared tier before issue 29: hiredis's synchronous
        // client on a dedicated thread, so its blocking calls never occupy the
        // cooperative pool.
        let pool = DedicatedThreadPool(name: "awi-bench-hiredis", startsEagerly: true)
        let connection = try HiredisConnection(host: "127.0.0.1", port: hiredisPort, connectTimeout: .seconds(1), commandTimeout: .seconds(1))
        var problems: [String] = []

        let plan = context.plan(warmup: 1, minIterations: 5, maxIterations: 30, budget: 6)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                var wrong = 0
                let sample = await Sample.inProcess {
                    for _ in 0..<Self.hitsPerRound where await store.dataWithExtendedData(forKey: key)?.data.count != Self.entryBytes {
                        wrong += 1
                    }
                }
                if wrong > 0 { problems.append("RedisStore: \(wrong) misses") }
                return sample
            },
            baseline: {
                var wrong = 0
                let sample = await Sample.inProcess {
                    for _ in 0..<Self.hitsPerRound {
                        // What the library's read was: a pool thread, hiredis's GET, the entry parsed.
                        let entry = try? await pool.run { () -> RedisCacheEntry? in
                            guard let bytes = try? connection.command([Array("GET".utf8), valueName]) ?? nil else { return nil }
                            return RedisCacheEntry(decoding: bytes)
                        }
                        if entry?.data.count != Self.entryBytes { wrong += 1 }
                    }
                }
                if wrong > 0 { problems.append("hiredis: \(wrong) misses") }
                return sample
            }
        )
        await pool.shutdownAndWait()
        await store.shutdown()
        await baselineStore.shutdown()
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(Self.hitsPerRound), unit: "hits/s", basis: .wall,
            baseline: "hiredis 0.14 on a thread, plain TCP", target: nil
        )
        let hits = Double(Self.hitsPerRound)
        var note = "one operation = \(Self.hitsPerRound) sequential hits of a \(Self.entryBytes >> 10) KiB entry"
        if let wall = measurement.ours.median(.wall), let cpu = measurement.ours.median(.cpu),
           let baseWall = measurement.baseline.median(.wall), let baseCPU = measurement.baseline.median(.cpu) {
            note += "; per hit: latency \(Format.seconds(wall / hits)) vs \(Format.seconds(baseWall / hits)) hiredis, "
                + "CPU \(Format.seconds(cpu / hits)) vs \(Format.seconds(baseCPU / hits)) hiredis (this process; redis-server not counted)"
        }
        let statistics = store.statistics
        if statistics.failures > 0 { problems.append("\(statistics.failures) failures") }
        if !problems.isEmpty {
            note += "; PROBLEMS: " + Set(problems).sorted().joined(separator: "; ")
            row.passed = false
        }
        row.note = note
        return row
    }
}
