import NIOCore

extension RedisStore {
    /// Connects to every node (a cluster: its seeds, then every master of
    /// its slot map), authenticates, selects the database and sends `PING`,
    /// each within the connect timeout and command timeout: what a server
    /// calls at start-up so that a wrong password, certificate or database
    /// is a clear error instead of a tier that only ever misses.
    ///
    /// It opens connections of its own and closes them; the store's
    /// statistics and breakers are untouched.
    ///
    /// - Throws: ``RedisConnectionError`` for the first node that failed.
    public func checkConnection() async throws(RedisConnectionError) {
        if let setupFailure { throw RedisConnectionError(setupFailure, endpoint: configuration.endpoints[0].description) }
        switch routing {
        case .nodes(let nodes, _):
            for node in nodes { try await check(node.endpoint) }
        case .cluster(let topology):
            var firstError: RedisConnectionError?
            var reached = false
            for seed in configuration.endpoints {
                do throws(RedisConnectionError) {
                    try await check(seed)
                    reached = true
                } catch {
                    if firstError == nil { firstError = error }
                }
            }
            if !reached, let firstError { throw firstError }
            guard await topology.refreshed(force: true)?.value == true else {
                throw .clusterUnavailable(message: "no seed answered CLUSTER SHARDS or CLUSTER SLOTS with a slot map")
            }
            for master in await topology.masters() { try await check(master.endpoint) }
        }
    }

    /// One connection to `endpoint`, set up as the store's are, and a `PING`.
    private func check(_ endpoint: Endpoint) async throws(RedisConnectionError) {
        let deadline = NIODeadline.now() + TimeAmount(configuration.connectTimeout + configuration.commandTimeout)
        do throws(RedisFailure) {
            let connection = try await RedisConnection.connect(to: endpoint, settings: settings, eventLoop: eventLoop, deadline: deadline)
            defer { connection.close() }
            let replies = try await connection.send([[Array("PING".utf8)]], deadline: deadline)
            if case .error(let message)? = replies.first {
                throw RedisFailure.setup(message)
            }
        } catch {
            throw RedisConnectionError(error, endpoint: endpoint.description)
        }
    }
}
