import AWIBenchResults
import AsyncWebImage
import Foundation
import Synchronization

/// Lookups that hit in `MemoryCache` (an actor: one hop per lookup, LRU
/// bookkeeping, statistics) against the least a cache can do: a Dictionary
/// behind a `Mutex`. From one task (the latency of one lookup) and from one
/// task per core at once (hits/s when every core asks; the actor serialises).
struct MemoryHitScenario: Scenario {
    let name = "memory-hit"
    let summary = "MemoryCache.image(forKey:) hits: p50/p99 latency and hits/s, vs a Dictionary behind a Mutex"

    /// Looks up every key of a slice; returns how many were found.
    private typealias Lookup = @Sendable (ArraySlice<String>, _ timed: Bool, inout [Double]) async -> Int

    /// The keys of the filled cache, the shape of real ones (URL + options suffix).
    private static let keyCount = 1_000

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        // 1,000 small distinct images, 64×64 RGBA (16 KiB each): the lookup
        // cost does not depend on the pixel count, and 16 MiB stays well
        // inside both caches so every lookup is a hit.
        let keys = (0..<Self.keyCount).map { "https://images.example.com/photos/\($0).jpg#thumb=256x256" }
        var images: [Image] = []
        for index in keys.indices {
            images.append(try Image(width: 64, height: 64, pixelFormat: .rgba8, pixels: [UInt8](repeating: UInt8(index & 0xFF), count: 64 * 64 * 4)))
        }
        let cache = MemoryCache(configuration: .init(costLimit: 256 << 20))
        let dictionary = Mutex<[String: Image]>([:])
        for (key, image) in zip(keys, images) {
            await cache.setImage(image, forKey: key)
            dictionary.withLock { $0[key] = image }
        }
        // A fixed pseudo-random order, the same for both sides.
        var random = SplitMix64(seed: 7)
        let order = (0..<20_000).map { _ in keys[Int(random.next() % UInt64(keys.count))] }

        // `timed`: clock each lookup (for p50/p99). Throughput rounds run
        // untimed, since two clock reads per lookup would cost as much as
        // the lookup itself and compress the ratio toward 1.
        let ours: Lookup = { slice, timed, latencies in
            var found = 0
            for key in slice {
                let start = timed ? ResourceUsage.wallSeconds() : 0
                let image = await cache.image(forKey: key)
                if timed { latencies.append(ResourceUsage.wallSeconds() - start) }
                if image != nil { found += 1 }
            }
            return found
        }
        let baseline: Lookup = { slice, timed, latencies in
            var found = 0
            for key in slice {
                let start = timed ? ResourceUsage.wallSeconds() : 0
                let image = dictionary.withLock { $0[key] }
                if timed { latencies.append(ResourceUsage.wallSeconds() - start) }
                if image != nil { found += 1 }
            }
            return found
        }

        let cores = max(2, ProcessInfo.processInfo.activeProcessorCount)
        var rows: [ResultRow] = []
        for tasks in [1, cores] {
            let caseName = tasks == 1 ? "get, 1 task" : "get, \(tasks) tasks"
            rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                try await measure(caseName: caseName, tasks: tasks, order: order, context: context, ours: ours, baseline: baseline)
            })
        }
        withExtendedLifetime(images) {}
        return rows
    }

    /// Interleaved rounds; each round runs every lookup of `order`, split
    /// over `tasks` concurrent tasks. Latency percentiles come from the
    /// individually timed lookups, throughput from each round's wall time.
    private func measure(
        caseName: String,
        tasks: Int,
        order: [String],
        context: BenchmarkContext,
        ours: @escaping Lookup,
        baseline: @escaping Lookup
    ) async throws -> ResultRow {
        let plan = context.plan(warmup: 2, minIterations: 5, maxIterations: 40, budget: 3)
        var latencies: [Double] = []
        var baselineLatencies: [Double] = []
        var misses = 0

        /// Runs every lookup of `order` over `tasks` tasks; returns the
        /// latencies when `timed`.
        func pass(_ lookup: @escaping Lookup, timed: Bool) async -> [Double] {
            let chunk = (order.count + tasks - 1) / tasks
            var collected: [Double] = []
            var found = 0
            await withTaskGroup(of: (Int, [Double]).self) { group in
                for part in 0..<tasks {
                    let slice = order[(part * chunk)..<min(order.count, (part + 1) * chunk)]
                    group.addTask {
                        var latencies: [Double] = []
                        if timed { latencies.reserveCapacity(slice.count) }
                        let found = await lookup(slice, timed, &latencies)
                        return (found, latencies)
                    }
                }
                for await (count, part) in group {
                    found += count
                    collected += part
                }
            }
            misses += order.count - found
            return collected
        }

        /// One round: a timed-as-a-whole throughput pass, then a pass
        /// clocking each lookup.
        func round(_ lookup: @escaping Lookup) async -> (Sample, [Double]) {
            let sample = await Sample.inProcess { _ = await pass(lookup, timed: false) }
            return (sample, await pass(lookup, timed: true))
        }

        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                let (sample, part) = await round(ours)
                latencies += part
                return sample
            },
            baseline: {
                let (sample, part) = await round(baseline)
                baselineLatencies += part
                return sample
            }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            // CPU time: the loops are CPU-bound, and on a loaded machine a
            // longer round is preempted more often, which wall time would
            // charge to the slower side twice.
            unitsPerOperation: Double(order.count), unit: "hits/s", basis: .cpu,
            baseline: "Mutex<Dictionary>", target: nil
        )
        // Per-lookup latency, not per-round time.
        let ourStatistics = Statistics(latencies)
        let theirStatistics = Statistics(baselineLatencies)
        row.p50 = ourStatistics?.median
        row.p99 = ourStatistics?.p99
        row.cpuSeconds = measurement.ours.cpuStatistics.map { $0.median / Double(order.count) }
        row.note = "\(order.count) lookups per round over 1,000 keys, throughput from untimed rounds; baseline p50 \(Format.seconds(theirStatistics?.median)), p99 \(Format.seconds(theirStatistics?.p99))"
            + "; by wall clock \(Format.rate(measurement.ours.median(.wall).map { Double(order.count) / $0 }, unit: "hits/s")) vs "
            + "\(Format.rate(measurement.baseline.median(.wall).map { Double(order.count) / $0 }, unit: "hits/s"))"
            + (misses > 0 ? "; \(misses) unexpected misses" : "")
        return row
    }
}
