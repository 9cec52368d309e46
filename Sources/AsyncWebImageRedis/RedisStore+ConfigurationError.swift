extension RedisStore {
    /// A configuration value a store cannot work with: what
    /// ``RedisStore/init(configuration:)`` and
    /// ``Configuration/validate()`` throw, instead of trapping on a value a
    /// user passed.
    public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The setting at fault: the name of a ``Configuration`` property
        /// (`endpoints`, `keyPrefix`, `commandTimeout`, …).
        public let setting: String
        /// What the setting takes (`at least one endpoint`).
        public let expected: String

        /// Creates the error for `setting`, which takes `expected`.
        public init(setting: String, expected: String) {
            self.setting = setting
            self.expected = expected
        }

        /// `RedisStore.Configuration.keyPrefix: a prefix without { or }`.
        public var description: String { "RedisStore.Configuration.\(setting): \(expected)" }
    }
}

extension RedisStore.Configuration {
    /// The longest duration a setting takes: 10 years, so that every
    /// duration converts to Redis's milliseconds and NIO's nanoseconds
    /// without overflowing.
    static let longestDuration: Duration = .seconds(10 * 365 * 24 * 3600)

    /// Checks every setting; ``RedisStore/init(configuration:)`` calls it.
    ///
    /// - Throws: ``RedisStore/ConfigurationError`` naming the first setting
    ///   the store cannot work with: no endpoint, an endpoint without a host,
    ///   a port outside 1…65535 or an empty socket path, a key prefix with
    ///   `{` or `}` (they would move its keys' cluster slots), a negative
    ///   database, a count below 1, a duration that is not positive (or,
    ///   for the breaker's cool-down and the lease wait, negative) or longer
    ///   than 10 years.
    public func validate() throws(RedisStore.ConfigurationError) {
        guard !endpoints.isEmpty else { throw .init(setting: "endpoints", expected: "at least one endpoint") }
        for endpoint in endpoints {
            if let path = endpoint.unixSocketPath {
                guard !path.isEmpty else { throw .init(setting: "endpoints", expected: "a Unix socket path that is not empty") }
            } else {
                guard !endpoint.host.isEmpty else { throw .init(setting: "endpoints", expected: "a host that is not empty") }
                guard (1...65_535).contains(endpoint.port) else {
                    throw .init(setting: "endpoints", expected: "a port from 1 to 65535 (\(endpoint.host) has \(endpoint.port))")
                }
            }
        }
        guard !keyPrefix.contains("{"), !keyPrefix.contains("}") else {
            throw .init(setting: "keyPrefix", expected: "a prefix without { or } (they would move its keys' cluster slots)")
        }
        guard database >= 0, database <= Int(Int32.max) else {
            throw .init(setting: "database", expected: "a database number from 0 to \(Int32.max)")
        }
        if case .cluster = topology, database != 0 {
            throw .init(setting: "database", expected: "0: a Redis Cluster has database 0 only")
        }
        let counts: [(String, Int)] = [
            ("maxValueBytes", maxValueBytes), ("connectionsPerEndpoint", connectionsPerEndpoint), ("failureThreshold", failureThreshold),
        ]
        for (setting, value) in counts where value < 1 {
            throw .init(setting: setting, expected: "at least 1")
        }
        guard maxPendingWriteBytes >= 0 else { throw .init(setting: "maxPendingWriteBytes", expected: "0 or more") }
        let positive: [(String, Duration)] = [
            ("timeToLive", timeToLive), ("lookupBudget", lookupBudget), ("commandTimeout", commandTimeout),
            ("connectTimeout", connectTimeout), ("leaseDuration", leaseDuration), ("leasePollInterval", leasePollInterval),
        ]
        for (setting, value) in positive where value <= .zero || value > Self.longestDuration {
            throw .init(setting: setting, expected: "a duration above 0 and at most 10 years")
        }
        let nonNegative: [(String, Duration)] = [
            ("breakerCoolDown", breakerCoolDown), ("clusterRefreshInterval", clusterRefreshInterval), ("leaseWaitTimeout", leaseWaitTimeout),
        ]
        for (setting, value) in nonNegative where value < .zero || value > Self.longestDuration {
            throw .init(setting: setting, expected: "a duration from 0 to 10 years")
        }
    }
}
