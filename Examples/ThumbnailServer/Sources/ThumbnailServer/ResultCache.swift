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
/// A lower tier's value carries the format and the entity tag of the body
/// written (``extendedData(format:entityTag:)``), and a hit is served only
/// when the body read still has that tag: a value corrupted or truncated in
/// Redis or on disk, or written under the name by something else, is a miss
/// and is made again, never sent to a client. The tag is computed from the
/// bytes read in any case (for `ETag`), so the check costs nothing more.
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
    }

    /// Where a hit was found.
    enum Tier: String, Sendable {
        case memory, disk, redis
    }

    /// The shared tier's keys start with this, apart from the originals' (URLs).
    static let sharedPrefix = "result:"

    private let memory: NIOLockedValueBox<ByteBoundedLRU>
    private let disk: (any DataCaching)?
    private let shared: (any DataCaching)?
    private let hitCounters: [Tier: Counter]
    private let missCounter = Counter(label: "thumbnail_result_cache_misses_total")
    /// The background writes to the disk and the fleet's tiers.
    let writes: ResultWriteQueue

    /// Creates the cache.
    ///
    /// - Parameters:
    ///   - memoryBytes: The memory tier's bound; `0` turns the tier off.
    ///   - disk: The disk tier (a directory of its own), or `nil`.
    ///   - shared: The fleet's tier, or `nil`.
    ///   - writes: Where the writes to `disk` and `shared` wait for their turn.
    init(memoryBytes: Int, disk: (any DataCaching)?, shared: (any DataCaching)?, writes: ResultWriteQueue = ResultWriteQueue(maxInFlight: 4, maxQueued: 64)) {
        memory = NIOLockedValueBox(ByteBoundedLRU(limit: memoryBytes))
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
    func entry(forKey key: String) async -> (entry: Entry, tier: Tier)? {
        if let entry = memory.withLockedValue({ $0.value(forKey: key) }) {
            hitCounters[.memory]?.increment()
            return (entry, .memory)
        }
        // Trouble reading a tier is a miss: the response can still be made.
        if let disk, let stored = try? await disk.dataWithExtendedData(forKey: key),
           let entry = Self.entry(key: key, stored: stored) {
            hitCounters[.disk]?.increment()
            remember(entry, forKey: key)
            return (entry, .disk)
        }
        if let shared, let stored = try? await shared.dataWithExtendedData(forKey: Self.sharedPrefix + key),
           let entry = Self.entry(key: key, stored: stored) {
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

    /// Stores a response made for `key` in every tier; returns its entry.
    @discardableResult
    func store(_ body: Data, format: ImageFormat, forKey key: String) -> Entry {
        let entry = Entry(body: body, format: format, entityTag: EntityTag(parameters: key, body: body))
        remember(entry, forKey: key)
        let (disk, shared) = (disk, shared)
        if disk != nil || shared != nil {
            let extendedData = Self.extendedData(format: format, entityTag: entry.entityTag)
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
        memory.withLockedValue { $0.insert(entry, forKey: key) }
    }

    /// What a lower tier keeps beside a body: `FORMAT "TAG"`, the format's
    /// raw value and the body's entity tag when written.
    static func extendedData(format: ImageFormat, entityTag: EntityTag) -> Data {
        Data((format.rawValue + " " + entityTag.value).utf8)
    }

    /// An entry from a lower tier, or `nil` (a miss) when its extended data
    /// is not ``extendedData(format:entityTag:)`` (an older server's bare
    /// format, too: made again once) or the body no longer has the tag it
    /// was written with.
    static func entry(key: String, stored: (data: Data, extendedData: Data?)) -> Entry? {
        guard let text = stored.extendedData.flatMap({ String(data: $0, encoding: .utf8) }) else { return nil }
        let parts = text.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let format = ImageFormat(rawValue: String(parts[0])), format != .unknown,
              !stored.data.isEmpty
        else { return nil }
        let entityTag = EntityTag(parameters: key, body: stored.data)
        guard entityTag.value == parts[1] else { return nil }
        return Entry(body: stored.data, format: format, entityTag: entityTag)
    }
}

/// A least-recently-used map of responses bounded by the bytes of their bodies.
///
/// Recency is a queue of (key, stamp) with lazy deletion: a use appends a
/// new stamp, eviction pops from the front and skips stamps that are no
/// longer their key's. The queue is rebuilt when stale stamps outnumber
/// live ones, so its length stays within about twice the entry count.
struct ByteBoundedLRU: Sendable {
    private struct Slot {
        var entry: ResultCache.Entry
        var stamp: Int
    }

    private let limit: Int
    private var slots: [String: Slot] = [:]
    private var queue: [(key: String, stamp: Int)] = []
    private var head = 0
    private var nextStamp = 0
    private(set) var totalBytes = 0

    init(limit: Int) { self.limit = max(0, limit) }

    /// The entry under `key`, now the most recently used.
    mutating func value(forKey key: String) -> ResultCache.Entry? {
        guard var slot = slots[key] else { return nil }
        slot.stamp = stamp(key)
        slots[key] = slot
        compactIfNeeded()
        return slot.entry
    }

    /// Stores `entry` (replacing any under `key`), then evicts the least
    /// recently used entries past the limit. An entry over the whole limit is not kept.
    mutating func insert(_ entry: ResultCache.Entry, forKey key: String) {
        let bytes = entry.body.count
        guard bytes <= limit else { return }
        if let old = slots[key] { totalBytes -= old.entry.body.count }
        slots[key] = Slot(entry: entry, stamp: stamp(key))
        totalBytes += bytes
        while totalBytes > limit, head < queue.count {
            let (oldest, stamp) = queue[head]
            head += 1
            if let slot = slots[oldest], slot.stamp == stamp {
                slots[oldest] = nil
                totalBytes -= slot.entry.body.count
            }
        }
        compactIfNeeded()
    }

    private mutating func stamp(_ key: String) -> Int {
        nextStamp += 1
        queue.append((key, nextStamp))
        return nextStamp
    }

    private mutating func compactIfNeeded() {
        guard queue.count - head > 2 * slots.count + 64 else { return }
        let live = queue[head...].filter { slots[$0.key]?.stamp == $0.stamp }
        queue = Array(live)
        head = 0
    }
}
