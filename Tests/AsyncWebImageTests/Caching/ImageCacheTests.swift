import Foundation
import Testing
@_spi(Benchmarks) @testable import AsyncWebImage

/// A second `DataCaching` tier, kept in memory: shows that any conformer
/// slots in as the disk tier.
actor DictionaryDataTier: DataCaching {
    private var entries: [String: (Data, Data?)] = [:]
    func data(forKey key: String) -> Data? { entries[key]?.0 }
    func setData(_ data: Data, forKey key: String, extendedData: Data?) { entries[key] = (data, extendedData) }
    func extendedData(forKey key: String) -> Data? { entries[key]?.1 }
    func removeData(forKey key: String) { entries[key] = nil }
    func contains(_ key: String) -> Bool { entries[key] != nil }
    func removeAll() { entries = [:] }
}

@Suite("ImageCache", .timeLimit(.minutes(1)))
struct ImageCacheTests {
    private let directory = TemporaryDirectory()

    private func makeCache(
        decoder: CountingDecoder = CountingDecoder(),
        memory: MemoryCache.Configuration = .init(costLimit: 1 << 20),
        limit: Int = 2
    ) -> (CodedCache, DiskStore) {
        let disk = DiskStore(directory: directory.url, configuration: .init(cleansUpAtStart: false, cleanupInterval: nil))
        let cache = ImageCache(memory: MemoryCache(configuration: memory), disk: disk, decodeLimiter: ConcurrencyLimiter(limit: limit))
        return (CodedCache(cache: cache, coders: decoder.registry), disk)
    }

    @Test("a disk hit is decoded once, lands in memory, and the next query is a memory hit")
    func diskThenMemory() async throws {
        // Given encoded data on disk only
        let decoder = CountingDecoder()
        let (cache, _) = makeCache(decoder: decoder)
        let data = CountingDecoder.encode(side: 4, value: 9)
        try await cache.store(nil, data: data, forKey: "k", waitsForDisk: true)
        #expect(await cache.containsImage(forKey: "k") == .disk)
        // When queried twice
        let first = try await cache.query(forKey: "k")
        let second = try await cache.query(forKey: "k")
        // Then the first comes from disk with its data, the second from memory, one decode in all
        #expect(first?.cacheType == .disk)
        #expect(first?.data == data)
        #expect(first?.image?.pixel(x: 3, y: 3) == [9])
        #expect(second?.cacheType == .memory)
        #expect(second?.data == nil)
        #expect(second?.image?.storage === first?.image?.storage)
        #expect(decoder.counts.value.calls == 1)
        #expect(await cache.containsImage(forKey: "k") == .memory)
    }

    @Test("a held image evicted from memory is recovered, not decoded again")
    func weakRecoveryThroughCache() async throws {
        // Given a one-entry memory tier and an image decoded from disk that the caller holds
        let decoder = CountingDecoder()
        let (cache, _) = makeCache(decoder: decoder, memory: .init(costLimit: 1 << 20, countLimit: 1))
        try await cache.store(nil, data: CountingDecoder.encode(side: 2, value: 1), forKey: "held", waitsForDisk: true)
        let held = try #require(try await cache.query(forKey: "held")?.image)
        // When another image pushes it out of the LRU and it is queried again
        try await cache.store(TestImages.gray(side: 3), data: nil, forKey: "other", cacheType: .memory)
        let again = try await cache.query(forKey: "held")
        // Then it is a memory hit on the same pixels, with one decode in all
        #expect(again?.cacheType == .memory)
        #expect(again?.image?.storage === held.storage)
        #expect(decoder.counts.value.calls == 1)
        #expect(await cache.memory.statistics.recoveries == 1)
    }

    @Test("disk data its format's coder cannot decode is removed and a miss; data no registered coder reads stays, and the query says why")
    func undecodable() async throws {
        let decoder = CountingDecoder()
        let (cache, disk) = makeCache(decoder: decoder)
        try await disk.setData(Data("TSTI".utf8) + Data([0]), forKey: "bad")
        #expect(try await cache.query(forKey: "bad") == nil)
        #expect(await !disk.contains("bad"))
        #expect(await cache.memory.count == 0)
        // Data no registered coder reads is this reader's limit, not the entry's
        // fault (a loader with a coder for it reads it): it is kept
        try await disk.setData(Data("<html>404</html>".utf8), forKey: "html")
        await #expect(throws: ImageError.unsupportedFormat(.unknown)) { try await cache.query(forKey: "html") }
        #expect(await disk.contains("html"))
    }

    @Test("a truncated disk entry is a miss, removed, and counted")
    func truncatedEntry() async throws {
        let (cache, disk) = makeCache()
        try await cache.store(nil, data: CountingDecoder.encode(side: 2, value: 1), forKey: "k", waitsForDisk: true)
        try FileHandle(forUpdating: URL(fileURLWithPath: disk.path(forKey: "k"))).truncate(atOffset: 3)
        #expect(try await cache.query(forKey: "k") == nil)
        #expect(await disk.statistics.damagedEntries == 1)
        #expect(await cache.containsImage(forKey: "k") == .none)
    }

    @Test("avoidDecode returns the data only, decodes nothing, stores nothing in memory")
    func avoidDecode() async throws {
        let decoder = CountingDecoder()
        let (cache, _) = makeCache(decoder: decoder)
        let data = CountingDecoder.encode(side: 2, value: 5)
        try await cache.store(nil, data: data, extendedData: Data("etag".utf8), forKey: "k", waitsForDisk: true)
        let result = try await cache.query(forKey: "k", options: .init(avoidDecode: true, includeExtendedData: true))
        #expect(result?.image == nil && result?.data == data && result?.cacheType == .disk)
        #expect(result?.extendedData == Data("etag".utf8))
        #expect(decoder.counts.value.calls == 0)
        #expect(await cache.memory.count == 0)
    }

    @Test("queryMemoryData and includeExtendedData read the disk tier on a memory hit")
    func memoryHitWithData() async throws {
        let (cache, disk) = makeCache()
        let data = CountingDecoder.encode(side: 2, value: 5)
        let image = TestImages.gray(side: 2, value: 5)
        try await cache.store(image, data: data, extendedData: Data("W/\"1\"".utf8), forKey: "k", waitsForDisk: true)
        let plain = try await cache.query(forKey: "k")
        let withData = try await cache.query(forKey: "k", options: .init(queryMemoryData: true))
        let withMeta = try await cache.query(forKey: "k", options: .init(includeExtendedData: true))
        #expect(plain?.cacheType == .memory && plain?.data == nil && plain?.extendedData == nil)
        #expect(withData?.cacheType == .memory && withData?.data == data && withData?.extendedData == nil)
        #expect(withMeta?.data == nil && withMeta?.extendedData == Data("W/\"1\"".utf8))
        #expect(await disk.statistics.hits == 1)
        // A memory-only query never touches the disk, whatever the options
        let memoryOnly = try await cache.query(forKey: "k", cacheType: .memory, options: .init(queryMemoryData: true))
        #expect(memoryOnly?.cacheType == .memory && memoryOnly?.data == nil)
        #expect(await disk.statistics.hits == 1)
    }

    @Test("cache types select the tiers queried, stored and removed")
    func cacheTypes() async throws {
        let (cache, disk) = makeCache()
        let data = CountingDecoder.encode(side: 2, value: 5)
        // Stored to memory only, then to disk only
        try await cache.store(TestImages.gray(side: 2), data: data, forKey: "m", cacheType: .memory, waitsForDisk: true)
        try await cache.store(TestImages.gray(side: 2), data: data, forKey: "d", cacheType: .disk, waitsForDisk: true)
        #expect(await cache.containsImage(forKey: "m") == .memory)
        #expect(await cache.containsImage(forKey: "d") == .disk)
        #expect(try await cache.query(forKey: "m", cacheType: .disk) == nil)
        #expect(try await cache.query(forKey: "d", cacheType: .memory) == nil)
        #expect(try await cache.query(forKey: "m", cacheType: .none) == nil)
        #expect(await disk.statistics.hits == 0)
        // Removing from memory leaves the disk copy
        try await cache.store(TestImages.gray(side: 2), data: data, forKey: "both", waitsForDisk: true)
        try await cache.removeImage(forKey: "both", cacheType: .memory)
        #expect(await cache.containsImage(forKey: "both") == .disk)
        try await cache.removeImage(forKey: "both")
        #expect(await cache.containsImage(forKey: "both") == .none)
        try await cache.removeAll()
        #expect(await cache.containsImage(forKey: "m") == .none)
        #expect(await cache.containsImage(forKey: "d") == .none)
    }

    @Test("an image stored without data is encoded (PNG for in-memory images) and decodes to the same pixels")
    func encodesWhenNoData() async throws {
        let (cache, disk) = makeCache()
        let image = try Image(width: 3, height: 2, pixelFormat: .rgba8, pixels: (0..<24).map { UInt8($0 * 10) })
        try await cache.store(image, data: nil, forKey: "k", cacheType: .disk, waitsForDisk: true)
        let stored = try #require(try await disk.data(forKey: "k"))
        #expect(ImageFormat.detect(stored) == .png)
        let decoded = try #require(try await cache.query(forKey: "k")?.image)
        #expect(decoded.hasSamePixels(as: image))
    }

    @Test("a store that does not wait still reaches the disk")
    func backgroundStore() async throws {
        let (cache, disk) = makeCache()
        try await cache.store(nil, data: CountingDecoder.encode(side: 1, value: 1), forKey: "k")
        #expect(await eventually { await disk.contains("k") })
    }

    @Test("a failed disk write is thrown when waited for")
    func failedWrite() async throws {
        let (cache, _) = makeCache()
        try FileFlags.makeReadOnly(directory.path)
        defer { try? FileFlags.makeWritable(directory.path) }
        await #expect(throws: ImageError.self) {
            try await cache.store(nil, data: Data([1]), forKey: "k", waitsForDisk: true)
        }
    }

    @Test("disk decodes never exceed the limiter's permits")
    func boundedDecodes() async throws {
        // Given 8 entries on disk and a limiter of 2
        var decoder = CountingDecoder()
        decoder.delayMicroseconds = 2000
        let (cache, _) = makeCache(decoder: decoder, limit: 2)
        for index in 0..<8 {
            try await cache.store(nil, data: CountingDecoder.encode(side: 2, value: UInt8(index)), forKey: "k\(index)", waitsForDisk: true)
        }
        // When all are queried at once
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let pixel = try await cache.query(forKey: "k\(index)")?.image?.pixel(x: 0, y: 0)
                    #expect(pixel == [UInt8(index)])
                }
            }
            try await group.waitForAll()
        }
        // Then all were decoded, at most two at a time
        let counts = decoder.counts.value
        #expect(counts.calls == 8)
        #expect(counts.peak <= 2)
    }

    @Test("a query cancelled while waiting for a decode permit throws and decodes nothing")
    func cancelledQuery() async throws {
        let decoder = CountingDecoder()
        let (cache, _) = makeCache(decoder: decoder, limit: 1)
        try await cache.store(nil, data: CountingDecoder.encode(side: 1, value: 1), forKey: "k", waitsForDisk: true)
        try await cache.decodeLimiter.acquire()
        let query = Task { try await cache.query(forKey: "k") }
        #expect(await eventually { cache.decodeLimiter.waitingCount == 1 })
        query.cancel()
        await #expect(throws: CancellationError.self) { try await query.value }
        cache.decodeLimiter.release()
        #expect(decoder.counts.value.calls == 0)
        #expect(await cache.memory.count == 0)
    }

    @Test("any DataCaching conformer works as the disk tier")
    func customTier() async throws {
        let decoder = CountingDecoder()
        let tier = DictionaryDataTier()
        let cache = CodedCache(cache: ImageCache(memory: MemoryCache(), disk: tier), coders: decoder.registry)
        try await cache.store(nil, data: CountingDecoder.encode(side: 2, value: 3), extendedData: Data("e".utf8), forKey: "k", waitsForDisk: true)
        let result = try await cache.query(forKey: "k", options: .init(includeExtendedData: true))
        #expect(result?.cacheType == .disk && result?.extendedData == Data("e".utf8))
        #expect(result?.image?.pixel(x: 1, y: 1) == [3])
    }
}

/// An ``ImageCache`` whose direct calls decode and encode with one registry
/// (the counting decoder's), as a caller passing `coders:` to every call would.
@dynamicMemberLookup
private struct CodedCache: Sendable {
    let cache: ImageCache
    let coders: ImageCoderRegistry

    subscript<T>(dynamicMember path: KeyPath<ImageCache, T>) -> T { cache[keyPath: path] }

    func query(forKey key: String, cacheType: ImageCacheType = .all, options: ImageCache.QueryOptions = .init()) async throws -> ImageCache.QueryResult? {
        try await cache.query(forKey: key, cacheType: cacheType, options: options, coders: coders)
    }

    func store(
        _ image: Image?, data: Data?, extendedData: Data? = nil, forKey key: String, cacheType: ImageCacheType = .all, waitsForDisk: Bool = false
    ) async throws {
        try await cache.store(image, data: data, extendedData: extendedData, forKey: key, cacheType: cacheType, coders: coders, waitsForDisk: waitsForDisk)
    }

    func containsImage(forKey key: String, cacheType: ImageCacheType = .all) async -> ImageCacheType {
        await cache.containsImage(forKey: key, cacheType: cacheType)
    }

    func removeImage(forKey key: String, cacheType: ImageCacheType = .all) async throws {
        try await cache.removeImage(forKey: key, cacheType: cacheType)
    }

    func removeAll(cacheType: ImageCacheType = .all) async throws {
        try await cache.removeAll(cacheType: cacheType)
    }
}
