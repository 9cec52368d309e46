extension LoopbackServer {
    /// What the server saw for one path (the request target without its query).
    public struct PathStatistics: Sendable {
        /// Requests received.
        public var requests = 0
        /// Requests being answered now.
        public var inFlight = 0
        /// The most requests ever answered at the same time.
        public var maxInFlight = 0
        /// Responses sent to the end.
        public var completed = 0
        /// When the client went away before its response was complete
        /// (connection closed or reset during a delay, stall, trickle or send).
        public var disconnects: [ContinuousClock.Instant] = []
        /// Body bytes written to the socket, over all requests.
        public var bodyBytesSent = 0
        /// The header fields of every request, in arrival order.
        public var requestHeaders: [[String: String]] = []
        /// The full targets (with query) of every request, in arrival order.
        public var targets: [String] = []
        /// Conditional requests received: those with `If-None-Match` or `If-Modified-Since`.
        public var conditionalRequests = 0
        /// `304 Not Modified` responses sent.
        public var notModifiedResponses = 0

        /// Creates empty statistics.
        public init() {}

        /// Counts a request that starts being answered.
        mutating func record(_ request: Request) {
            requests += 1
            inFlight += 1
            maxInFlight = max(maxInFlight, inFlight)
            requestHeaders.append(request.headers)
            targets.append(request.target)
            if request[header: "If-None-Match"] != nil || request[header: "If-Modified-Since"] != nil {
                conditionalRequests += 1
            }
        }
    }
}
