import HTTPTypes

/// Where and on what condition a transfer cut mid-body can go on: a `Range`
/// request for the bytes after `offset`, valid only for the same
/// representation (`If-Range` with its validator).
///
/// Only a `200` that advertised `Accept-Ranges: bytes`, a validator usable
/// in `If-Range` (a strong `ETag`, else `Last-Modified`) and no content
/// coding can resume: with a coding the range would count encoded bytes
/// while the body so far counts decoded ones.
struct ResumePoint: Sendable, Hashable {
    /// Body bytes already received.
    let offset: Int
    /// The `If-Range` value.
    let validator: String

    /// How the server answered the range request.
    enum Answer: Equatable {
        /// `206` for exactly the rest: its bytes follow the ones received.
        case rest
        /// `200` for the same representation (the server ignored the range):
        /// its first `offset` bytes repeat what was received.
        case whole
        /// Anything else: the representation changed or the answer does not fit.
        case unusable
    }

    init?(head: DataResponseHead?, offset: Int) {
        guard let head, offset > 0, head.statusCode == 200,
              head.headers[.acceptRanges]?.lowercased().contains("bytes") == true,
              (head.headers[.contentEncoding] ?? "identity").lowercased() == "identity"
        else { return nil }
        // A validator repeated with different values names no one
        // representation (``SingletonField``): no `If-Range` from it.
        if let tag = HTTPCacheMetadata.value(of: .eTag, in: head), !tag.hasPrefix("W/") {
            validator = tag
        } else if let date = HTTPCacheMetadata.value(of: .lastModified, in: head) {
            validator = date
        } else {
            return nil
        }
        self.offset = offset
    }

    /// The header fields that ask for the rest.
    var headerFields: HTTPFields {
        [.range: "bytes=\(offset)-", .ifRange: validator]
    }

    /// What `head`, the answer to the range request, allows.
    func classify(_ head: DataResponseHead) -> Answer {
        guard (head.headers[.contentEncoding] ?? "identity").lowercased() == "identity" else { return .unusable }
        let sameValidator = HTTPCacheMetadata.value(of: .eTag, in: head) == validator
            || HTTPCacheMetadata.value(of: .lastModified, in: head) == validator
        switch head.statusCode {
        case 206:
            // "bytes <first>-<last>/<length>"
            guard let range = head.headers[.contentRange], range.lowercased().hasPrefix("bytes "),
                  let first = Int(range.dropFirst(6).prefix { $0 != "-" }), first == offset else { return .unusable }
            return .rest
        case 200 where sameValidator:
            return .whole
        default:
            return .unusable
        }
    }
}
