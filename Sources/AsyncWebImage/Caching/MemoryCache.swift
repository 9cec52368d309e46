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
public actor MemoryCache {
    /// The limits this cache enforces.
    public let configuration: Configuration

    /// An image in the LRU and when it stops being served.
    private struct Entry {
        var image: Image
        var expiry: ContinuousClock.Instant?
        /// The HTTP metadata and freshness of the response the image came
        /// from, when the loader keeps them (``HTTPCacheMode``).
        var http: HTTPCacheRecord?
    }

    private var lru = LRUStorage<String, Entry>()
    private var weakTable = WeakRecoveryTable()
    private var counters = Statistics()
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

    /// The image stored under `key` with the HTTP record it was stored with,
    /// as ``image(forKey:)`` finds it.
    func entry(forKey key: String) -> (image: Image, http: HTTPCacheRecord?)? {
        if let entry = lru.value(forKey: key) {
            if let expiry = entry.expiry, now() >= expiry {
                lru.removeValue(forKey: key)
                counters.expirations += 1
                counters.misses += 1
                return nil
            }
            counters.hits += 1
            return (entry.image, entry.http)
        }
        if configuration.isWeakRecoveryEnabled, let (image, cost, expiry) = weakTable.take(key) {
            if let expiry, now() >= expiry {
                counters.expirations += 1
                counters.misses += 1
                return nil
            }
            counters.recoveries += 1
            lru.setValue(Entry(image: image, expiry: expiry), forKey: key, cost: cost)
            trim(toCost: configuration.costLimit, count: configuration.countLimit, exempting: key)
            return (image, nil)
        }
        counters.misses += 1
        return nil
    }

    /// Whether a lookup of `key` would find an image now (in the LRU or,
    /// alive, in the weak-recovery table). Changes neither the order nor the statistics.
    ///
    /// - Complexity: O(1) on average.
    public func contains(_ key: String) -> Bool {
        lru.contains(key) || (configuration.isWeakRecoveryEnabled && weakTable.containsLive(key))
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
        guard !image.isPreview, cost <= configuration.entryCostLimit, configuration.countLimit > 0 else {
            counters.rejections += 1
            if !image.isPreview { removeImage(forKey: key) }
            return false
        }
        weakTable.remove(key)
        let expiry = configuration.entryLifetime.map { now() + $0 }
        lru.setValue(Entry(image: image, expiry: expiry, http: http), forKey: key, cost: cost)
        trim(toCost: configuration.costLimit, count: configuration.countLimit, exempting: key)
        return true
    }

    /// Replaces the HTTP record of the image under `key` (after a `304 Not
    /// Modified`), keeping the image and its place in the LRU.
    ///
    /// - Returns: `false` when no image is stored under `key`.
    @discardableResult
    func setHTTPRecord(_ http: HTTPCacheRecord, forKey key: String) -> Bool {
        guard var entry = lru.peek(key), let cost = lru.cost(forKey: key) else { return false }
        entry.http = http
        lru.setValue(entry, forKey: key, cost: cost)
        return true
    }

    // MARK: Removing

    /// Removes the image stored under `key` from the LRU and the
    /// weak-recovery table.
    ///
    /// - Returns: The image removed from the LRU, if there was one.
    /// - Complexity: O(1) on average.
    @discardableResult
    public func removeImage(forKey key: String) -> Image? {
        weakTable.remove(key)
        return lru.removeValue(forKey: key)?.value.image
    }

    /// Removes every image, from the LRU and from the weak-recovery table.
    ///
    /// - Complexity: O(n).
    public func removeAll() {
        lru.removeAll()
        weakTable.removeAll()
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
        trim(toCost: cost, count: count, exempting: nil)
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
        var removed = 0
        for key in lru.keysByRecency {
            if let expiry = lru.peek(key)?.expiry, now >= expiry {
                lru.removeValue(forKey: key)
                removed += 1
            }
        }
        counters.expirations += removed
        return removed
    }

    // MARK: Statistics

    /// Counters since creation (or the last reset) and the current cost and count.
    public var statistics: Statistics {
        var statistics = counters
        statistics.totalCost = lru.totalCost
        statistics.count = lru.count
        statistics.weakCount = weakTable.count
        return statistics
    }

    /// Sets the hit, miss, recovery, eviction and rejection counters to zero.
    public func resetStatistics() {
        counters = Statistics()
    }

    /// Bytes of pixels in the LRU.
    public var totalCost: Int { lru.totalCost }

    /// Images in the LRU.
    public var count: Int { lru.count }

    /// Keys from the most to the least recently used, for tests and debugging.
    ///
    /// - Complexity: O(n).
    var keysByRecency: [String] { lru.keysByRecency }

    // MARK: Eviction

    /// Evicts from the tail until within `cost` and `count`. The entry just
    /// stored (`exempting`) is never evicted by its own insertion: it was
    /// checked against the entry cost limit, and evicting it at once would
    /// make the store pointless.
    private func trim(toCost cost: Int, count: Int, exempting key: String?) {
        while lru.totalCost > cost || lru.count > count {
            guard let evicted = lru.removeLeastRecentlyUsed() else { return }
            if evicted.key == key {
                lru.setValue(evicted.value, forKey: evicted.key, cost: evicted.cost)
                if lru.count == 1 { return }
                continue
            }
            counters.evictions += 1
            // The weak table keeps no HTTP record: an image whose reuse
            // depends on one (an expiry, a Vary) is not recoverable without it.
            if configuration.isWeakRecoveryEnabled, !(evicted.value.http?.constrainsReuse ?? false) {
                weakTable.insert(evicted.value.image, forKey: evicted.key, cost: evicted.cost, expiry: evicted.value.expiry)
            }
        }
    }
}
