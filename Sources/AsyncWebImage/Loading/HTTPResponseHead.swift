public import Foundation
public import HTTPTypes

/// The head of an HTTP response: the one type for every head the library
/// hands out — what a ``DataLoading`` loader received, and what a load's
/// ``ImageResponse/head`` and ``ImageDataResponse/head`` say the image came
/// with.
///
/// A response downloaded for the load has the origin's header fields as
/// received. A stored one has the fields the cache kept of it (all but the
/// connection's own fields and those its `Cache-Control` told the cache not
/// to keep), updated by every `304 Not Modified` since (RFC 9111 §3.2), and
/// when it is served without asking the origin an `Age` field with its
/// current age (§4.2.3, §5.1); where it came from is the response's
/// ``ImageSource``.
///
/// ```swift
/// let response = try await loader.response(url)
/// if let head = response.head {
///     print(response.source, head.statusCode, head.headers[.cacheControl] ?? "")
/// }
/// ```
public struct HTTPResponseHead: Sendable, Hashable {
    /// The HTTP status code (200 for schemes without one, such as `file`).
    public var statusCode: Int
    /// The header fields as the server sent them: every field in order, a
    /// repeated name (two `Set-Cookie`, `Vary` over two lines) once per line.
    /// Look fields up by `HTTPField.Name`, which matches without regard to
    /// case; `headers[.vary]` joins a repeated field's values with ", " (RFC
    /// 9110 §5.3), `headers[values: .setCookie]` keeps them apart.
    public var headers: HTTPFields
    /// The body length the server announced (`Content-Length`), when it did
    /// and the body is not content-encoded.
    public var expectedContentLength: Int64?
    /// The URL that answered, after redirects (for a stored response, the
    /// URL the load asked for).
    public var url: URL
    /// curl's timings up to this head, the HTTP version and connection
    /// reuse; nil from loaders that do not measure them, and for a stored response.
    public var timings: HTTPResponseHead.Timings?
    /// The response's current age in whole seconds when it came from a
    /// cache tier (also its `Age` field when it was served without asking
    /// the origin); nil for a response downloaded for this load.
    public var age: Int?

    /// Creates a response head.
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - headers: Header fields.
    ///   - expectedContentLength: The announced body length, if any.
    ///   - url: The URL that answered.
    public init(statusCode: Int, headers: HTTPFields, expectedContentLength: Int64?, url: URL) {
        self.statusCode = statusCode
        self.headers = headers
        self.expectedContentLength = expectedContentLength
        self.url = url
    }

    /// The media type of `Content-Type`, lower-cased, without parameters
    /// (`image/jpeg` for `image/JPEG; q=1`).
    public var mimeType: String? {
        headers[.contentType].map {
            $0.split(separator: ";", maxSplits: 1).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        }
    }
}
