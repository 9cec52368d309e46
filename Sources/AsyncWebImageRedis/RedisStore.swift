public import AsyncWebImage
public import Foundation
import NIOCore
import NIOPosix
import Synchronization
import AWILocking

/// A cache tier shared by a fleet of servers, on Redis: the tier between
/// the local disk and the network (the *Architecture* article). `import AsyncWebImageRedis`.
///
/// ```swift
/// import AsyncWebImage
/// import AsyncWebImageRedis
///
/// var redis = RedisStore.Configuration(endpoints: [.init(host: "10.0.0.5", port: 6379)])
/// redis.topology = .cluster
/// redis.credentials = .init(username: "thumbs", password: password)
/// let store = try RedisStore(configuration: redis)   // a typed error for a setting it cannot use
/// try await store.checkConnection()          // a typed error at start-up, not misses later
/// let cache = ImageCache(memory: MemoryCache(), disk: DiskStore(name: "images"), sharedTier: store)
/// ```
///
/// Each entry is one Redis value (data, extended data and the entry's own
/// key, see `RedisCacheEntry`) under `PREFIX{SHA-256(key)}:v`, set with a
/// time to live; its fetch lease is `PREFIX{SHA-256(key)}:l`, in the same
/// cluster slot. Keys are spread over independent nodes by rendezvous
/// hashing, or over a Redis Cluster's slots (``Topology``). Writes that
/// arrive together are pipelined to a node in one round trip.
///
/// The client speaks RESP over SwiftNIO (plain TCP, TLS, Unix sockets) on an
/// event loop of NIO's shared group, with no thread of its own. **Every
/// command has a deadline** covering connect, TLS, `AUTH`, write and read
/// (``Configuration/lookupBudget`` for lookups, ``Configuration/commandTimeout``
/// for the rest), and task cancellation ends it at once. **Reads are
/// bounded**: a value longer than ``Configuration/maxValueBytes`` is refused
/// by its announced length, before any of it is buffered.
///
/// **Redis trouble never fails a load.** A read that passes its deadline, a
/// refused connection, a node that is down, a wrong password: each is a
/// miss, counted in ``statistics``; after ``Configuration/failureThreshold``
/// failures in a row (timeouts count: a slow node is a failing one) a node's
/// breaker opens and requests to it cost nothing until its cool-down has
/// passed. Writes report failure by throwing `ImageError.sharedCache`,
/// which the caller may ignore. Call ``checkConnection()`` at start-up to
/// turn a wrong password or certificate into a typed error instead.
///
/// - Important: The store trusts its Redis: it checks that a value is a whole
///   entry of the key asked for, but does not authenticate it. Give each
///   cache or tenant its own ``Configuration/keyPrefix`` and ACL user (or database).
public final class RedisStore: DataCaching {
    /// How the store reaches its nodes.
    public let configuration: Configuration
    /// Where keys go: independent nodes by hashing, or a cluster's slots.
    enum Routing: Sendable {
        case nodes([RedisNode], RendezvousHashing)
        case cluster(ClusterTopology)
    }

    private struct Lifecycle {
        var isShutDown = false
        /// Calls under way (each ends within its deadline).
        var active = 0
        var idleWaiters: [UnsafeContinuation<Void, Never>] = []
    }

    let routing: Routing
    let counters: RedisCounters
    let settings: RedisConnection.Settings
    /// The store's event loop (one of NIO's shared group): every connection lives on it.
    let eventLoop: any EventLoop
    /// Why no connection can be made at all (TLS files that cannot be read).
    let setupFailure: RedisFailure?
    private let lifecycle = Lock(Lifecycle())

    /// Creates a store over `configuration.endpoints` (at least one). No
    /// connection is made until the first request (or ``checkConnection()``).
    ///
    /// - Throws: ``ConfigurationError`` for a setting the store cannot work
    ///   with (``Configuration/validate()``): no endpoint, a key prefix with
    ///   `{` or `}`, a port out of range, a duration that is not positive…
    public init(configuration: Configuration) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        let counters = RedisCounters()
        self.counters = counters
        var setupFailure: RedisFailure?
        let tls: RedisTLSContext?
        do throws(RedisFailure) {
            tls = try configuration.tls.map { tls throws(RedisFailure) in try tls.makeContext() }
        } catch {
            tls = nil
            setupFailure = error
        }
        self.setupFailure = setupFailure
        let readsFromReplicas = if case .cluster(let replicas) = configuration.topology { replicas } else { false }
        let settings = RedisConnection.Settings(
            tls: tls,
            serverName: configuration.tls?.serverName,
            authArguments: configuration.credentials?.authArguments ?? [],
            database: configuration.database,
            readOnly: readsFromReplicas,
            // At least 4 KiB: the cluster's own replies (node names, addresses) are bulk strings too.
            maxReplyBytes: max(configuration.maxValueBytes, 4 << 10),
            connectTimeout: configuration.connectTimeout
        )
        self.settings = settings
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        self.eventLoop = eventLoop
        switch configuration.topology {
        case .independentNodes:
            let nodes = configuration.endpoints.map {
                RedisNode(endpoint: $0, configuration: configuration, settings: settings, eventLoop: eventLoop, statistics: counters)
            }
            routing = .nodes(nodes, RendezvousHashing(nodes: configuration.endpoints.map(\.description)))
        case .cluster(let readsFromReplicas):
            routing = .cluster(ClusterTopology(
                seeds: configuration.endpoints, readsFromReplicas: readsFromReplicas, configuration: configuration,
                settings: settings, eventLoop: eventLoop, counters: counters
            ))
        }
    }

    /// Creates a store over one node.
    ///
    /// - Throws: ``ConfigurationError`` for an empty host or a port outside 1…65535.
    public convenience init(host: String = "127.0.0.1", port: Int = 6379) throws(ConfigurationError) {
        try self.init(configuration: Configuration(endpoints: [Endpoint(host: host, port: port)]))
    }

    /// What the store has done so far.
    public var statistics: Statistics {
        counters.snapshot
    }

    // MARK: Lifecycle

    /// Waits for the calls under way (each ends within its deadline), then
    /// closes the store's connections. Afterwards a read is a miss and a
    /// write fails (`ImageError.sharedCache`), at once, without
    /// touching Redis. `ImageCache.shutdown()` calls it for its shared tier.
    /// The event loop is NIO's shared one, which lives on.
    ///
    /// Calling it again returns once the first call's work is done.
    public func shutdown() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let idle = lifecycle.withLock { state in
                state.isShutDown = true
                guard state.active > 0 else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
        switch routing {
        case .nodes(let nodes, _): for node in nodes { node.shutDown() }
        case .cluster(let topology): topology.shutDown()
        }
    }

    /// Counts a call in, unless the store is shut down.
    func enter() -> Bool {
        lifecycle.withLock { state in
            guard !state.isShutDown else { return false }
            state.active += 1
            return true
        }
    }

    /// Counts a call out; the last one out after a shutdown lets it go on.
    func leave() {
        let waiters = lifecycle.withLock { state -> [UnsafeContinuation<Void, Never>] in
            state.active -= 1
            guard state.active == 0 else { return [] }
            defer { state.idleWaiters.removeAll() }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: DataCaching

    /// The entry under `key`; `nil` on a miss and on any Redis trouble,
    /// within ``Configuration/lookupBudget``.
    public func dataWithExtendedData(forKey key: String) async -> (data: Data, extendedData: Data?)? {
        guard enter() else { return nil }
        defer { leave() }
        let placement = placement(for: key)
        let deadline = NIODeadline.now() + TimeAmount(configuration.lookupBudget)
        guard let reply = await execute([Array("GET".utf8), placement.valueName], at: placement, reading: true, deadline: deadline) else {
            return nil
        }
        guard case .bulk(let bytes) = reply, let entry = RedisCacheEntry(decoding: bytes), entry.key == key else {
            counters.update { $0.misses += 1 }
            return nil
        }
        counters.update { $0.hits += 1 }
        return (entry.data, entry.extendedData)
    }

    /// The data under `key`; `nil` on a miss and on any Redis trouble.
    public func data(forKey key: String) async -> Data? {
        await dataWithExtendedData(forKey: key)?.data
    }

    /// The extended data under `key`; `nil` when there is no entry, it has
    /// none, or Redis is in trouble.
    public func extendedData(forKey key: String) async -> Data? {
        await dataWithExtendedData(forKey: key)?.extendedData
    }

    /// Stores the entry with the configured time to live. An entry over
    /// ``Configuration/maxValueBytes`` is skipped (counted, not an error).
    ///
    /// - Throws: `ImageError.sharedCache` when the write did not reach Redis.
    public func setData(_ data: Data, forKey key: String, extendedData: Data?) async throws {
        guard RedisCacheEntry.encodedCount(key: key, data: data, extendedData: extendedData) <= configuration.maxValueBytes,
              let value = RedisCacheEntry(key: key, data: data, extendedData: extendedData).encoded()
        else {
            counters.update { $0.oversized += 1 }
            return
        }
        let placement = placement(for: key)
        let command: [[UInt8]] = [Array("SET".utf8), placement.valueName, value] + Self.expiry(configuration.timeToLive)
        guard await write(command, at: placement) else {
            throw ImageError.sharedCache("write to Redis failed")
        }
    }

    /// Replaces the extended data, keeping the data and renewing the time to live.
    ///
    /// - Returns: `false` when there is no entry (or Redis is in trouble).
    /// - Throws: `ImageError.sharedCache` when the write did not reach Redis.
    @discardableResult
    public func setExtendedData(_ extendedData: Data?, forKey key: String) async throws -> Bool {
        guard let entry = await dataWithExtendedData(forKey: key) else { return false }
        try await setData(entry.data, forKey: key, extendedData: extendedData)
        return true
    }

    /// Removes the entry under `key`.
    ///
    /// - Throws: `ImageError.sharedCache` when Redis could not be asked.
    public func removeData(forKey key: String) async throws {
        guard enter() else { throw ImageError.sharedCache("store shut down") }
        defer { leave() }
        let placement = placement(for: key)
        let deadline = NIODeadline.now() + TimeAmount(configuration.commandTimeout)
        guard let reply = await execute([Array("DEL".utf8), placement.valueName], at: placement, reading: false, deadline: deadline),
              case .integer = reply else {
            throw ImageError.sharedCache("remove from Redis failed")
        }
    }

    /// Whether an entry exists under `key` (`false` when Redis is in trouble).
    public func contains(_ key: String) async -> Bool {
        guard enter() else { return false }
        defer { leave() }
        let placement = placement(for: key)
        let deadline = NIODeadline.now() + TimeAmount(configuration.lookupBudget)
        return await execute([Array("EXISTS".utf8), placement.valueName], at: placement, reading: true, deadline: deadline) == .integer(1)
    }

    /// Removes every entry under the store's prefix, on every node (every
    /// master of a cluster): `SCAN`, then one `DEL` per key, pipelined, in
    /// bounded batches.
    ///
    /// - Throws: `ImageError.sharedCache` when a node could not be emptied.
    public func removeAll() async throws {
        guard enter() else { throw ImageError.sharedCache("store shut down") }
        defer { leave() }
        let nodes: [RedisNode] = switch routing {
        case .nodes(let nodes, _): nodes
        case .cluster(let topology): await topology.masters()
        }
        guard !nodes.isEmpty else { throw ImageError.sharedCache("no cluster map") }
        let pattern = Array((configuration.keyPrefix + "{*}:v").utf8)
        for node in nodes {
            var cursor: [UInt8] = Array("0".utf8)
            // Bounded: a SCAN pass over a keyspace this size ends long before.
            for _ in 0..<1_000_000 {
                let deadline = NIODeadline.now() + TimeAmount(configuration.commandTimeout)
                guard let ticket = node.admit(),
                      case .success(let replies) = await node.send(
                          [[Array("SCAN".utf8), cursor, Array("MATCH".utf8), pattern, Array("COUNT".utf8), Array("500".utf8)]],
                          admitted: ticket, deadline: deadline
                      ),
                      case .array(let parts)? = replies.first, parts.count == 2,
                      let next = parts[0].bulkBytes, case .array(let names) = parts[1] else {
                    throw ImageError.sharedCache("scan on \(node.endpoint) failed")
                }
                let keys = names.compactMap(\.bulkBytes)
                if !keys.isEmpty {
                    guard let ticket = node.admit(),
                          case .success(let deleted) = await node.send(
                              keys.map { [Array("DEL".utf8), $0] }, admitted: ticket,
                              deadline: .now() + TimeAmount(configuration.commandTimeout)
                          ),
                          !deleted.contains(where: \.isError) else {
                        throw ImageError.sharedCache("remove on \(node.endpoint) failed")
                    }
                }
                cursor = next
                if next == Array("0".utf8) { break }
            }
        }
    }

    /// `PX` and `duration` in whole milliseconds (at least 1: Redis refuses
    /// 0): how every `SET` of the store says when its key expires.
    static func expiry(_ duration: Duration) -> [[UInt8]] {
        let milliseconds = max(1, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        return [Array("PX".utf8), Array(String(milliseconds).utf8)]
    }
}
