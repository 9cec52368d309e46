/// The transfers waiting for a slot, by priority, each priority in FIFO or
/// LIFO order; with ``pop(eligible:)``, hosts at their limit wait and the
/// hosts take turns.
///
/// Removal and re-prioritisation are O(1): entries that no longer match
/// `live` are skipped (and dropped) when popped. A pure value, testable alone.
struct PendingQueue {
    /// In which order waiting transfers of one priority start.
    let order: CurlDataLoader.ExecutionOrder
    private var lanes: [[UInt64]] = Array(repeating: [], count: DataRequest.Priority.allCases.count)
    private var heads: [Int] = Array(repeating: 0, count: DataRequest.Priority.allCases.count)
    private var live: [UInt64: DataRequest.Priority] = [:]
    /// Each waiting transfer's host (with port).
    private var hosts: [UInt64: String] = [:]
    /// The host that started last, so another waiting host goes next.
    private var lastHost: String?

    init(order: CurlDataLoader.ExecutionOrder) {
        self.order = order
    }

    /// How many transfers wait.
    var count: Int { live.count }

    /// Whether `id` waits.
    func contains(_ id: UInt64) -> Bool { live[id] != nil }

    mutating func push(_ id: UInt64, priority: DataRequest.Priority, host: String = "") {
        live[id] = priority
        hosts[id] = host
        lanes[priority.rawValue].append(id)
    }

    /// Removes `id`; false when it was not waiting.
    @discardableResult
    mutating func remove(_ id: UInt64) -> Bool {
        hosts[id] = nil
        return live.removeValue(forKey: id) != nil
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
                    hosts[id] = nil
                    return id
                }
            }
        }
        return nil
    }

    /// The next transfer to start whose host `eligible` accepts (one under
    /// its connection limit): the highest priority first; within it, a host
    /// other than the one that started last when one waits (hosts take
    /// turns), then by order. Entries passed over keep their places.
    ///
    /// - Complexity: O(n) in the waiting transfers of the priorities scanned.
    mutating func pop(eligible: (String) -> Bool) -> UInt64? {
        for priority in DataRequest.Priority.allCases.reversed() {
            let lane = priority.rawValue
            let indices = order == .fifo
                ? Array(lanes[lane].indices.dropFirst(heads[lane]))
                : Array(lanes[lane].indices.dropFirst(heads[lane]).reversed())
            var fallback: Int?
            for index in indices {
                let id = lanes[lane][index]
                guard live[id] == priority, let host = hosts[id], eligible(host) else { continue }
                if host != lastHost || lastHost == nil {
                    return take(index, lane: lane, host: host)
                }
                if fallback == nil { fallback = index }
            }
            if let fallback { return take(fallback, lane: lane, host: hosts[lanes[lane][fallback]] ?? "") }
        }
        return nil
    }

    /// Takes the entry at `index` of `lane`; its slot becomes a ghost, dropped when reached.
    private mutating func take(_ index: Int, lane: Int, host: String) -> UInt64 {
        let id = lanes[lane][index]
        live[id] = nil
        hosts[id] = nil
        lastHost = host
        // Dropped at once when at either end, so a lane of taken entries does not grow.
        if index == heads[lane] {
            heads[lane] += 1
            compact(lane)
        } else if index == lanes[lane].count - 1 {
            lanes[lane].removeLast()
        }
        return id
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
