public import Logging
extension RedisStore {
    /// One Redis node.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// Host name or address (`127.0.0.1`).
        public var host: String
        /// TCP port (`6379` by default).
        public var port: Int

        /// Creates an endpoint.
        public init(host: String, port: Int = 6379) {
            self.host = host
            self.port = port
        }

        /// `host:port`: the node's name, which also seeds its hashing, so
        /// every server of a fleet must list a node under the same name.
        public var description: String { "\(host):\(port)" }
    }

    /// How a ``RedisStore`` reaches its nodes and what it stores.
    public struct Configuration: Sendable {
        // MARK: Nodes

        /// The nodes; keys are spread over them by rendezvous hashing, so
        /// adding one moves only its share of the keys. At least one.
        public var endpoints: [Endpoint]
        /// Prepended to every key name, so that one Redis can serve several
        /// caches (or other data). `"awi:"` by default.
        public var keyPrefix: String = "awi:"

        // MARK: What is stored

        /// How long an entry lives in Redis (`SET … PX`). 7 days by default.
        public var timeToLive: Duration = .seconds(7 * 24 * 3600)
        /// The largest value stored (entry bytes, header and extended data
        /// included); larger images skip this tier and are not an error.
        /// 8 MiB by default.
        public var maxValueBytes: Int = 8 << 20

        // MARK: Timeouts and the breaker

        /// How long connecting may take. 100 ms by default: the node is
        /// expected in the same data centre, and a slower answer is a miss.
        public var connectTimeout: Duration = .milliseconds(100)
        /// How long one command (or one pipelined batch) may take. 250 ms by default.
        public var commandTimeout: Duration = .milliseconds(250)
        /// Connections kept open per node; also the number of threads that
        /// make blocking calls (per node, at most 16 in all). 4 by default.
        public var connectionsPerEndpoint: Int = 4
        /// Consecutive failures of one node that open its breaker, after
        /// which requests to it are misses at no cost. 3 by default.
        public var failureThreshold: Int = 3
        /// How long an open breaker waits before one request probes the
        /// node again. 5 seconds by default.
        public var breakerCoolDown: Duration = .seconds(5)
        /// Bytes of writes that may wait to be sent to one node; writes
        /// past it are refused (the entry is simply not shared). 64 MiB by default.
        public var maxPendingWriteBytes: Int = 64 << 20

        // MARK: Fleet leases

        /// How long a server holds a key's fetch lease (``CacheLeasing``): the
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
        /// `Logger(label: "AsyncWebImage")` by default.
        public var logger = Logger(label: "AsyncWebImage")

        /// Creates a configuration for these nodes, with the defaults above.
        public init(endpoints: [Endpoint]) {
            self.endpoints = endpoints
        }
    }
}
