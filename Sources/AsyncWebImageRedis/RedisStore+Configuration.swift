public import Logging

extension RedisStore {
    /// How a ``RedisStore`` reaches its nodes and what it stores.
    ///
    /// ```swift
    /// var configuration = RedisStore.Configuration(endpoints: [.init(host: "redis.internal", port: 6380)])
    /// configuration.topology = .cluster
    /// configuration.credentials = .init(username: "thumbs", password: secret)
    /// configuration.tls = .init(caFile: "/etc/ssl/redis-ca.pem")
    /// configuration.keyPrefix = "thumbs:"
    /// ```
    public struct Configuration: Sendable {
        // MARK: Nodes

        /// The nodes (``Topology/independentNodes``: keys are spread over them
        /// by rendezvous hashing, so adding one moves only its share of the
        /// keys), or the seeds of a cluster (``Topology/cluster``). At least one.
        public var endpoints: [Endpoint]
        /// Independent nodes (the default) or a Redis Cluster.
        public var topology: Topology = .independentNodes
        /// Prepended to every key name, so that one Redis can serve several
        /// caches or tenants (give each its own ACL user limited to
        /// `~PREFIX*`). Must not contain `{` or `}` (they would change a
        /// key's cluster slot). `"awi:"` by default.
        public var keyPrefix: String = "awi:"

        // MARK: Connections

        /// `AUTH` with a password or an ACL user; `nil` (the default) for none.
        public var credentials: Credentials?
        /// TLS to every node; `nil` (the default) for plain TCP.
        public var tls: TLS?
        /// The database number (`SELECT`); 0 by default. Redis Cluster has
        /// database 0 only.
        public var database: Int = 0

        // MARK: What is stored

        /// How long an entry lives in Redis (`SET … PX`). 7 days by default.
        public var timeToLive: Duration = .seconds(7 * 24 * 3600)
        /// The largest value stored (entry bytes, header and extended data
        /// included); larger images skip this tier and are not an error.
        /// Also the largest value *read*: a longer one is refused by its
        /// declared length before any of it is buffered (a miss). 8 MiB by default.
        public var maxValueBytes: Int = 8 << 20

        // MARK: Deadlines and the breaker

        /// The longest a lookup (a read, one poll of a lease wait) may take
        /// before it counts as a miss: waiting for a connection, connecting,
        /// TLS, `AUTH`, redirections and the reply together. 250 ms by default.
        public var lookupBudget: Duration = .milliseconds(250)
        /// The deadline of one command or pipelined batch of writes (a
        /// write, a lease, a topology refresh), connect to last reply byte.
        /// 250 ms by default.
        public var commandTimeout: Duration = .milliseconds(250)
        /// How long connecting (TCP or Unix socket) may take, within the
        /// deadline. 100 ms by default: the node is expected in the same
        /// data centre, and a slower answer is a miss.
        public var connectTimeout: Duration = .milliseconds(100)
        /// Connections open at most to one node; a command waits for one
        /// (within its deadline) when all are busy. 4 by default.
        public var connectionsPerEndpoint: Int = 4
        /// Consecutive failures of one node (refused, reset, a deadline
        /// passed: a slow node counts as a failing one) that open its
        /// breaker, after which requests to it are misses at no cost. 3 by default.
        public var failureThreshold: Int = 3
        /// How long an open breaker waits before one request probes the
        /// node again. 5 seconds by default.
        public var breakerCoolDown: Duration = .seconds(5)
        /// Bytes of writes that may wait to be sent to one node; writes
        /// past it are refused (the entry is simply not shared). 64 MiB by default.
        public var maxPendingWriteBytes: Int = 64 << 20

        // MARK: Cluster

        /// The shortest time between two reads of a cluster's slot map; a
        /// read is triggered by a redirection, a node that fails or whose
        /// breaker is open, or `CLUSTERDOWN`. 100 ms by default.
        public var clusterRefreshInterval: Duration = .milliseconds(100)

        // MARK: Fleet leases

        /// How long a server holds a key's fetch lease (`CacheLeasing`): the
        /// longest a dead holder can make the others wait. 10 seconds by default.
        public var leaseDuration: Duration = .seconds(10)
        /// How long a server waits for the lease holder's entry before it
        /// fetches the key itself. 15 seconds by default.
        public var leaseWaitTimeout: Duration = .seconds(15)
        /// How often a waiting server looks for the entry. 25 ms by default.
        public var leasePollInterval: Duration = .milliseconds(25)
        /// Where the store logs: a warning each time a node's breaker opens
        /// (the tier is skipped for ``breakerCoolDown``, loads fall back to
        /// disk and the network), a debug line for each failed request.
        /// Credentials are never logged. `Logger(label: "AsyncWebImageRedis")` by default.
        public var logger = Logger(label: "AsyncWebImageRedis")

        /// Creates a configuration for these nodes, with the defaults above.
        public init(endpoints: [Endpoint]) {
            self.endpoints = endpoints
        }
    }
}
