extension RedisStore {
    /// How a store speaks TLS to its nodes: whom it trusts, the client
    /// certificate it shows, and the name it checks.
    ///
    /// The server's certificate is always verified (OpenSSL, TLS 1.2 or
    /// later): its chain against ``caFile`` (or the system's trust store)
    /// and its identity against ``serverName``, or else the endpoint's host
    /// (a DNS name against the certificate's DNS names, an IP address
    /// against its IP addresses). Over a Unix socket without a
    /// ``serverName``, only the chain is checked.
    public struct TLS: Sendable, Hashable {
        /// A PEM bundle of the authorities to trust; `nil` for the system's
        /// trust store (a managed Redis with a public certificate).
        public var caFile: String?
        /// The client certificate chain (PEM), for a server with
        /// `tls-auth-clients yes`; `nil` for none. Needs ``privateKeyFile``.
        public var certificateFile: String?
        /// The client certificate's private key (PEM).
        public var privateKeyFile: String?
        /// The name the server's certificate must carry, also sent as SNI;
        /// `nil` to use each endpoint's host.
        public var serverName: String?

        /// Creates a TLS configuration; every part is optional.
        public init(caFile: String? = nil, certificateFile: String? = nil, privateKeyFile: String? = nil, serverName: String? = nil) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.privateKeyFile = privateKeyFile
            self.serverName = serverName
        }

        /// The context every connection of a store shares (loading the
        /// files once).
        ///
        /// - Throws: ``RedisFailure/tls(_:)`` when a file cannot be read.
        func makeContext() throws(RedisFailure) -> RedisTLSContext {
            try RedisTLSContext(self)
        }
    }
}
