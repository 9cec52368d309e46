import NIOCore
import AsyncWebImage

extension RedisStore {
    /// Where a cache key lives: its Redis key names and their cluster slot.
    struct Placement: Sendable {
        /// The entry's name: `PREFIX{DIGEST}:v`.
        let valueName: [UInt8]
        /// The name of the lease for fetching the key from the origin: `PREFIX{DIGEST}:l`.
        let leaseName: [UInt8]
        /// The cluster slot of both (one hash tag).
        let slot: Int
        /// A stable 64-bit hash of the key (for rendezvous hashing).
        let keyHash: UInt64
    }

    func placement(for key: String) -> Placement {
        let digest = SHA256.hexDigest(key)
        let tagged = configuration.keyPrefix + "{" + digest + "}"
        let valueName = Array((tagged + ":v").utf8)
        return Placement(
            valueName: valueName,
            leaseName: Array((tagged + ":l").utf8),
            slot: RedisKeySlot.slot(of: valueName),
            keyHash: UInt64(digest.prefix(16), radix: 16) ?? 0
        )
    }

    /// The node a command for `placement` goes to first: by hashing, or
    /// the slot's owner (a replica for reads when the topology says so).
    func node(for placement: Placement, reading: Bool) async -> RedisNode? {
        switch routing {
        case .nodes(let nodes, let hashing): nodes[hashing.node(for: placement.keyHash)]
        case .cluster(let topology): await topology.route(slot: placement.slot, reading: reading)
        }
    }

    /// Sends one command for `placement` before `deadline`, following a
    /// cluster's redirections; `nil` on any trouble (counted).
    func execute(_ command: [[UInt8]], at placement: Placement, reading: Bool, deadline: NIODeadline) async -> RedisReply? {
        guard let node = await node(for: placement, reading: reading) else { return nil }
        return await execute(command, on: node, deadline: deadline)
    }

    /// Sends one command to `node` before `deadline`. In a cluster, follows
    /// `MOVED` (patching the map) and `ASK` (with `ASKING`), twice at most,
    /// and has the map read again after trouble. `nil` on any trouble.
    func execute(_ command: [[UInt8]], on first: RedisNode, deadline: NIODeadline) async -> RedisReply? {
        var node = first
        var asking = false
        // Bounded: the first try and two redirections.
        for _ in 0..<3 {
            guard let ticket = node.admit() else {
                noteTrouble()
                return nil
            }
            let commands = asking ? [[Array("ASKING".utf8)], command] : [command]
            let replies: [RedisReply]
            switch await node.send(commands, admitted: ticket, deadline: deadline) {
            case .success(let received): replies = received
            case .failure(let failure):
                if failure.countsAgainstNode || failure == .breakerOpen { noteTrouble() }
                return nil
            }
            guard let reply = replies.last else { return nil }
            guard case .cluster(let topology) = routing, case .error(let message) = reply else { return reply }
            if let redirect = RedisRedirect(error: message) {
                counters.update { $0.redirections += 1 }
                if redirect.kind == .moved { topology.moved(slot: redirect.slot, to: redirect.endpoint) }
                node = topology.node(at: redirect.endpoint)
                asking = redirect.kind == .ask
                continue
            }
            if ["CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "LOADING"].contains(where: { message.hasPrefix($0) }) {
                topology.noteTrouble()
            }
            return reply
        }
        return nil
    }

    /// In a cluster, trouble may mean a failover: read the map again soon.
    func noteTrouble() {
        if case .cluster(let topology) = routing { topology.noteTrouble() }
    }
}

extension RedisStore {
    /// The nodes of ``Topology/independentNodes`` (empty for a cluster).
    var independentNodes: [RedisNode] {
        if case .nodes(let nodes, _) = routing { nodes } else { [] }
    }
}
