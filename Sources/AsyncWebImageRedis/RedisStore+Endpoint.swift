import NIOCore

extension RedisStore {
    /// One Redis node: a host and TCP port, or a Unix socket.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// Host name or address (`127.0.0.1`); empty for a Unix socket.
        public var host: String
        /// TCP port (`6379` by default); 0 for a Unix socket.
        public var port: Int
        /// The path of a Unix socket (`unixsocket` in redis.conf), or `nil` for TCP.
        public var unixSocketPath: String?

        /// Creates a TCP endpoint.
        public init(host: String, port: Int = 6379) {
            self.host = host
            self.port = port
            self.unixSocketPath = nil
        }

        /// Creates an endpoint on a Unix socket (a Redis on the same machine:
        /// no TCP stack, and file permissions decide who may connect).
        public init(unixSocketPath: String) {
            self.host = ""
            self.port = 0
            self.unixSocketPath = unixSocketPath
        }

        /// `host:port`, or `unix:PATH`: the node's name, which also seeds
        /// its hashing, so every server of a fleet must list a node under
        /// the same name.
        public var description: String {
            if let unixSocketPath { return "unix:" + unixSocketPath }
            return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }

        /// Whether ``host`` is a DNS name (not an IP address, not a Unix
        /// socket): the name a TLS certificate is checked against.
        var isHostName: Bool {
            guard unixSocketPath == nil, !host.isEmpty else { return false }
            return (try? SocketAddress(ipAddress: host, port: 0)) == nil
        }

        /// Parses `host:port` (`[v6]:port` too) as Redis writes it in
        /// `MOVED` and `ASK` redirections; `nil` when it is not one.
        init?(redisAddress text: Substring) {
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
                  (1...65_535).contains(port) else { return nil }
            var host = text[..<colon]
            if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
            guard !host.isEmpty else { return nil }
            self.init(host: String(host), port: port)
        }
    }
}
