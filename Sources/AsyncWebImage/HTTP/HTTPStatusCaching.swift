/// What RFC 9110 and RFC 9111 say about caching per status code.
enum HTTPStatusCaching {
    /// The status codes defined as heuristically cacheable (RFC 9110
    /// §15.1): a response with one of them may be stored without explicit
    /// freshness, and given a heuristic freshness lifetime (RFC 9111 §4.2.2).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The final status codes whose caching rules this cache implements:
    /// those RFC 9110 defines. A response with `must-understand` is stored
    /// only with one of them (RFC 9111 §5.2.2.3); 206 and 304 are listed, as
    /// §3 asks of any cache that stores them, because this cache knows what
    /// they are (it never stores either as a response of its own).
    static let understood: Set<Int> = [
        200, 201, 202, 203, 204, 205, 206,
        300, 301, 302, 303, 304, 307, 308,
        400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 426,
        500, 501, 502, 503, 504, 505,
    ]

    /// Whether `status` is final (not an interim 1xx response): only final
    /// responses are stored (§3).
    static func isFinal(_ status: Int) -> Bool { status >= 200 }
}
