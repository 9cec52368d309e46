import Testing
@testable import AsyncWebImage
import AWILocking

@Suite("MemoryCache", .timeLimit(.minutes(1)))
struct MemoryCacheTests {
    private func cache(cost: Int = 1000, count: Int = 100, fraction: Double = 1, weak: Bool = true) -> MemoryCache {
        MemoryCache(configuration: .init(
            costLimit: cost, countLimit: count, entryCostLimitFraction: fraction, isWeakRecoveryEnabled: weak))
    }

    /// Stores an image only the cache holds; the caller keeps no reference.
    private func storeUnheld(_ cache: MemoryCache, key: String, cost: Int) async {
        await cache.setImage(TestImages.costing(cost), forKey: key)
    }

    @Test("evicts the least recently used entry when over the count limit")
    func lruOrderByCount() async {
        // Given a cache of three entries a, b, c, with a read after c
        let cache = cache(count: 3, weak: false)
        for key in ["a", "b", "c"] { await storeUnheld(cache, key: key, cost: 10) }
        #expect(await cache.image(forKey: "a") != nil)
        // When d arrives
        await storeUnheld(cache, key: "d", cost: 10)
        // Then b, the least recently used, is gone and the order is d a c
        #expect(await cache.keysByRecency == ["d", "a", "c"])
        #expect(await cache.image(forKey: "b") == nil)
        let stats = await cache.statistics
        #expect(stats.evictions == 1)
        #expect(stats.count == 3)
        #expect(stats.totalCost == 30)
        #expect(stats.hits == 1)
        #expect(stats.misses == 1)
    }

    @Test("evicts by cost, oldest first, until the new entry fits")
    func costEviction() async {
        // Given 100 bytes of room holding 30 + 30 + 30
        let cache = cache(cost: 100, weak: false)
        for key in ["a", "b", "c"] { await storeUnheld(cache, key: key, cost: 30) }
        // When a 50-byte image arrives
        await storeUnheld(cache, key: "big", cost: 50)
        // Then a and b are evicted (90 + 50 - 30 = 110 > 100, 80 fits)
        #expect(await cache.keysByRecency == ["big", "c"])
        #expect(await cache.totalCost == 80)
        #expect(await cache.statistics.evictions == 2)
    }

    @Test("replacing a key updates its cost and recency")
    func replace() async {
        let cache = cache(cost: 100, weak: false)
        await storeUnheld(cache, key: "a", cost: 30)
        await storeUnheld(cache, key: "b", cost: 30)
        await storeUnheld(cache, key: "a", cost: 60)
        #expect(await cache.keysByRecency == ["a", "b"])
        #expect(await cache.totalCost == 90)
        #expect(await cache.count == 2)
    }

    @Test("refuses previews and images over the entry cost limit")
    func rejections() async throws {
        // Given a 1000-byte cache whose entries may take 10 % of it
        let cache = cache(cost: 1000, fraction: 0.1)
        let preview = TestImages.costing(10).with(isPreview: true)
        // When a preview and a 101-byte image are stored, and a 100-byte one
        let storedPreview = await cache.setImage(preview, forKey: "p")
        let storedLarge = await cache.setImage(TestImages.costing(101), forKey: "large")
        let storedFitting = await cache.setImage(TestImages.costing(100), forKey: "fits")
        // Then only the last is kept
        #expect(!storedPreview && !storedLarge && storedFitting)
        #expect(await cache.keysByRecency == ["fits"])
        #expect(await cache.statistics.rejections == 2)
    }

    @Test("a held image evicted by the LRU is recovered: same pixels, back in the LRU")
    func weakRecovery() async {
        // Given an image the caller still holds, evicted by newer entries
        let cache = cache(count: 2)
        let held = TestImages.costing(10, value: 42)
        await cache.setImage(held, forKey: "held")
        await storeUnheld(cache, key: "x", cost: 10)
        await storeUnheld(cache, key: "y", cost: 10)
        #expect(await cache.keysByRecency == ["y", "x"])
        // When it is looked up
        let recovered = await cache.image(forKey: "held")
        // Then it is the very same storage with whole metadata, and in the LRU again
        #expect(recovered?.storage === held.storage)
        #expect(recovered == held)
        #expect(await cache.keysByRecency == ["held", "y"])
        let stats = await cache.statistics
        #expect(stats.recoveries == 1)
        #expect(stats.misses == 0)
        #expect(stats.hits == 0)
    }

    @Test("an evicted image nobody holds is gone")
    func releasedImageIsGone() async {
        // Given an image stored without any other reference, then evicted
        let cache = cache(count: 1)
        await storeUnheld(cache, key: "a", cost: 10)
        await storeUnheld(cache, key: "b", cost: 10)
        // When it is looked up
        let found = await cache.image(forKey: "a")
        // Then it is a miss
        #expect(found == nil)
        #expect(await cache.statistics.recoveries == 0)
        #expect(await cache.statistics.misses == 1)
    }

    @Test("held, evicted, recovered, released, evicted again: then a miss")
    func holdThenRelease() async {
        let cache = cache(count: 1)
        var held: Image? = TestImages.costing(10, value: 1)
        await cache.setImage(held!, forKey: "a")
        await storeUnheld(cache, key: "b", cost: 10)
        #expect(await cache.image(forKey: "a") != nil)        // recovered, b evicted
        held = nil
        await storeUnheld(cache, key: "c", cost: 10)          // a evicted, nobody holds it
        #expect(held == nil)
        #expect(await cache.image(forKey: "a") == nil)
        #expect(await cache.statistics.recoveries == 1)
    }

    @Test("with weak recovery off, a held evicted image is a miss")
    func weakRecoveryOff() async {
        let cache = cache(count: 1, weak: false)
        let held = TestImages.costing(10)
        await cache.setImage(held, forKey: "a")
        await storeUnheld(cache, key: "b", cost: 10)
        #expect(await cache.image(forKey: "a") == nil)
        #expect(await cache.statistics.weakCount == 0)
        #expect(held.cost == 10)
    }

    @Test("dead weak entries are swept incrementally, never piling up")
    func sweep() async {
        // Given a one-entry LRU through which 1,000 unheld images pass
        let cache = cache(count: 1)
        for index in 0..<1000 { await storeUnheld(cache, key: "k\(index)", cost: 10) }
        // Then the weak table holds a bounded handful, not 999 dead entries
        let weakCount = await cache.statistics.weakCount
        #expect(weakCount <= 4)
        #expect(await cache.statistics.evictions == 999)
    }

    @Test("removeImage and removeAll empty both the LRU and the weak table")
    func removal() async {
        let cache = cache(count: 1)
        let held = TestImages.costing(10)
        await cache.setImage(held, forKey: "a")
        await cache.setImage(held, forKey: "b")                // a → weak table
        #expect(await cache.contains("a"))
        await cache.removeImage(forKey: "a")
        #expect(await !cache.contains("a"))
        #expect(await cache.image(forKey: "a") == nil)
        await cache.setImage(held, forKey: "c")                // b → weak table
        await cache.removeAll()
        #expect(await cache.image(forKey: "b") == nil)
        #expect(await cache.image(forKey: "c") == nil)
        let stats = await cache.statistics
        #expect(stats.count == 0 && stats.totalCost == 0 && stats.weakCount == 0)
    }

    @Test("trim keeps the most recent entries within the given cost")
    func trim() async {
        let cache = cache(weak: false)
        for key in ["a", "b", "c", "d"] { await storeUnheld(cache, key: key, cost: 10) }
        await cache.trim(toCost: 25)
        #expect(await cache.keysByRecency == ["d", "c"])
    }

    @Test("an entry lifetime turns old entries into misses, in the LRU and the weak table (manual clock)")
    func entryLifetime() async {
        // Given a 60-second lifetime, a clock the test moves, and a one-entry LRU
        let start = ContinuousClock.now
        let elapsed = Locked<Duration>(.zero)
        let cache = MemoryCache(
            configuration: .init(costLimit: 1000, countLimit: 1, entryCostLimitFraction: 1, entryLifetime: .seconds(60)),
            now: { start + elapsed.value })
        let held = TestImages.costing(10)
        await cache.setImage(held, forKey: "old")
        elapsed.withLock { $0 = .seconds(30) }
        await storeUnheld(cache, key: "young", cost: 10)      // "old" → weak table, still held
        // When 59 s have passed, both are served; at 61 s neither is
        elapsed.withLock { $0 = .seconds(59) }
        #expect(await cache.image(forKey: "young") != nil)
        #expect(await cache.image(forKey: "old")?.storage === held.storage)  // recovered, keeps its expiry
        elapsed.withLock { $0 = .seconds(61) }
        #expect(await cache.image(forKey: "old") == nil)
        elapsed.withLock { $0 = .seconds(91) }
        await cache.setImage(held, forKey: "renewed")          // stored at 91 s: served until 151 s
        #expect(await cache.removeExpired() == 0)
        elapsed.withLock { $0 = .seconds(150) }
        #expect(await cache.image(forKey: "renewed") != nil)
        elapsed.withLock { $0 = .seconds(152) }
        #expect(await cache.removeExpired() == 1)
        let stats = await cache.statistics
        #expect(stats.expirations == 2)
        #expect(stats.count == 0)
        #expect(stats.recoveries == 1)
    }

    @Test("synchronous lookups from many tasks racing stores and evictions: every lookup counted once, limits kept, hits are the stored pixels")
    func concurrentSynchronousLookups() async throws {
        // Given a cache of 16 entries and images that encode their key in their pixels
        let cache = cache(cost: 1 << 20, count: 16, weak: false)
        let keys = (0..<32).map { "k\($0)" }
        let images = try keys.indices.map { index in
            try Image(width: 4, height: 4, pixelFormat: .gray8, pixels: [UInt8](repeating: UInt8(index), count: 16))
        }
        // When 4 tasks look up through the loader's synchronous path while 2 store
        let lookupsPerTask = 2_000
        let hits = await withTaskGroup(of: Int.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    for round in 0..<500 {
                        let index = (round * 7 + writer) % keys.count
                        await cache.setImage(images[index], forKey: keys[index])
                    }
                    return 0
                }
            }
            for reader in 0..<4 {
                group.addTask {
                    var hits = 0
                    for round in 0..<lookupsPerTask {
                        let index = (round + reader * 5) % keys.count
                        if let entry = cache.entry(forKey: keys[index]) {
                            // Then a hit is the image stored under that key
                            #expect(entry.image.pixel(x: 3, y: 3) == [UInt8(index)])
                            hits += 1
                        }
                    }
                    return hits
                }
            }
            return await group.reduce(0, +)
        }
        // And the statistics count every lookup exactly once, within the limits
        let stats = await cache.statistics
        #expect(stats.hits == hits)
        #expect(stats.hits + stats.misses == 4 * lookupsPerTask)
        #expect(stats.count <= 16)
        #expect(stats.count == (await cache.keysByRecency).count)
        #expect(stats.totalCost == stats.count * 16)
    }

    @Test("default limits are sized from available memory and clamped")
    func defaults() {
        let configuration = MemoryCache.Configuration()
        #expect(configuration.costLimit >= 32 << 20 && configuration.costLimit <= 2 << 30)
        #expect(configuration.countLimit == configuration.costLimit / 4096)
        #expect(configuration.entryCostLimit == Int(Double(configuration.costLimit) * 0.1))
        #expect(MemoryCache.Configuration.availableMemory > 0)
    }
}
