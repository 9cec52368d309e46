public import HTTPTypes

/// The head of the HTTP response a load's image or data came from, as the
/// cache returns it (RFC 9111): the status, the header fields, how old the
/// response is, and which tier answered.
///
/// A response downloaded for the load has the origin's header fields as
/// received. A stored one has the fields the cache kept of it (all but the
/// connection's own fields and those its `Cache-Control` told the cache not
/// to keep), updated by every `304 Not Modified` since (RFC 9111 §3.2), and
/// when it is served without asking the origin an `Age` field with its
/// current age (§4.2.3, §5.1).
///
/// ```swift
/// let response = try await loader.image(url)
/// if let head = response.head {
///     print(head.statusCode, head.tier, head.headers[.cacheControl] ?? "")
/// }
/// ```
public struct HTTPResponseHead: Sendable, Hashable {
    /// Where the response's content came from.
    public enum Tier: Sendable, Hashable {
        /// Downloaded for this load.
        case network
        /// The memory cache.
        case memory
        /// The disk store, or the shared tier behind it.
        case disk
    }

    /// The status code.
    public var statusCode: Int
    /// The header fields, as the cache returns them.
    public var headers: HTTPFields
    /// Which tier answered.
    public var tier: Tier
    /// The response's current age in whole seconds when it came from a
    /// cache (also its `Age` field when it was served without validation);
    /// nil for a response downloaded for this load.
    public var age: Int?
    /// Whether the origin confirmed the stored response for this load (a
    /// `304 Not Modified` to a conditional request).
    public var isValidated: Bool
    /// The error that kept the origin from answering, when the stored
    /// response was served stale in its place (RFC 9111 §4.2.4, RFC 5861
    /// `stale-if-error`); nil otherwise.
    public var staleError: ImageError?

    /// Creates a response head.
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - headers: The header fields.
    ///   - tier: Which tier answered.
    ///   - age: The current age in seconds, for a stored response.
    ///   - isValidated: Whether the origin confirmed a stored response.
    ///   - staleError: The origin's error a stale response stands in for.
    public init(
        statusCode: Int, headers: HTTPFields, tier: Tier, age: Int? = nil, isValidated: Bool = false, staleError: ImageError? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.tier = tier
        self.age = age
        self.isValidated = isValidated
        self.staleError = staleError
    }
}
