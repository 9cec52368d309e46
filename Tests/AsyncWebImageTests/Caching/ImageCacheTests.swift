import Foundation
import Testing
@testable import AsyncWebImage

/// A second `DataCaching` tier, kept in memory: shows that any conformer
/// slots in as the disk tier (or the shared one).
actor DictionaryDataTier: DataCaching {
    private var entries: [String: (Data, Data?)] = [:]
    func data(forKey key: String) -> Data? { entries[key]?.0 }
    func setData(_ data: Data, forKey key: String, extendedData: Data?) { entries[key] = (data, extendedData) }
    func extendedData(forKey key: String) -> Data? { entries[key]?.1 }
    func removeData(forKey key: String) { entries[key] = nil }
    func contains(_ key: String) -> Bool { entries[key] != nil }
    func removeAll() { entries = [:] }
}

/// The cache stores and returns; it never decodes or encodes (the loader
/// owns the coders: `DecodeStageTests` and the loader's suites decode).
@Suite("ImageCache", .timeLimit(.minutes(1)))
struct ImageCacheTests {
    private let directory = TemporaryDirectory()

    private func makeCache(memory: MemoryCache.Configuration = .init(costLimit: 1 << 20), shared: (any DataCaching)? = nil) -> (ImageCache, DiskStore) {
        let disk = DiskStore(directory: directory.url, configuration: .init(cleansUpAtStart: false, cleanupInterval: nil))
        return (ImageCache(memory: MemoryCache(configuration: memory), disk: disk, sharedTier: shared), disk)
    }

    @Test("a disk hit returns the stored bytes, undecoded, and puts nothing in memory; a memory hit returns the image")
    func bytesBelowImagesInMemory() async throws {
        // Given bytes on disk only, and an image with its bytes in both tiers
        let (cache, _) = makeCache()
        let bytes = CountingDecoder.encode(side: 4, value: 9)
        try await cache.store(nil, data: bytes, forKey: "disk", waitsForDisk: true)
        let image = TestImages.gray(side: 2, value: 5)
        try await cache.store(image, data: CountingDecoder.encode(side: 2, value: 5), forKey: "both", waitsForDisk: true)

        // When each is queried
        let disk = try await cache.query(forKey: "disk")
        let memory = try await cache.query(forKey: "both")

        // Then the disk hit is its bytes and the memory hit its image
        #expect(disk?.source == .disk && disk?.data == bytes && disk?.image == nil)
        #expect(await cache.memory.image(forKey: "disk") == nil)
        #expect(memory?.source == .memory && memory?.data == nil)
        #expect(memory?.image?.storage === image.storage)
    }

    @Test("a hit in the shared tier says so; the disk is filled from it")
    func sharedTierHit() async throws {
        let shared = DictionaryDataTier()
        let (cache, disk) = makeCache(shared: shared)
        await shared.setData(Data([1, 2, 3]), forKey: "k", extendedData: Data("e".utf8))
        let result = try await cache.query(forKey: "k", options: .init(includeExtendedData: true))
        #expect(result?.source == .sharedTier && result?.data == Data([1, 2, 3]) && result?.extendedData == Data("e".utf8))
        #expect(await eventually { await disk.contains("k") })
        #expect(try await cache.query(forKey: "k")?.source == .disk)
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

    @Test("queryMemoryData and includeExtendedData read the disk tier on a memory hit")
    func memoryHitWithData() async throws {
        let (cache, disk) = makeCache()
        let data = CountingDecoder.encode(side: 2, value: 5)
        let image = TestImages.gray(side: 2, value: 5)
        try await cache.store(image, data: data, extendedData: Data("W/\"1\"".utf8), forKey: "k", waitsForDisk: true)
        let plain = try await cache.query(forKey: "k")
        let withData = try await cache.query(forKey: "k", options: .init(queryMemoryData: true))
        let withMeta = try await cache.query(forKey: "k", options: .init(includeExtendedData: true))
        #expect(plain?.source == .memory && plain?.data == nil && plain?.extendedData == nil)
        #expect(withData?.source == .memory && withData?.data == data && withData?.extendedData == nil)
        #expect(withMeta?.data == nil && withMeta?.extendedData == Data("W/\"1\"".utf8))
        #expect(await disk.statistics.hits == 1)
        // A memory-only query never touches the disk, whatever the options
        let memoryOnly = try await cache.query(forKey: "k", cacheType: .memory, options: .init(queryMemoryData: true))
        #expect(memoryOnly?.source == .memory && memoryOnly?.data == nil)
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

    @Test("an image stored without bytes stays in memory: nothing is encoded, the disk gets nothing")
    func noEncoding() async throws {
        let (cache, disk) = makeCache()
        let image = try Image(width: 3, height: 2, pixelFormat: .rgba8, pixels: (0..<24).map { UInt8($0 * 10) })
        try await cache.store(image, data: nil, forKey: "k", waitsForDisk: true)
        #expect(await disk.contains("k") == false)
        #expect(await cache.containsImage(forKey: "k") == .memory)
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

    @Test("any DataCaching conformer works as the disk tier")
    func customTier() async throws {
        let tier = DictionaryDataTier()
        let cache = ImageCache(memory: MemoryCache(), disk: tier)
        let bytes = CountingDecoder.encode(side: 2, value: 3)
        try await cache.store(nil, data: bytes, extendedData: Data("e".utf8), forKey: "k", waitsForDisk: true)
        let result = try await cache.query(forKey: "k", options: .init(includeExtendedData: true))
        #expect(result?.source == .disk && result?.extendedData == Data("e".utf8) && result?.data == bytes)
    }
}
