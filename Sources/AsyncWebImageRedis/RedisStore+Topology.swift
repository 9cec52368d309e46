extension RedisStore {
    /// How the endpoints relate to each other.
    public enum Topology: Sendable, Hashable {
        /// Independent nodes, each holding its share of the keys, chosen by
        /// rendezvous hashing on the client. No replication: a node that
        /// goes down takes its keys with it (they become misses, fetched
        /// again). The endpoints are every node.
        case independentNodes
        /// A Redis Cluster: keys live in 16,384 hash slots owned by shards
        /// of a master and its replicas; the endpoints are seeds from which
        /// the slot map is read (`CLUSTER SHARDS`, or `CLUSTER SLOTS` before
        /// Redis 7). Redirections (`MOVED`, `ASK`) are followed, and the map
        /// is read again when the cluster changes (a failover, a resharding).
        ///
        /// - Parameter readsFromReplicas: Send lookups to the shard's
        ///   replicas (`READONLY`), leaving writes and leases on the master.
        ///   A replica may lag behind its master by a few milliseconds: a
        ///   value just written may be a miss there, never a wrong value.
        case cluster(readsFromReplicas: Bool)

        /// A Redis Cluster, lookups on the masters.
        public static var cluster: Topology { .cluster(readsFromReplicas: false) }
    }
}
