public import Foundation
import Synchronization
import AWILocking

/// The memory cache, the disk tier and the fleet's shared tier together:
/// decoded images in memory, encoded bytes below, queried by key through
/// the tiers and stored to the ones you choose.
///
/// ```swift
/// let cache = ImageCache(name: "avatars")
/// try await cache.store(image, data: downloaded, forKey: key, waitsForDisk: true)
/// if let hit = try await cache.query(forKey: key) {
///     print(hit.source)                  // .memory: the image; .disk after a restart: the bytes
/// }
/// ```
///
/// The cache stores; it never decodes or encodes. The loader owns its
/// coders (``ImageLoader/Configuration/coders``) and decodes what it reads
/// from the cache, so that only a coder that reads a format ever judges an
/// entry of that format; a call made on the cache directly gets the bytes
/// of a disk hit, to decode with the coders of its choice
/// (``ImageCoderRegistry/decode(_:options:)``).
///
/// A class, not an actor: it owns no mutable state of its own (but a
/// failure counter), so a memory hit costs exactly one hop into
/// ``MemoryCache``. Concurrent queries of one key are not coalesced here;
/// the loader coalesces them above.
public final class ImageCache: Sendable {
    /// The decoded-image tier.
    public let memory: MemoryCache
    /// The encoded-data tier; `nil` for a memory-only cache.
    public let disk: (any DataCaching)?
    /// A tier shared by a fleet of servers (`RedisStore`, product `AsyncWebImageRedis`), between the
    /// disk and the network; `nil` by default. A hit here fills ``disk``;
    /// every write to ``disk`` goes here too. Its trouble is never an error
    /// of a load: a read that fails is a miss, a write that fails is counted
    /// in ``sharedWriteFailureCount``. When it can lease (the `AsyncWebImageRedis` product's `RedisStore` does),
    /// loaders elect one server of the fleet to fetch each image.
    public let sharedTier: (any DataCaching)?
    /// The shared tier's fetch lease, when it has one: found once here, so
    /// the pipeline asks for the capability instead of casting the tier on
    /// every load.
    package let leasing: (any CacheLeasing)?
    /// Called (on no particular thread) with each error of a disk write
    /// that nobody awaits; `nil` by default.
    let onDiskWriteFailure: (@Sendable (any Error) -> Void)?
    let writeFailures = Atomic<Int>(0)
    /// Disk writes nobody awaits, in flight (for ``shutdown()``).
    let backgroundWrites: BackgroundWrites
    let sharedWriteFailures = Atomic<Int>(0)

    /// Whether a tier below memory (disk or shared) keeps encoded bytes and
    /// their metadata: without one, no load makes either's stored form.
    var keepsEncodedData: Bool { disk != nil || sharedTier != nil }

    /// How many writes to the ``sharedTier`` failed since the cache was created.
    public var sharedWriteFailureCount: Int { sharedWriteFailures.load(ordering: .relaxed) }

    /// How many disk writes failed (awaited or not) since the cache was
    /// created: a background store that fails is counted here, not lost.
    public var diskWriteFailureCount: Int { writeFailures.load(ordering: .relaxed) }

    /// A cache with default limits and its disk tier in the `default` store
    /// (`~/.cache/AsyncWebImage/default`).
    public static let shared: ImageCache = {
        let cache = ImageCache(name: "default")
        sharedMemory.withLock { $0 = ObjectIdentifier(cache.memory) }
        return cache
    }()

    /// The memory tier of ``shared`` once it exists: whether a cache is the
    /// shared one without creating it.
    private static let sharedMemory = Lock<ObjectIdentifier?>(nil)

    /// Whether this is ``shared``.
    var isShared: Bool { Self.sharedMemory.withLock { $0 } == ObjectIdentifier(memory) }

    /// Creates a cache from its parts.
    ///
    /// - Parameters:
    ///   - memory: The memory tier.
    ///   - disk: The disk tier, or `nil` for none.
    ///   - sharedTier: A tier shared by a fleet (`RedisStore`, product `AsyncWebImageRedis`), or `nil` (the default) for none.
    ///   - onDiskWriteFailure: Called with the error of each disk write nobody
    ///     awaits (also counted in ``diskWriteFailureCount``); `nil` by default.
    public init(
        memory: MemoryCache,
        disk: (any DataCaching)?,
        sharedTier: (any DataCaching)? = nil,
        onDiskWriteFailure: (@Sendable (any Error) -> Void)? = nil
    ) {
        backgroundWrites = BackgroundWrites()
        self.memory = memory
        self.disk = disk
        self.sharedTier = sharedTier
        leasing = sharedTier as? any CacheLeasing
        self.onDiskWriteFailure = onDiskWriteFailure
    }

    /// Creates a cache with a ``MemoryCache`` and a ``DiskStore`` named `name`
    /// in the default cache directory.
    ///
    /// - Parameters:
    ///   - name: The disk store's folder name.
    ///   - memoryConfiguration: Limits of the memory tier.
    ///   - diskConfiguration: Limits and policies of the disk tier.
    public convenience init(
        name: String,
        memoryConfiguration: MemoryCache.Configuration = .init(),
        diskConfiguration: DiskStore.Configuration = .init()
    ) {
        self.init(
            memory: MemoryCache(configuration: memoryConfiguration),
            disk: DiskStore(name: name, configuration: diskConfiguration))
    }

    // MARK: Lifecycle

    /// Waits for the disk writes nobody awaits (background stores, disk
    /// fills from the shared tier) to finish, then shuts the disk tier and
    /// the shared tier down (``DataCaching/shutdown()``): a ``DiskStore``'s
    /// I/O thread ends (see ``DiskStore/shutdown()``), an `AsyncWebImageRedis` `RedisStore`'s
    /// threads end and its connections close. No write is cut short, so no
    /// temporary file is left in the cache directory.
    ///
    /// ``shared`` is meant to live as long as the process: shut it down only
    /// when nothing will use it again. The same holds for a tier given to
    /// several caches: it is shut down with the first of them.
    public func shutdown() async {
        await backgroundWrites.waitUntilIdle()
        await disk?.shutdown()
        await sharedTier?.shutdown()
    }

    // MARK: Querying

    /// Looks `key` up in memory, then on disk, then in the shared tier: the
    /// image a memory hit holds, or the encoded bytes a lower tier holds
    /// (not decoded: decode them with your coders, or load through the
    /// loader, which decodes with its own).
    ///
    /// - Parameters:
    ///   - key: The cache key, used as it is for every tier.
    ///   - cacheType: The tiers to look in: ``ImageCacheType/all`` by default;
    ///     ``ImageCacheType/none`` returns `nil` at once.
    ///   - options: Whether a memory hit reads the disk's bytes too, and
    ///     whether the entry's extended data is read.
    /// - Returns: What was found and where, or `nil` on a miss.
    /// - Throws: ``ImageError/diskIO(path:errno:message:)`` when the disk tier cannot be read.
    /// - Complexity: a memory hit is O(1); a disk hit reads the entry.
    public func query(forKey key: String, cacheType: ImageCacheType = .all, options: QueryOptions = .init()) async throws -> QueryResult? {
        if cacheType.includesMemory, let image = await memory.image(forKey: key) {
            var result = QueryResult(image: image, data: nil, extendedData: nil, source: .memory)
            // Only when the disk tier is queried too: `.memory` means "do not touch the disk".
            if cacheType.includesDisk, let disk {
                // Best effort: the memory hit stands even if the disk cannot be read.
                if options.queryMemoryData {
                    let entry = try? await disk.dataWithExtendedData(forKey: key)
                    result.data = entry?.data
                    result.extendedData = options.includeExtendedData ? entry?.extendedData : nil
                } else if options.includeExtendedData {
                    result.extendedData = try? await disk.extendedData(forKey: key)
                }
            }
            return result
        }
        guard cacheType.includesDisk else { return nil }
        return try await readEntry(forKey: key, includeExtendedData: options.includeExtendedData).map {
            QueryResult(image: nil, data: $0.data, extendedData: $0.extendedData, source: $0.fromSharedTier ? .sharedTier : .disk)
        }
    }

    /// Where `key` is cached now, without reading anything.
    ///
    /// - Parameters:
    ///   - key: The cache key.
    ///   - cacheType: The tiers to look in.
    /// - Returns: ``ImageCacheType/memory``, ``ImageCacheType/disk`` (the disk or the shared tier) or ``ImageCacheType/none``.
    public func containsImage(forKey key: String, cacheType: ImageCacheType = .all) async -> ImageCacheType {
        if cacheType.includesMemory, await memory.contains(key) { return .memory }
        if cacheType.includesDisk, let disk, await disk.contains(key) { return .disk }
        if cacheType.includesDisk, let sharedTier, await sharedTier.contains(key) { return .disk }
        return .none
    }

    // MARK: Storing

    /// Stores an image and/or its encoded bytes under `key`: the image in
    /// memory (previews are refused there), the bytes on disk and in the
    /// shared tier. Nothing is encoded: to keep an image that has no bytes
    /// on disk, encode it first (``ImageCoderRegistry/encode(_:as:quality:)``).
    ///
    /// - Parameters:
    ///   - image: The decoded image, or `nil` to store bytes only.
    ///   - data: The encoded bytes, or `nil` to store the image in memory only.
    ///   - extendedData: Metadata to keep with the disk entry (`ETag`, ...).
    ///   - key: The cache key.
    ///   - cacheType: The tiers to store to: ``ImageCacheType/all`` by default.
    ///   - waitsForDisk: Return only once the disk write is done (`.waitStoreCache`),
    ///     and throw its error. `false` by default: the write then finishes in
    ///     the background even if the caller is cancelled, and its failure is
    ///     counted in ``diskWriteFailureCount`` and passed to the failure handler.
    /// - Throws: with `waitsForDisk`, ``ImageError/diskIO(path:errno:message:)``.
    public func store(
        _ image: Image?,
        data: Data?,
        extendedData: Data? = nil,
        forKey key: String,
        cacheType: ImageCacheType = .all,
        waitsForDisk: Bool = false
    ) async throws {
        if cacheType.includesMemory, let image {
            await memory.setImage(image, forKey: key)
        }
        guard cacheType.includesDisk, let data, let write = dataWrite(data, extendedData: extendedData, forKey: key) else { return }
        try await writeToDisk([write], waits: waitsForDisk)
    }

    // MARK: Removing

    /// Removes the image and data stored under `key` from the chosen tiers.
    ///
    /// - Parameters:
    ///   - key: The cache key.
    ///   - cacheType: The tiers to remove from: ``ImageCacheType/all`` by default.
    /// - Throws: ``ImageError/diskIO(path:errno:message:)`` when the disk entry cannot be removed.
    public func removeImage(forKey key: String, cacheType: ImageCacheType = .all) async throws {
        if cacheType.includesMemory { await memory.removeImage(forKey: key) }
        if cacheType.includesDisk, let disk { try await disk.removeData(forKey: key) }
        // The shared tier's trouble is never the caller's: at worst the entry lives out its TTL.
        if cacheType.includesDisk, let sharedTier { try? await sharedTier.removeData(forKey: key) }
    }

    /// Empties the chosen tiers.
    ///
    /// - Parameter cacheType: The tiers to empty: ``ImageCacheType/all`` by default.
    /// - Throws: ``ImageError/diskIO(path:errno:message:)`` when disk entries cannot be removed.
    public func removeAll(cacheType: ImageCacheType = .all) async throws {
        if cacheType.includesMemory { await memory.removeAll() }
        if cacheType.includesDisk, let disk { try await disk.removeAll() }
        if cacheType.includesDisk, let sharedTier { try? await sharedTier.removeAll() }
    }
}
