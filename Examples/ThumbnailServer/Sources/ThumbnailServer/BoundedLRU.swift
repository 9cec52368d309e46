/// A least-recently-used map bounded by what it really holds: each entry
/// counts its value's bytes, its key's bytes and a fixed overhead for the
/// bookkeeping around them, and the number of entries is capped as well.
///
/// Keys here come from clients (a source URL of up to `--max-url-length`
/// bytes) while values can be tiny (a 1×1 PNG answer is 72 bytes), so a
/// bound on value bytes alone let 8 KiB keys pile up by the hundred thousand;
/// counted this way, `limit` is what the map takes in memory, give or take
/// the allocator's rounding.
///
/// Recency is a queue of (key, stamp) with lazy deletion: a use appends a
/// new stamp, eviction pops from the front and skips stamps that are no
/// longer their key's. The queue is rebuilt when stale stamps outnumber
/// live ones, and its popped front is dropped once it is half the queue, so
/// its length stays within about twice the entry count (its slots are part
/// of ``entryOverhead``; the keys in it are the map's, shared, not copies,
/// and a popped slot lets go of its key at once).
struct BoundedLRU<Value: Sendable>: Sendable {
    private struct Slot {
        var value: Value
        var cost: Int
        var stamp: Int
    }

    /// Bytes one entry costs beyond its key's and its value's: the map's slot
    /// at its load factor, two recency-queue slots, the key's and the value's
    /// heap headers and the allocator's rounding of each. Measured with the
    /// result cache's entries (100,000 distinct 8 KiB keys over 1×1 PNG
    /// answers, `ResultCacheBoundTests`), rounded up.
    static var entryOverhead: Int { 512 }

    /// The most bytes the entries may cost together.
    let limit: Int
    /// The most entries kept.
    let maxCount: Int
    private var slots: [String: Slot] = [:]
    private var queue: [(key: String, stamp: Int)] = []
    private var head = 0
    private var nextStamp = 0
    /// What the entries cost together: values, keys and overheads.
    private(set) var totalCost = 0

    /// Creates an empty map holding at most `limit` bytes (`0` keeps nothing)
    /// in at most `maxCount` entries.
    init(limit: Int, maxCount: Int) {
        self.limit = max(0, limit)
        self.maxCount = max(0, maxCount)
    }

    /// How many entries there are.
    var count: Int { slots.count }

    /// The recency queue's length, popped front and stale stamps included:
    /// what the bookkeeping holds beside the entries.
    var recencyQueueLength: Int { queue.count }

    /// What an entry of `valueBytes` under `key` costs.
    static func cost(key: String, valueBytes: Int) -> Int {
        key.utf8.count + max(0, valueBytes) + entryOverhead
    }

    /// The value under `key`, now the most recently used.
    ///
    /// - Complexity: O(1) amortised.
    mutating func value(forKey key: String) -> Value? {
        guard var slot = slots[key] else { return nil }
        slot.stamp = stamp(key)
        slots[key] = slot
        compactIfNeeded()
        return slot.value
    }

    /// Stores `value`, whose own bytes are `valueBytes` (replacing any value
    /// under `key`), then evicts the least recently used entries past the
    /// limits. An entry costing more than the whole limit is not kept.
    ///
    /// - Complexity: O(1) amortised, plus the evictions.
    mutating func insert(_ value: Value, valueBytes: Int, forKey key: String) {
        let cost = Self.cost(key: key, valueBytes: valueBytes)
        guard cost <= limit, maxCount > 0 else { return }
        if let old = slots[key] { totalCost -= old.cost }
        slots[key] = Slot(value: value, cost: cost, stamp: stamp(key))
        totalCost += cost
        while totalCost > limit || slots.count > maxCount, head < queue.count {
            let (oldest, stamp) = queue[head]
            // The popped slot lets go of its key now, not at the next compaction.
            queue[head] = ("", 0)
            head += 1
            if let slot = slots[oldest], slot.stamp == stamp {
                slots[oldest] = nil
                totalCost -= slot.cost
            }
        }
        compactIfNeeded()
    }

    /// Removes the entry under `key`, if any.
    mutating func removeValue(forKey key: String) {
        guard let slot = slots.removeValue(forKey: key) else { return }
        totalCost -= slot.cost
        compactIfNeeded()
    }

    private mutating func stamp(_ key: String) -> Int {
        nextStamp += 1
        queue.append((key, nextStamp))
        return nextStamp
    }

    private mutating func compactIfNeeded() {
        if queue.count - head > 2 * slots.count + 64 {
            // Stale stamps (of keys used again since) outnumber live ones.
            let live = queue[head...].filter { slots[$0.key]?.stamp == $0.stamp }
            queue = Array(live)
            head = 0
        } else if head > 64, head * 2 > queue.count {
            // The popped front is most of the queue: an insert-only load
            // (every insert evicting one) never has stale stamps to trigger
            // the rebuild above, and its front grew without end.
            queue.removeFirst(head)
            head = 0
        }
    }
}
