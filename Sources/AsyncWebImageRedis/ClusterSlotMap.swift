/// Which shard (a master and its replicas) owns each of a cluster's 16,384
/// hash slots, as one node reported it.
///
/// A pure value, parsed from `CLUSTER SHARDS` (Redis 7) or `CLUSTER SLOTS`
/// (older), so the parsing is tested without a cluster.
struct ClusterSlotMap: Sendable, Equatable {
    /// A master and the replicas that copy it.
    struct Shard: Sendable, Equatable {
        var master: RedisStore.Endpoint
        /// Replicas reported healthy (`online`), for reads from replicas.
        var replicas: [RedisStore.Endpoint]
    }

    private(set) var shards: [Shard] = []
    /// The index in ``shards`` of each slot's owner; `unassigned` for none.
    private var owners = [UInt16](repeating: unassigned, count: RedisKeySlot.count)
    private static let unassigned = UInt16.max

    /// The shard owning `slot`, or `nil` when no shard does.
    func shard(for slot: Int) -> Shard? {
        let owner = owners[slot]
        return owner == Self.unassigned ? nil : shards[Int(owner)]
    }

    /// Every master and replica in the map.
    var endpoints: [RedisStore.Endpoint] {
        shards.flatMap { [$0.master] + $0.replicas }
    }

    /// How many slots have an owner.
    var assignedSlots: Int {
        owners.reduce(0) { $0 + ($1 == Self.unassigned ? 0 : 1) }
    }

    /// Gives `slot` to the shard whose master is `endpoint` (a `MOVED`
    /// answer), adding a shard without replicas when none has that master.
    mutating func assign(_ slot: Int, to endpoint: RedisStore.Endpoint) {
        if let index = shards.firstIndex(where: { $0.master == endpoint }) {
            owners[slot] = UInt16(index)
        } else if shards.count < Int(Self.unassigned) {
            shards.append(Shard(master: endpoint, replicas: []))
            owners[slot] = UInt16(shards.count - 1)
        }
    }

    private mutating func add(_ shard: Shard, ranges: [(Int, Int)]) {
        guard shards.count < Int(Self.unassigned) else { return }
        let index = UInt16(shards.count)
        shards.append(shard)
        for (start, end) in ranges where start <= end && start >= 0 && end < RedisKeySlot.count {
            for slot in start...end { owners[slot] = index }
        }
    }

    // MARK: Parsing

    /// The map in a `CLUSTER SHARDS` reply; `nil` when it is not one.
    ///
    /// - Parameter tls: Use each node's `tls-port` (the store speaks TLS).
    init?(shardsReply reply: RedisReply, tls: Bool) {
        guard case .array(let shards) = reply else { return nil }
        for shard in shards {
            guard case .array(let fields) = shard else { return nil }
            let shardFields = Self.fields(fields)
            guard case .array(let slotBounds)? = shardFields["slots"], case .array(let nodes)? = shardFields["nodes"] else { return nil }
            let bounds = slotBounds.compactMap(Self.integer)
            guard bounds.count == slotBounds.count, bounds.count % 2 == 0 else { return nil }
            var master: RedisStore.Endpoint?
            var replicas: [RedisStore.Endpoint] = []
            for node in nodes {
                guard case .array(let nodeFields) = node else { return nil }
                let values = Self.fields(nodeFields)
                let portField = tls ? (values["tls-port"] ?? values["port"]) : (values["port"] ?? values["tls-port"])
                guard let host = (values["endpoint"] ?? values["ip"])?.text, let port = portField.flatMap(Self.integer) else { continue }
                let endpoint = RedisStore.Endpoint(host: host == "?" ? (values["ip"]?.text ?? host) : host, port: port)
                let healthy = values["health"]?.text.map { $0 == "online" } ?? true
                if values["role"]?.text == "master" {
                    master = endpoint
                } else if healthy {
                    replicas.append(endpoint)
                }
            }
            // A shard without slots (a master just added) owns nothing yet.
            guard let master, !bounds.isEmpty else { continue }
            let ranges = stride(from: 0, to: bounds.count, by: 2).map { (bounds[$0], bounds[$0 + 1]) }
            add(Shard(master: master, replicas: replicas), ranges: ranges)
        }
        guard !self.shards.isEmpty else { return nil }
    }

    /// The map in a `CLUSTER SLOTS` reply; `nil` when it is not one.
    init?(slotsReply reply: RedisReply) {
        guard case .array(let ranges) = reply else { return nil }
        var byMaster: [RedisStore.Endpoint: (replicas: [RedisStore.Endpoint], ranges: [(Int, Int)])] = [:]
        var order: [RedisStore.Endpoint] = []
        for range in ranges {
            guard case .array(let parts) = range, parts.count >= 3,
                  let start = Self.integer(parts[0]), let end = Self.integer(parts[1]) else { return nil }
            let nodes = parts[2...].compactMap { node -> RedisStore.Endpoint? in
                guard case .array(let address) = node, address.count >= 2, let host = address[0].text,
                      let port = Self.integer(address[1]) else { return nil }
                return RedisStore.Endpoint(host: host, port: port)
            }
            guard let master = nodes.first else { return nil }
            if byMaster[master] == nil {
                order.append(master)
                byMaster[master] = (Array(nodes.dropFirst()), [])
            }
            byMaster[master]?.ranges.append((start, end))
        }
        for master in order {
            guard let entry = byMaster[master] else { continue }
            add(Shard(master: master, replicas: entry.replicas), ranges: entry.ranges)
        }
        guard !shards.isEmpty else { return nil }
    }

    /// A flat `name, value, name, value…` array as a dictionary.
    private static func fields(_ flat: [RedisReply]) -> [String: RedisReply] {
        var result: [String: RedisReply] = [:]
        var index = 0
        while index + 1 < flat.count {
            if let name = flat[index].text { result[name] = flat[index + 1] }
            index += 2
        }
        return result
    }

    /// An integer reply, or a bulk string holding one.
    private static func integer(_ reply: RedisReply) -> Int? {
        switch reply {
        case .integer(let value): Int(exactly: value)
        case .bulk, .status: reply.text.flatMap { Int($0) }
        default: nil
        }
    }
}
