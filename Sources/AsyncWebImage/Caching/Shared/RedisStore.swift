public import Foundation
import Synchronization
import AWILocking

/// A cache tier shared by a fleet of servers, on Redis through hiredis: the
/// tier between the local disk and the network (DESIGN.md §5).
///
/// Each entry is one Redis value (data, extended data and the entry's own
/// key, see `RedisCacheEntry`) under `prefix + "v:" + SHA-256(key)`, set
/// with a time to live. Keys are spread over several nodes by rendezvous
/// hashing. Writes that arrive together are pipelined to a node in one round
/// trip, on the store's own threads.
///
/// **Redis trouble never fails a load.** A read that times out, a refused
/// connection, a node that is down: each is a miss, counted in
/// ``statistics``; after ``Configuration/failureThreshold`` failures in a row
/// a node's breaker opens and requests to it cost nothing until its
/// cool-down has passed. Writes report failure by throwing
/// ``ImageError/sharedCache(_:)``, which the caller may ignore.
///
/// - Important: The store trusts its Redis: it checks that a value is a whole
///   entry of the key asked for, but does not authenticate it. Give each
///   cache its own ``Configuration/keyPrefix`` (or database).
public final class RedisStore: DataCaching {
    /// How the store reaches its nodes.
    public let configuration: Configuration
    let nodes: [RedisNode]
    private let hashing: RendezvousHashing
    let pool: BlockingThreadPool
    let counters: RedisCounters

    /// Creates a store over `configuration.endpoints` (at least one). No
    /// connection is made until the first request.
    public init(configuration: Configuration) {
        precondition(!configuration.endpoints.isEmpty, "RedisStore needs at least one endpoint")
        self.configuration = configuration
        let counters = RedisCounters()
        self.counters = counters
        nodes = configuration.endpoints.map { RedisNode(endpoint: $0, configuration: configuration, statistics: counters) }
        hashing = RendezvousHashing(nodes: configuration.endpoints.map(\.description))
        pool = BlockingThreadPool(
            threadCount: min(16, max(1, configuration.connectionsPerEndpoint) * configuration.endpoints.count),
            name: "awi-redis"
        )
    }

    /// Creates a store over one node.
    public convenience init(host: String = "127.0.0.1", port: Int = 6379) {
        self.init(configuration: Configuration(endpoints: [Endpoint(host: host, port: port)]))
    }

    /// What the store has done so far.
    public var statistics: Statistics {
        counters.snapshot
    }

    // MARK: Lifecycle

    /// Ends the store's threads, once the commands queued before the call
    /// have run, and closes its connections. Afterwards a read is a miss and
    /// a write fails (``ImageError/sharedCache(_:)``), at once, without
    /// touching Redis. ``ImageCache/shutdown()`` calls it for its shared tier.
    ///
    /// Calling it again returns once the threads have ended.
    public func shutdown() async {
        await pool.shutdown()
        for node in nodes { node.closeIdleConnections() }
    }

    // MARK: Keys

    /// Where a cache key lives: its node and its Redis key names.
    struct Placement: Sendable {
        let node: RedisNode
        /// The entry's name.
        let valueName: [UInt8]
        /// The name of the lease for fetching the key from the origin.
        let leaseName: [UInt8]
    }

    func placement(for key: String) -> Placement {
        let digest = SHA256.hexDigest(key)
        let keyHash = UInt64(digest.prefix(16), radix: 16) ?? 0
        return Placement(
            node: nodes[hashing.node(for: keyHash)],
            valueName: Array((configuration.keyPrefix + "v:" + digest).utf8),
            leaseName: Array((configuration.keyPrefix + "l:" + digest).utf8)
        )
    }

    /// `PX` and `duration` in whole milliseconds (at least 1: Redis refuses
    /// 0): how every `SET` of the store says when its key expires.
    static func expiry(_ duration: Duration) -> [[UInt8]] {
        let milliseconds = max(1, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        return [Array("PX".utf8), Array(String(milliseconds).utf8)]
    }

    /// Sends one command to `node` on the store's threads; `nil` when the
    /// breaker is open or the link failed (both counted).
    func send(_ command: [[UInt8]], to node: RedisNode) async -> RedisReply? {
        guard let ticket = node.admit() else { return nil }
        return await pool.run {
            node.withConnection(admitted: ticket) { connection throws(RedisConnection.Failure) in try connection.command(command) }
        } ?? nil
    }

    // MARK: DataCaching

    /// The entry under `key`; `nil` on a miss and on any Redis trouble.
    public func dataWithExtendedData(forKey key: String) async -> (data: Data, extendedData: Data?)? {
        let placement = placement(for: key)
        guard let reply = await send([Array("GET".utf8), placement.valueName], to: placement.node) else { return nil }
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
    /// - Throws: ``ImageError/sharedCache(_:)`` when the write did not reach Redis.
    public func setData(_ data: Data, forKey key: String, extendedData: Data?) async throws {
        guard RedisCacheEntry.encodedCount(key: key, data: data, extendedData: extendedData) <= configuration.maxValueBytes,
              let value = RedisCacheEntry(key: key, data: data, extendedData: extendedData).encoded()
        else {
            counters.update { $0.oversized += 1 }
            return
        }
        let placement = placement(for: key)
        let command: [[UInt8]] = [Array("SET".utf8), placement.valueName, value] + Self.expiry(configuration.timeToLive)
        guard await write(command, to: placement.node) else {
            throw ImageError.sharedCache("write to \(placement.node.endpoint) failed")
        }
    }

    /// Replaces the extended data, keeping the data and renewing the time to live.
    ///
    /// - Returns: `false` when there is no entry (or Redis is in trouble).
    /// - Throws: ``ImageError/sharedCache(_:)`` when the write did not reach Redis.
    @discardableResult
    public func setExtendedData(_ extendedData: Data?, forKey key: String) async throws -> Bool {
        guard let entry = await dataWithExtendedData(forKey: key) else { return false }
        try await setData(entry.data, forKey: key, extendedData: extendedData)
        return true
    }

    /// Removes the entry under `key`.
    ///
    /// - Throws: ``ImageError/sharedCache(_:)`` when Redis could not be asked.
    public func removeData(forKey key: String) async throws {
        let placement = placement(for: key)
        guard let reply = await send([Array("DEL".utf8), placement.valueName], to: placement.node), reply != .null,
              !reply.isError else {
            throw ImageError.sharedCache("remove on \(placement.node.endpoint) failed")
        }
    }

    /// Whether an entry exists under `key` (`false` when Redis is in trouble).
    public func contains(_ key: String) async -> Bool {
        let placement = placement(for: key)
        return await send([Array("EXISTS".utf8), placement.valueName], to: placement.node) == .integer(1)
    }

    /// Removes every entry under the store's prefix, on every node (`SCAN`
    /// then `DEL`, in bounded batches).
    ///
    /// - Throws: ``ImageError/sharedCache(_:)`` when a node could not be emptied.
    public func removeAll() async throws {
        let pattern = Array((configuration.keyPrefix + "v:*").utf8)
        for node in nodes {
            var cursor: [UInt8] = Array("0".utf8)
            // Bounded: a SCAN pass over a keyspace this size ends long before.
            for _ in 0..<1_000_000 {
                guard let reply = await send([Array("SCAN".utf8), cursor, Array("MATCH".utf8), pattern, Array("COUNT".utf8), Array("500".utf8)], to: node),
                      case .array(let parts) = reply, parts.count == 2,
                      case .bulk(let next) = parts[0], case .array(let names) = parts[1] else {
                    throw ImageError.sharedCache("scan on \(node.endpoint) failed")
                }
                let keys = names.compactMap { name -> [UInt8]? in if case .bulk(let bytes) = name { bytes } else { nil } }
                if !keys.isEmpty {
                    guard let deleted = await send([Array("DEL".utf8)] + keys, to: node), !deleted.isError else {
                        throw ImageError.sharedCache("remove on \(node.endpoint) failed")
                    }
                }
                cursor = next
                if next == Array("0".utf8) { break }
            }
        }
    }

    // MARK: Pipelined writes

    /// Queues a write for the node's next pipelined batch and waits for its
    /// acknowledgement; `false` when it was refused or failed.
    private func write(_ command: [[UInt8]], to node: RedisNode) async -> Bool {
        guard let ticket = node.admit() else {
            counters.update { $0.failedWrites += 1 }
            return false
        }
        let byteCount = command.reduce(0) { $0 + $1.count }
        let limit = configuration.maxPendingWriteBytes
        let acknowledged = await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
            let verdict: Bool? = node.state.withLock { state in
                guard state.pendingBytes + byteCount <= limit || state.pendingWrites.isEmpty else { return nil }
                state.pendingWrites.append(RedisNode.PendingWrite(command: command, ticket: ticket, byteCount: byteCount, continuation: continuation))
                state.pendingBytes += byteCount
                guard !state.isFlushing else { return false }
                state.isFlushing = true
                return true
            }
            switch verdict {
            case nil: continuation.resume(returning: false)
            case true?:
                // Refused once the store is shut down: fail what waits for this flush.
                if !pool.submit({ [self] in flush(node) }) { failPendingWrites(of: node) }
            case false?: break
            }
        }
        node.state.observeHandOff()
        counters.update { acknowledged ? ($0.writes += 1) : ($0.failedWrites += 1) }
        return acknowledged
    }

    /// Resumes every write queued for `node` with a failure (no flush will run).
    private func failPendingWrites(of node: RedisNode) {
        let batch = node.state.withLock { state in
            defer {
                state.pendingWrites.removeAll()
                state.pendingBytes = 0
                state.isFlushing = false
            }
            return state.pendingWrites
        }
        for write in batch { write.continuation.resume(returning: false) }
    }

    /// Sends every queued write of `node` in one pipeline, resumes their
    /// writers, and goes on while more arrived meanwhile. Runs on the pool.
    private func flush(_ node: RedisNode) {
        // Bounded by the writers: each pass takes everything queued so far.
        while true {
            let batch: [RedisNode.PendingWrite]? = node.state.withLock { state in
                guard !state.pendingWrites.isEmpty else {
                    state.isFlushing = false
                    return nil
                }
                defer {
                    state.pendingWrites.removeAll()
                    state.pendingBytes = 0
                }
                return state.pendingWrites
            }
            guard let batch else { return }
            counters.update { $0.writeBatches += 1 }
            // The batch goes out under its most recent admission: if the
            // breaker opened after even that one, every write in it was
            // queued behind the failures and fails at once.
            let ticket = RedisNode.Admission(openings: batch.map(\.ticket.openings).max() ?? 0)
            let replies = node.withConnection(admitted: ticket) { connection throws(RedisConnection.Failure) in
                try connection.pipeline(batch.map(\.command))
            }
            // The edge ThreadSanitizer needs between this thread and each
            // resumed writer's `observeHandOff` (see Lock).
            node.state.withLock { _ in }
            for (index, write) in batch.enumerated() {
                write.continuation.resume(returning: replies?[index] == .status("OK"))
            }
        }
    }
}

extension RedisReply {
    /// Whether the server refused the command.
    var isError: Bool {
        if case .error = self { true } else { false }
    }
}
