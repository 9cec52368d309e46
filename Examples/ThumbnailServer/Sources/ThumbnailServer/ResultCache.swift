import AsyncWebImage
import Foundation
import Metrics
import NIOConcurrencyHelpers

/// The encoded responses the server already made, by what they depend on:
/// the source URL, the transform, the output format and the quality.
///
/// Three tiers, looked up in order: memory (LRU, bounded by bytes), a
/// ``DiskStore`` of its own (`--cache-dir DIR` → `DIR/results`, beside the
/// originals in `DIR/originals`), and the fleet's Redis when one is given
/// (`--redis`; keys `result:…`, so they never meet the originals' keys). A
/// hit in a lower tier fills the tiers above it. A hit costs no decode and no
/// encode: the bytes go to the socket as they are.
///
/// A lower tier's value carries the format, the entity tag of the body
/// written and its freshness (``extendedData(format:entityTag:freshness:)``),
/// and a hit is served only when the body read still has that tag: a value
/// corrupted or truncated in Redis or on disk, or written under the name by
/// something else, is a miss and is made again, never sent to a client. The
/// tag is computed from the bytes read in any case (for `ETag`), so the
/// check costs nothing more.
///
/// Only results of originals a shared cache may keep are stored here
/// (``ThumbnailCachePolicy``), and each is served while its
/// ``ResultFreshness`` lasts, in every tier; past it, it is a miss.
///
/// Writes to the disk and Redis run in the background: the client that
/// caused them does not wait, and a failed write is only a later miss. They
/// go through a ``ResultWriteQueue``, bounded in number: past its bound a
/// write is dropped and counted, never a task more.
final class ResultCache: Sendable {
    /// One cached response.
    struct Entry: Sendable {
        /// The encoded image.
        let body: Data
        /// Its format (a negotiated JPEG-or-PNG request learns it after encoding).
        let format: ImageFormat
        /// Its validator, computed once from the bytes.
        let entityTag: EntityTag
        /// How long it may be served, from the original's freshness.
        let freshness: ResultFreshness
    }

    /// Where a hit was found.
    enum Tier: String, Sendable {
        case memory, disk, redis
    }

    /// The shared tier's keys start with this, apart from the originals' (URLs).
    static let sharedPrefix = "result:"

    private let memory: NIOLockedValueBox<BoundedLRU<Entry>>
    private let disk: (any DataCaching)?
    private let shared: (any DataCaching)?
    private let hitCounters: [Tier: Counter]
    private let missCounter = Counter(label: "thumbnail_result_cache_misses_total")
    /// The background writes to the disk and the fleet's tiers.
    let writes: ResultWriteQueue

    /// Creates the cache.
    ///
    /// - Parameters:
    ///   - memoryBytes: The memory tier's bound, keys and bookkeeping
    ///     counted (``BoundedLRU``); `0` turns the tier off.
    ///   - memoryEntries: The most responses the memory tier keeps.
    ///   - disk: The disk tier (a directory of its own), or `nil`.
    ///   - shared: The fleet's tier, or `nil`.
    ///   - writes: Where the writes to `disk` and `shared` wait for their turn.
    init(
        memoryBytes: Int, memoryEntries: Int = 65_536, disk: (any DataCaching)?, shared: (any DataCaching)?,
        writes: ResultWriteQueue = ResultWriteQueue(maxInFlight: 4, maxQueued: 64)
    ) {
        memory = NIOLockedValueBox(BoundedLRU(limit: memoryBytes, maxCount: memoryEntries))
        self.writes = writes
        self.disk = disk
        self.shared = shared
        hitCounters = [
            .memory: Counter(label: "thumbnail_result_cache_hits_total", dimensions: [("tier", "memory")]),
            .disk: Counter(label: "thumbnail_result_cache_hits_total", dimensions: [("tier", "disk")]),
            .redis: Counter(label: "thumbnail_result_cache_hits_total", dimensions: [("tier", "redis")]),
        ]
    }

    /// The response stored under `key`, and the tier it came from.
    func entry(forKey key: String, now: Date = Date()) async -> (entry: Entry, tier: Tier)? {
        let remembered: Entry? = memory.withLockedValue { memory in
            guard let entry = memory.value(forKey: key) else { return nil }
            guard entry.freshness.isFresh(at: now) else {
                memory.removeValue(forKey: key)
                return nil
            }
            return entry
        }
        if let entry = remembered {
            hitCounters[.memory]?.increment()
            return (entry, .memory)
        }
        // Trouble reading a tier is a miss: the response can still be made.
        if let disk, let stored = try? await disk.dataWithExtendedData(forKey: key),
           let entry = Self.entry(key: key, stored: stored, now: now) {
            hitCounters[.disk]?.increment()
            remember(entry, forKey: key)
            return (entry, .disk)
        }
        if let shared, let stored = try? await shared.dataWithExtendedData(forKey: Self.sharedPrefix + key),
           let entry = Self.entry(key: key, stored: stored, now: now) {
            hitCounters[.redis]?.increment()
            remember(entry, forKey: key)
            if let disk {
                writes.submit { try? await disk.setData(stored.data, forKey: key, extendedData: stored.extendedData) }
            }
            return (entry, .redis)
        }
        missCounter.increment()
        return nil
    }

    /// What the memory tier holds: entries, and their cost in bytes (bodies,
    /// keys and bookkeeping).
    var memoryUsage: (count: Int, bytes: Int) {
        memory.withLockedValue { ($0.count, $0.totalCost) }
    }

    /// Stores a response made for `key`, served until `freshness` says, in
    /// every tier; returns its entry.
    @discardableResult
    func store(_ body: Data, format: ImageFormat, freshness: ResultFreshness, forKey key: String) -> Entry {
        let entry = Entry(body: body, format: format, entityTag: EntityTag(parameters: key, body: body), freshness: freshness)
        remember(entry, forKey: key)
        let (disk, shared) = (disk, shared)
        if disk != nil || shared != nil {
            let extendedData = Self.extendedData(format: format, entityTag: entry.entityTag, freshness: freshness)
            writes.submit {
                try? await shared?.setData(body, forKey: Self.sharedPrefix + key, extendedData: extendedData)
                try? await disk?.setData(body, forKey: key, extendedData: extendedData)
            }
        }
        return entry
    }

    /// Waits for the background writes, then ends the disk tier's I/O
    /// thread. The fleet's tier is the loader's cache's to shut down.
    func shutdown() async {
        await writes.waitUntilIdle()
        await disk?.shutdown()
    }

    private func remember(_ entry: Entry, forKey key: String) {
        memory.withLockedValue { $0.insert(entry, valueBytes: entry.body.count + entry.entityTag.value.utf8.count, forKey: key) }
    }

    /// What a lower tier keeps beside a body: `FORMAT "TAG" SHARED CLIENT M`,
    /// the format's raw value, the body's entity tag when written and its
    /// freshness (``ResultFreshness/encoded``).
    static func extendedData(format: ImageFormat, entityTag: EntityTag, freshness: ResultFreshness) -> Data {
        Data((format.rawValue + " " + entityTag.value + " " + freshness.encoded).utf8)
    }

    /// An entry from a lower tier, or `nil` (a miss) when its extended data
    /// is not ``extendedData(format:entityTag:freshness:)`` (an older
    /// server's, without freshness, too: made again once), the body no
    /// longer has the tag it was written with, or it is no longer fresh at `now`.
    static func entry(key: String, stored: (data: Data, extendedData: Data?), now: Date = Date()) -> Entry? {
        guard let text = stored.extendedData.flatMap({ String(data: $0, encoding: .utf8) }) else { return nil }
        let parts = text.split(separator: " ", maxSplits: 2)
        guard parts.count == 3, let format = ImageFormat(rawValue: String(parts[0])), format != .unknown,
              let freshness = ResultFreshness(encoded: parts[2]), freshness.isFresh(at: now),
              !stored.data.isEmpty
        else { return nil }
        let entityTag = EntityTag(parameters: key, body: stored.data)
        guard entityTag.value == parts[1] else { return nil }
        return Entry(body: stored.data, format: format, entityTag: entityTag, freshness: freshness)
    }
}
