public import Foundation

/// The head of a response: status, header fields and the expected body length.
public struct DataResponseHead: Sendable, Hashable {
    /// The HTTP status code (200 for schemes without one, such as `file`).
    public var statusCode: Int
    /// Header fields with lower-cased names; repeated fields joined with ", ".
    public var headers: [String: String]
    /// The body length the server announced (`Content-Length`), when it did
    /// and the body is not content-encoded.
    public var expectedContentLength: Int64?
    /// The URL that answered, after redirects.
    public var url: URL
    /// curl's timings up to this head, the HTTP version and connection
    /// reuse; nil from loaders that do not measure them.
    public var timings: TransferTimings?

    /// Creates a response head.
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - headers: Header fields; names are lower-cased.
    ///   - expectedContentLength: The announced body length, if any.
    ///   - url: The URL that answered.
    public init(statusCode: Int, headers: [String: String], expectedContentLength: Int64?, url: URL) {
        self.statusCode = statusCode
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { "\($0), \($1)" }
        self.expectedContentLength = expectedContentLength
        self.url = url
    }

    /// Creates a response head from fields whose names are lower case already.
    init(statusCode: Int, lowercasedHeaders: [String: String], expectedContentLength: Int64?, url: URL) {
        self.statusCode = statusCode
        headers = lowercasedHeaders
        self.expectedContentLength = expectedContentLength
        self.url = url
    }

    /// The value of a header field, matched without regard to case.
    /// - Parameter name: The field name.
    public subscript(header name: String) -> String? {
        headers[name.lowercased()]
    }

    /// The media type of `Content-Type`, lower-cased, without parameters
    /// (`image/jpeg` for `image/JPEG; q=1`).
    public var mimeType: String? {
        self[header: "content-type"].map {
            $0.split(separator: ";", maxSplits: 1).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        }
    }
}
