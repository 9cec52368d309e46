extension HTTPResponseHead {
    /// How long the phases of one transfer took, as curl measured them
    /// (`CURLINFO_*_TIME_T`), with the HTTP version and whether a connection was
    /// reused. On a response head the phases up to the head; the total
    /// (`CURLINFO_TOTAL_TIME_T`) is known only after the body, so it is nil
    /// there and set in ``DataRequest/Transfer/completedTimings``.
    ///
    /// Every phase is measured from the start of the transfer and includes the
    /// ones before it, as curl reports them; after redirects, the times cover
    /// the whole chain up to the final response's head.
    public struct Timings: Sendable, Hashable {
        /// Until the host name was resolved (`CURLINFO_NAMELOOKUP_TIME_T`).
        public var nameLookup: Duration
        /// Until the TCP connection (or the proxy's) was made (`CURLINFO_CONNECT_TIME_T`).
        public var connect: Duration
        /// Until the TLS handshake ended (`CURLINFO_APPCONNECT_TIME_T`); zero without TLS.
        public var tlsHandshake: Duration
        /// Until the first response byte arrived (`CURLINFO_STARTTRANSFER_TIME_T`).
        public var firstByte: Duration
        /// The HTTP version of the response: `"1.0"`, `"1.1"`, `"2"`, `"3"`, or nil when unknown.
        public var httpVersion: String?
        /// Whether the transfer reused a connection instead of opening one
        /// (`CURLINFO_NUM_CONNECTS` was 0).
        public var reusedConnection: Bool
        /// The whole transfer, to its last byte (`CURLINFO_TOTAL_TIME_T`); nil
        /// until the transfer has ended (on a response head).
        public var total: Duration?

        /// Creates timings.
        public init(
            nameLookup: Duration, connect: Duration, tlsHandshake: Duration, firstByte: Duration,
            httpVersion: String?, reusedConnection: Bool, total: Duration? = nil
        ) {
            self.total = total
            self.nameLookup = nameLookup
            self.connect = connect
            self.tlsHandshake = tlsHandshake
            self.firstByte = firstByte
            self.httpVersion = httpVersion
            self.reusedConnection = reusedConnection
        }
    }
}
