/// A least-recently-used ordering of keyed values with a cost per value: a
/// dictionary from key to slot plus a doubly linked list threaded through a
/// flat array of slots by index.
///
/// Indices instead of node objects keep every operation O(1) without one
/// allocation (or one reference count) per entry; freed slots are reused
/// through a free list, so a cache at steady state allocates nothing.
/// The head is the most recently used entry, the tail the next to evict.
struct LRUStorage<Key: Hashable, Value> {
    private struct Slot {
        var key: Key?
        var value: Value?
        var cost: Int
        var previous: Int
        var next: Int
    }

    private static var none: Int { -1 }

    private var slots: [Slot] = []
    private var indexByKey: [Key: Int] = [:]
    private var head = LRUStorage.none
    private var tail = LRUStorage.none
    private var freeHead = LRUStorage.none

    /// Sum of the costs of all entries.
    private(set) var totalCost = 0

    /// Number of entries.
    var count: Int { indexByKey.count }

    init() {}

    /// The value for `key`, made the most recently used.
    ///
    /// - Complexity: O(1) on average.
    mutating func value(forKey key: Key) -> Value? {
        guard let index = indexByKey[key] else { return nil }
        moveToFront(index)
        return slots[index].value
    }

    /// The value for `key` without changing the order.
    func peek(_ key: Key) -> Value? {
        guard let index = indexByKey[key] else { return nil }
        return slots[index].value
    }

    /// The cost of `key`'s entry; the order is not changed.
    func cost(forKey key: Key) -> Int? {
        indexByKey[key].map { slots[$0].cost }
    }

    /// Whether `key` has an entry; the order is not changed.
    func contains(_ key: Key) -> Bool { indexByKey[key] != nil }

    /// Inserts or replaces the value for `key` as the most recently used entry.
    ///
    /// - Returns: the value it replaced, if any.
    /// - Complexity: O(1) on average.
    @discardableResult
    mutating func setValue(_ value: Value, forKey key: Key, cost: Int) -> Value? {
        if let index = indexByKey[key] {
            totalCost += cost - slots[index].cost
            slots[index].cost = cost
            let old = slots[index].value
            slots[index].value = value
            moveToFront(index)
            return old
        }
        let index: Int
        if freeHead != Self.none {
            index = freeHead
            freeHead = slots[index].next
            slots[index] = Slot(key: key, value: value, cost: cost, previous: Self.none, next: head)
        } else {
            index = slots.count
            slots.append(Slot(key: key, value: value, cost: cost, previous: Self.none, next: head))
        }
        if head != Self.none { slots[head].previous = index }
        head = index
        if tail == Self.none { tail = index }
        indexByKey[key] = index
        totalCost += cost
        return nil
    }

    /// Removes the entry for `key`.
    ///
    /// - Returns: its value and cost, if there was one.
    /// - Complexity: O(1) on average.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> (value: Value, cost: Int)? {
        guard let index = indexByKey.removeValue(forKey: key) else { return nil }
        return release(index)
    }

    /// Removes the least recently used entry.
    ///
    /// - Returns: its key, value and cost, or `nil` when empty.
    /// - Complexity: O(1) on average.
    mutating func removeLeastRecentlyUsed() -> (key: Key, value: Value, cost: Int)? {
        guard tail != Self.none, let key = slots[tail].key else { return nil }
        indexByKey.removeValue(forKey: key)
        let (value, cost) = release(tail)
        return (key, value, cost)
    }

    /// Removes every entry and gives back the memory.
    mutating func removeAll() {
        slots = []
        indexByKey = [:]
        head = Self.none
        tail = Self.none
        freeHead = Self.none
        totalCost = 0
    }

    /// Keys from the most to the least recently used (for tests and debugging).
    ///
    /// - Complexity: O(n).
    var keysByRecency: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var index = head
        while index != Self.none {
            if let key = slots[index].key { keys.append(key) }
            index = slots[index].next
        }
        return keys
    }

    private mutating func unlink(_ index: Int) {
        let previous = slots[index].previous
        let next = slots[index].next
        if previous != Self.none { slots[previous].next = next } else { head = next }
        if next != Self.none { slots[next].previous = previous } else { tail = previous }
    }

    private mutating func moveToFront(_ index: Int) {
        guard head != index else { return }
        unlink(index)
        slots[index].previous = Self.none
        slots[index].next = head
        if head != Self.none { slots[head].previous = index }
        head = index
        if tail == Self.none { tail = index }
    }

    /// Unlinks slot `index`, clears it (dropping the value's references now,
    /// not when the slot is reused) and puts it on the free list.
    private mutating func release(_ index: Int) -> (value: Value, cost: Int) {
        unlink(index)
        let value = slots[index].value!
        let cost = slots[index].cost
        totalCost -= cost
        slots[index] = Slot(key: nil, value: nil, cost: 0, previous: Self.none, next: freeHead)
        freeHead = index
        return (value, cost)
    }
}
