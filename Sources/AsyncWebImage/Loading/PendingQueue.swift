/// The transfers waiting for a slot, by priority, each priority in FIFO or
/// LIFO order.
///
/// Removal and re-prioritisation are O(1): entries that no longer match
/// `live` are skipped (and dropped) when popped. A pure value, testable alone.
struct PendingQueue {
    /// In which order waiting transfers of one priority start.
    let order: CurlDataLoader.ExecutionOrder
    private var lanes: [[UInt64]] = Array(repeating: [], count: DataRequest.Priority.allCases.count)
    private var heads: [Int] = Array(repeating: 0, count: DataRequest.Priority.allCases.count)
    private var live: [UInt64: DataRequest.Priority] = [:]

    init(order: CurlDataLoader.ExecutionOrder) {
        self.order = order
    }

    /// How many transfers wait.
    var count: Int { live.count }

    /// Whether `id` waits.
    func contains(_ id: UInt64) -> Bool { live[id] != nil }

    mutating func push(_ id: UInt64, priority: DataRequest.Priority) {
        live[id] = priority
        lanes[priority.rawValue].append(id)
    }

    /// Removes `id`; false when it was not waiting.
    @discardableResult
    mutating func remove(_ id: UInt64) -> Bool {
        live.removeValue(forKey: id) != nil
    }

    /// Moves a waiting `id` to `priority` (as the newest entry there, or at
    /// its first place if it waited at that priority before); false
    /// when it was not waiting.
    @discardableResult
    mutating func setPriority(_ id: UInt64, _ priority: DataRequest.Priority) -> Bool {
        guard let current = live[id] else { return false }
        guard current != priority else { return true }
        live[id] = priority
        lanes[priority.rawValue].append(id)
        return true
    }

    /// The next transfer to start: the highest priority first, then by order.
    mutating func pop() -> UInt64? {
        for priority in DataRequest.Priority.allCases.reversed() {
            let lane = priority.rawValue
            while heads[lane] < lanes[lane].count {
                let id: UInt64
                switch order {
                case .fifo:
                    id = lanes[lane][heads[lane]]
                    heads[lane] += 1
                case .lifo:
                    id = lanes[lane].removeLast()
                }
                compact(lane)
                if live[id] == priority {
                    live[id] = nil
                    return id
                }
            }
        }
        return nil
    }

    private mutating func compact(_ lane: Int) {
        if heads[lane] == lanes[lane].count {
            lanes[lane].removeAll(keepingCapacity: true)
            heads[lane] = 0
        } else if heads[lane] > 64, heads[lane] * 2 > lanes[lane].count {
            lanes[lane].removeFirst(heads[lane])
            heads[lane] = 0
        }
    }
}
