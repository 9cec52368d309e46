import AWILocking
import Synchronization

/// A cost- and count-limited LRU cache of decoded images, with a
/// weak-recovery table behind it.
///
/// Lookups, insertions and evictions are O(1): a dictionary over an
/// index-linked list (no allocation per entry at steady state). When the LRU
/// must make room, the least recently used image moves to a table of weak
/// references to its pixel storage; while anything else in the process still
/// holds that image (a view, a response being written, another request's
/// result), a lookup finds it there, puts it back in the LRU and counts a
/// recovery, instead of reporting a miss that would decode the same pixels a
/// second time. Pixels nobody holds are freed as usual.
///
/// Previews (``Image/isPreview``) are never stored, nor images costing more
/// than ``Configuration/entryCostLimit``.
///
/// ```swift
/// let cache = MemoryCache()
/// await cache.setImage(image, forKey: "https://example.com/a.jpg")
/// let hit = await cache.image(forKey: "https://example.com/a.jpg")
/// ```
///
/// - Important: the actor only files images: it never decodes, encodes or
///   copies pixels, so a call holds it for a dictionary lookup and a few
///   index updates.
///
/// The state sits behind a lock rather than in the actor's isolation, so
/// that the loader's memory fast path reads it synchronously
/// (an internal, nonisolated lookup), without the two executor hops of an actor call;
/// the public API stays the actor's. Nothing but O(1) bookkeeping runs under
/// the lock: evicted images are released after it is let go.
public actor MemoryCache {
    /// The limits this cache enforces.
    public let configuration: Configuration

    /// An image in the LRU, when it stops being served, and the HTTP record
    /// of its response. A class, immutable: a lookup hands out one reference
    /// instead of copying the image and the record out of the LRU.
    final class Entry: Sendable {
        let image: Image
        let expiry: ContinuousClock.Instant?
        /// `expiry != nil`, decided once: the fast path asks on every hit,
        /// and an optional `Instant` (a resilient stdlib type) is tested
        /// through its value witnesses, not inline.
        let expires: Bool
        /// The HTTP metadata and freshness of the response the image came
        /// from, when the loader keeps them (``ImageLoader/HTTPCacheMode``).
        let http: HTTPCacheRecord?

        init(image: Image, expiry: ContinuousClock.Instant?, http: HTTPCacheRecord? = nil) {
            self.image = image
            self.expiry = expiry
            expires = expiry != nil
            self.http = http
        }
    }

    /// Everything the lock guards.
    private struct State {
        var lru = LRUStorage<String, Entry>()
        var weakTable = WeakRecoveryTable()
        var counters = Statistics()
    }

    private let state = Lock(State())
    private let now: @Sendable () -> ContinuousClock.Instant

    /// Creates an empty cache.
    ///
    /// - Parameter configuration: Limits and switches; the defaults are sized
    ///   from the memory available to the process.
    public init(configuration: Configuration = .init()) {
        self.init(configuration: configuration, now: { ContinuousClock.now })
    }

    /// Creates an empty cache reading time from `now`, for tests of ``Configuration/entryLifetime``.
    init(configuration: Configuration, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.configuration = configuration
        self.now = now
    }

    // MARK: Lookup

    /// The image stored under `key`, made the most recently used; or one the
    /// LRU evicted but that is still alive elsewhere, which is put back in the LRU.
    ///
    /// - Parameter key: The cache key (for a loader, the URL's key plus the
    ///   transformer and decode-size suffixes).
    /// - Returns: The image, or `nil` on a miss.
    /// - Complexity: O(1) on average; a recovery may evict, O(1) per evicted entry.
    public func image(forKey key: String) -> Image? {
        entry(forKey: key)?.image
    }

    /// The entry stored under `key` (its image and the HTTP record it was
    /// stored with), as ``image(forKey:)`` finds it; synchronous, for the
    /// loader's fast path.
    nonisolated func entry(forKey key: String) -> Entry? {
        // The common cases, a hit without an expiry and a miss with no weak
        // recovery, in one short critical section that returns one reference.
        let weak = configuration.isWeakRecoveryEnabled
        let found = state.withLock { state -> (entry: Entry?, done: Bool) in
            if let entry = state.lru.value(forKey: key) {
                guard !entry.expires else { return (entry, false) }
                state.counters.hits += 1
                return (entry, true)
            }
            guard weak else {
                state.counters.misses += 1
                return (nil, true)
            }
            return (nil, false)
        }
        if found.done { return found.entry }
        return entryWithExpiryOrRecovery(forKey: key)
    }

    /// ``entry(forKey:)`` for an entry with an expiry, or a lookup that may
    /// recover an evicted image from the weak table.
    private nonisolated func entryWithExpiryOrRecovery(forKey key: String) -> Entry? {
        let now = now
        let configuration = configuration
        let (entry, evicted) = state.withLock { state -> (Entry?, [Entry]) in
            if let entry = state.lru.value(forKey: key) {
                if let expiry = entry.expiry, now() >= expiry {
                    state.lru.removeValue(forKey: key)
                    state.counters.expirations += 1
                    state.counters.misses += 1
                    return (nil, [entry])
                }
                state.counters.hits += 1
                return (entry, [])
            }
            if configuration.isWeakRecoveryEnabled, let (image, cost, expiry) = state.weakTable.take(key) {
                if let expiry, now() >= expiry {
                    state.counters.expirations += 1
                    state.counters.misses += 1
                    return (nil, [])
                }
                state.counters.recoveries += 1
                let entry = Entry(image: image, expiry: expiry)
                state.lru.setValue(entry, forKey: key, cost: cost)
                var evicted: [Entry] = []
                Self.trim(&state, configuration: configuration, toCost: configuration.costLimit, count: configuration.countLimit, exempting: key, evicted: &evicted)
                return (entry, evicted)
            }
            state.counters.misses += 1
            return (nil, [])
        }
        // Released here, not under the lock: the last reference frees pixels.
        _ = evicted
        return entry
    }

    /// Whether a lookup of `key` would find an image now (in the LRU or,
    /// alive, in the weak-recovery table). Changes neither the order nor the statistics.
    ///
    /// - Complexity: O(1) on average.
    public func contains(_ key: String) -> Bool {
        let weak = configuration.isWeakRecoveryEnabled
        return state.withLock { $0.lru.contains(key) || (weak && $0.weakTable.containsLive(key)) }
    }

    // MARK: Storing

    /// Stores `image` under `key` as the most recently used entry, evicting
    /// least recently used entries until the limits hold.
    ///
    /// - Parameters:
    ///   - image: The image. Previews are refused.
    ///   - key: The cache key; an image already stored under it is replaced.
    ///   - cost: What the image counts against ``Configuration/costLimit``;
    ///     ``Image/cost`` (bytes of pixels) by default.
    /// - Returns: `false` when the image was refused (a preview, or costlier
    ///   than ``Configuration/entryCostLimit``); an older entry for `key` is
    ///   removed then, since it no longer is the image for that key.
    /// - Complexity: O(1) on average, plus O(1) per evicted entry.
    @discardableResult
    public func setImage(_ image: Image, forKey key: String, cost: Int? = nil) -> Bool {
        setImage(image, forKey: key, cost: cost, http: nil)
    }

    /// Stores `image` with the HTTP record of its response, as ``setImage(_:forKey:cost:)``.
    @discardableResult
    func setImage(_ image: Image, forKey key: String, cost: Int? = nil, http: HTTPCacheRecord?) -> Bool {
        let cost = max(0, cost ?? image.cost)
        let configuration = configuration
        guard !image.isPreview, cost <= configuration.entryCostLimit, configuration.countLimit > 0 else {
            let removed = state.withLock { state -> Entry? in
                state.counters.rejections += 1
                guard !image.isPreview else { return nil }
                state.weakTable.remove(key)
                return state.lru.removeValue(forKey: key)?.value
            }
            _ = removed
            return false
        }
        let entry = Entry(image: image, expiry: configuration.entryLifetime.map { now() + $0 }, http: http)
        let evicted = state.withLock { state -> [Entry] in
            state.weakTable.remove(key)
            var evicted: [Entry] = []
            if let replaced = state.lru.setValue(entry, forKey: key, cost: cost) { evicted.append(replaced) }
            Self.trim(&state, configuration: configuration, toCost: configuration.costLimit, count: configuration.countLimit, exempting: key, evicted: &evicted)
            return evicted
        }
        // Released after the lock: the last reference frees pixels.
        _ = evicted
        return true
    }

    /// Replaces the HTTP record of the image under `key` (after a `304 Not
    /// Modified`), keeping the image and its place in the LRU.
    ///
    /// - Returns: `false` when no image is stored under `key`.
    @discardableResult
    func setHTTPRecord(_ http: HTTPCacheRecord, forKey key: String) -> Bool {
        state.withLock { state in
            guard let entry = state.lru.peek(key), let cost = state.lru.cost(forKey: key) else { return false }
            state.lru.setValue(Entry(image: entry.image, expiry: entry.expiry, http: http), forKey: key, cost: cost)
            return true
        }
    }

    // MARK: Removing

    /// Removes the image stored under `key` from the LRU and the
    /// weak-recovery table.
    ///
    /// - Returns: The image removed from the LRU, if there was one.
    /// - Complexity: O(1) on average.
    @discardableResult
    public func removeImage(forKey key: String) -> Image? {
        state.withLock { state in
            state.weakTable.remove(key)
            return state.lru.removeValue(forKey: key)?.value.image
        }
    }

    /// Removes every image, from the LRU and from the weak-recovery table.
    ///
    /// - Complexity: O(n).
    public func removeAll() {
        state.withLock { state in
            state.lru.removeAll()
            state.weakTable.removeAll()
        }
    }

    /// Evicts least recently used images until at most `cost` bytes and
    /// `count` images remain (for example when the host reports memory
    /// pressure). Evicted images go to the weak-recovery table as usual.
    ///
    /// - Parameters:
    ///   - cost: Bytes of pixels to keep at most.
    ///   - count: Images to keep at most; no limit by default.
    /// - Complexity: O(1) per evicted entry.
    public func trim(toCost cost: Int, count: Int = .max) {
        let configuration = configuration
        let evicted = state.withLock { state -> [Entry] in
            var evicted: [Entry] = []
            Self.trim(&state, configuration: configuration, toCost: cost, count: count, exempting: nil, evicted: &evicted)
            return evicted
        }
        _ = evicted
    }

    /// Removes every image whose ``Configuration/entryLifetime`` has passed
    /// (lookups drop them too, one by one; this frees their memory at once).
    ///
    /// - Returns: The number of images removed from the LRU.
    /// - Complexity: O(n).
    @discardableResult
    public func removeExpired() -> Int {
        guard configuration.entryLifetime != nil else { return 0 }
        let now = now()
        return state.withLock { state in
            var removed = 0
            for key in state.lru.keysByRecency {
                if let expiry = state.lru.peek(key)?.expiry, now >= expiry {
                    state.lru.removeValue(forKey: key)
                    removed += 1
                }
            }
            state.counters.expirations += removed
            return removed
        }
    }

    // MARK: Statistics

    /// Counters since creation (or the last reset) and the current cost and count.
    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.counters
            statistics.totalCost = state.lru.totalCost
            statistics.count = state.lru.count
            statistics.weakCount = state.weakTable.count
            return statistics
        }
    }

    /// Sets the hit, miss, recovery, eviction and rejection counters to zero.
    public func resetStatistics() {
        state.withLock { $0.counters = Statistics() }
    }

    /// Bytes of pixels in the LRU.
    public var totalCost: Int { state.withLock { $0.lru.totalCost } }

    /// Images in the LRU.
    public var count: Int { state.withLock { $0.lru.count } }

    /// Keys from the most to the least recently used, for tests and debugging.
    ///
    /// - Complexity: O(n).
    var keysByRecency: [String] { state.withLock { $0.lru.keysByRecency } }

    // MARK: Eviction

    /// Evicts from the tail until within `cost` and `count`, adding what it
    /// evicts to `evicted` (released by the caller once the lock is let go).
    /// The entry just stored (`exempting`) is never evicted by its own
    /// insertion: it was checked against the entry cost limit, and evicting
    /// it at once would make the store pointless.
    private static func trim(
        _ state: inout State, configuration: Configuration, toCost cost: Int, count: Int, exempting key: String?, evicted: inout [Entry]
    ) {
        while state.lru.totalCost > cost || state.lru.count > count {
            guard let removed = state.lru.removeLeastRecentlyUsed() else { return }
            if removed.key == key {
                state.lru.setValue(removed.value, forKey: removed.key, cost: removed.cost)
                if state.lru.count == 1 { return }
                continue
            }
            state.counters.evictions += 1
            // The weak table keeps no HTTP record: an image whose reuse
            // depends on one (an expiry, a Vary) is not recoverable without it.
            if configuration.isWeakRecoveryEnabled, !(removed.value.http?.constrainsReuse ?? false) {
                state.weakTable.insert(removed.value.image, forKey: removed.key, cost: removed.cost, expiry: removed.value.expiry)
            }
            evicted.append(removed.value)
        }
    }
}
