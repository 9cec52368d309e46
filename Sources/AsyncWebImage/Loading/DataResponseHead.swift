public import Foundation
public import HTTPTypes

/// The head of a response: status, header fields and the expected body length.
public struct DataResponseHead: Sendable, Hashable {
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
    /// The URL that answered, after redirects.
    public var url: URL
    /// curl's timings up to this head, the HTTP version and connection
    /// reuse; nil from loaders that do not measure them.
    public var timings: DataResponseHead.Timings?

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
