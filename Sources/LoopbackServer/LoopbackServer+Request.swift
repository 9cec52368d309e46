extension LoopbackServer {
    /// One request as the server read it.
    public struct Request: Sendable {
        /// The method, e.g. `GET`.
        public var method: String
        /// The request target as sent, with its query.
        public var target: String
        /// The target without its query: the key of routes and statistics.
        public var path: String
        /// Header fields with lower-cased names; repeated fields joined with ", ".
        public var headers: [String: String]
        /// Every header line as sent: names spelled as the client spelled
        /// them, repeated names once per line, in arrival order.
        public var fields: [(name: String, value: String)] = []

        /// The value of a header field, matched without regard to case.
        /// - Parameter name: The field name.
        public subscript(header name: String) -> String? {
            headers[name.lowercased()]
        }
    }
}
