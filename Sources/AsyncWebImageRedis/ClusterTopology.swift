import NIOCore
import Synchronization
import AWILocking

/// A Redis Cluster as a store sees it: the slot map, a ``RedisNode`` per
/// master and replica it has met, and the reading of the map again when
/// the cluster changes.
///
/// The map is read (`CLUSTER SHARDS`, else `CLUSTER SLOTS`) on first use
/// and again after trouble — a `MOVED`, a node that fails or whose breaker
/// is open, `CLUSTERDOWN` — at most once per
/// ``RedisStore/Configuration/clusterRefreshInterval``, one read at a time.
/// A `MOVED` also patches the map at once, so the next command for that
/// slot goes straight to its new owner.
final class ClusterTopology: Sendable {
    private struct State {
        var map: ClusterSlotMap?
        var nodes: [RedisStore.Endpoint: RedisNode] = [:]
        var refresh: Task<Bool, Never>?
        var lastRefresh: ContinuousClock.Instant?
        /// Round-robin position over a shard's replicas.
        var replicaCursor = 0
        var isShutDown = false
    }

    private let seeds: [RedisStore.Endpoint]
    private let readsFromReplicas: Bool
    private let configuration: RedisStore.Configuration
    private let settings: RedisConnection.Settings
    private let eventLoop: any EventLoop
    private let counters: RedisCounters
    private let state = Lock(State())

    init(
        seeds: [RedisStore.Endpoint], readsFromReplicas: Bool, configuration: RedisStore.Configuration,
        settings: RedisConnection.Settings, eventLoop: any EventLoop, counters: RedisCounters
    ) {
        self.seeds = seeds
        self.readsFromReplicas = readsFromReplicas
        self.configuration = configuration
        self.settings = settings
        self.eventLoop = eventLoop
        self.counters = counters
    }

    /// The node at `endpoint`, made on first use.
    func node(at endpoint: RedisStore.Endpoint) -> RedisNode {
        state.withLock { state in
            if let node = state.nodes[endpoint] { return node }
            let node = RedisNode(endpoint: endpoint, configuration: configuration, settings: settings, eventLoop: eventLoop, statistics: counters)
            if state.isShutDown { node.shutDown() }
            state.nodes[endpoint] = node
            return node
        }
    }

    /// The node for `slot`: its master, or for a read with replica reads on,
    /// one of its replicas whose breaker is closed. Reads the map first when
    /// there is none (or the slot has no owner), waiting at most until that
    /// read ends (itself bounded by the lookup budget).
    func route(slot: Int, reading: Bool) async -> RedisNode? {
        if let endpoint = endpoint(for: slot, reading: reading) { return node(at: endpoint) }
        _ = await refreshed(force: true)?.value
        return endpoint(for: slot, reading: reading).map(node(at:))
    }

    private func endpoint(for slot: Int, reading: Bool) -> RedisStore.Endpoint? {
        let (shard, cursor) = state.withLock { state -> (ClusterSlotMap.Shard?, Int) in
            state.replicaCursor &+= 1
            return (state.map?.shard(for: slot), state.replicaCursor)
        }
        guard let shard else { return nil }
        guard reading, readsFromReplicas, !shard.replicas.isEmpty else { return shard.master }
        for offset in 0..<shard.replicas.count {
            let replica = shard.replicas[(cursor &+ offset) % shard.replicas.count]
            if !node(at: replica).isBreakerOpen { return replica }
        }
        return shard.master
    }

    /// The masters of the map (read first when there is none).
    func masters() async -> [RedisNode] {
        if state.withLock({ $0.map == nil }) { _ = await refreshed(force: true)?.value }
        let endpoints = state.withLock { $0.map?.shards.map(\.master) ?? [] }
        return endpoints.map(node(at:))
    }

    /// Whether a map has been read.
    var hasMap: Bool { state.withLock { $0.map != nil } }

    /// `MOVED`: `slot` is `endpoint`'s now; the map is read again soon.
    func moved(slot: Int, to endpoint: RedisStore.Endpoint) {
        state.withLock { $0.map?.assign(slot, to: endpoint) }
        noteTrouble()
    }

    /// Something suggests the cluster changed: read the map again unless a
    /// read is under way or one started less than the refresh interval ago.
    func noteTrouble() {
        _ = refreshed(force: false)
    }

    /// The read of the map under way, or a new one: at once when `force`
    /// or the interval has passed since the last, else once it has (so a
    /// change noticed just after a read is not missed).
    @discardableResult
    func refreshed(force: Bool) -> Task<Bool, Never>? {
        state.withLock { state in
            if let refresh = state.refresh { return refresh }
            if state.isShutDown { return nil }
            let now = ContinuousClock.now
            var delay = Duration.zero
            if !force, let last = state.lastRefresh, now < last + configuration.clusterRefreshInterval {
                delay = last + configuration.clusterRefreshInterval - now
            }
            state.lastRefresh = now + delay
            let task = Task { [self] in
                if delay > .zero { try? await Task.sleep(for: delay) }
                return await readMap()
            }
            state.refresh = task
            return task
        }
    }

    /// Asks the known nodes (healthy ones first), then the seeds, for the
    /// map, until one answers or the lookup budget has passed.
    private func readMap() async -> Bool {
        defer { state.withLock { $0.refresh = nil } }
        let overall = NIODeadline.now() + TimeAmount(max(configuration.lookupBudget, configuration.commandTimeout))
        let known = state.withLock { $0.map?.endpoints ?? [] }
        var candidates: [RedisStore.Endpoint] = []
        for endpoint in known.shuffled() + seeds where !candidates.contains(endpoint) { candidates.append(endpoint) }
        let healthy = candidates.filter { !node(at: $0).isBreakerOpen }
        let ordered = healthy + candidates.filter { !healthy.contains($0) }
        for endpoint in ordered where NIODeadline.now() < overall {
            let node = node(at: endpoint)
            guard let ticket = node.admit() else { continue }
            let deadline = min(overall, .now() + TimeAmount(configuration.commandTimeout))
            guard case .success(let replies) = await node.send([[Array("CLUSTER".utf8), Array("SHARDS".utf8)]], admitted: ticket, deadline: deadline),
                  let reply = replies.first else { continue }
            var map = ClusterSlotMap(shardsReply: reply, tls: configuration.tls != nil)
            if map == nil, reply.isError, let ticket = node.admit(),
               case .success(let slots) = await node.send([[Array("CLUSTER".utf8), Array("SLOTS".utf8)]], admitted: ticket, deadline: deadline),
               let slotsReply = slots.first {
                map = ClusterSlotMap(slotsReply: slotsReply)
            }
            guard let map else { continue }
            state.withLock { $0.map = map }
            counters.update { $0.topologyRefreshes += 1 }
            return true
        }
        return false
    }

    /// Shuts every node down (see ``RedisNode/shutDown()``).
    func shutDown() {
        let nodes = state.withLock { state in
            state.isShutDown = true
            return Array(state.nodes.values)
        }
        for node in nodes { node.shutDown() }
    }
}
