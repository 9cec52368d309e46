import Foundation
import HTTPTypes

/// Where and on what condition a transfer cut mid-body can go on: a `Range`
/// request for the bytes after `offset`, valid only for the same
/// representation (`If-Range` with its validator), and the checks that the
/// answer is that representation's rest (RFC 9110 §14, §13.1.5, §8.8).
///
/// Only a `200` that advertised `Accept-Ranges: bytes`, its length
/// (`Content-Length`, so that the answer's `Content-Range` can be checked
/// against it), no content coding (with one the range would count encoded
/// bytes while the body so far counts decoded ones), and a strong validator
/// can resume. The validator is the `ETag` when it is strong; else the
/// `Last-Modified` date when §8.8.2.2 lets a client deduce it is strong — the
/// response's `Date` at least ``minimumDateGap`` after it (a representation
/// changed twice within a second, or on a server whose clock the client
/// cannot trust, would otherwise splice two versions). A weak `ETag` never
/// goes in `If-Range` (§13.1.5).
struct ResumePoint: Sendable, Hashable {
    /// Body bytes already received.
    let offset: Int
    /// The representation's whole length.
    let totalLength: Int
    /// The `If-Range` value.
    let validator: String
    /// Whether ``validator`` is the `Last-Modified` date (else the strong `ETag`).
    let validatorIsDate: Bool
    /// The `ETag` the first response had, when ``validator`` is its date (a
    /// weak one, or none): the answer must carry the same.
    let weakTag: String?

    /// How long before the response's `Date` a `Last-Modified` must be to be
    /// a strong validator for a client (RFC 9110 §8.8.2.2: enough difference
    /// to make clock synchronisation issues unlikely).
    static let minimumDateGap: TimeInterval = 60

    /// How the server answered the range request.
    enum Answer: Equatable {
        /// `206` for exactly the rest of the same representation: its bytes
        /// follow the ones received.
        case rest
        /// `200` for the same representation (the server ignored the range):
        /// its first `offset` bytes repeat what was received.
        case whole
        /// `200` for another representation (`If-Range` did not match): the
        /// body starts again with it.
        case replacement
        /// Anything else (a `206` for another representation, another range
        /// or another length, a status that is neither): none of its bytes
        /// can be used; the transfer restarts from zero with a plain request.
        case unusable
    }

    init?(head: HTTPResponseHead?, offset: Int) {
        guard let head, offset > 0, head.statusCode == 200,
              head.headers[.acceptRanges]?.lowercased().contains("bytes") == true,
              Self.isIdentity(head),
              let length = head.headers.singleton(.contentLength).value.flatMap({ Int($0) }), length > offset
        else { return nil }
        // A validator repeated with different values names no one
        // representation (``SingletonField``): no `If-Range` from it.
        let tag = HTTPCacheMetadata.value(of: .eTag, in: head)
        if let tag, !EntityTag.isWeak(tag) {
            validator = tag
            validatorIsDate = false
            weakTag = nil
        } else if let date = HTTPCacheMetadata.value(of: .lastModified, in: head), Self.isStrong(lastModified: date, in: head) {
            validator = date
            validatorIsDate = true
            weakTag = tag
        } else {
            return nil
        }
        self.offset = offset
        totalLength = length
    }

    /// The header fields that ask for the rest.
    var headerFields: HTTPFields {
        [.range: "bytes=\(offset)-", .ifRange: validator]
    }

    /// What `head`, the answer to the range request, allows.
    func classify(_ head: HTTPResponseHead) -> Answer {
        guard Self.isIdentity(head) else { return head.statusCode == 200 ? .replacement : .unusable }
        switch head.statusCode {
        case 206:
            guard isSameRepresentation(head), let range = ContentRange(head.headers[.contentRange]),
                  range.first == offset, range.last == totalLength - 1, range.complete == totalLength else { return .unusable }
            return .rest
        case 200:
            guard isSameRepresentation(head) else { return .replacement }
            let length = head.headers.singleton(.contentLength).value.flatMap { Int($0) }
            return length == nil || length == totalLength ? .whole : .replacement
        default:
            return .unusable
        }
    }

    /// Whether `head` names the representation the first response was: the
    /// same strong `ETag` (strong comparison, §8.8.3.2), or the same
    /// `Last-Modified` with the same weak `ETag` or none.
    private func isSameRepresentation(_ head: HTTPResponseHead) -> Bool {
        let tag = HTTPCacheMetadata.value(of: .eTag, in: head)
        guard validatorIsDate else { return tag.map { EntityTag.matches($0, validator, weakly: false) } ?? false }
        return HTTPCacheMetadata.value(of: .lastModified, in: head) == validator && tag == weakTag
    }

    private static func isIdentity(_ head: HTTPResponseHead) -> Bool {
        (head.headers[.contentEncoding] ?? "identity").lowercased() == "identity"
    }

    /// §8.8.2.2: a client may treat a `Last-Modified` as strong when the
    /// response's `Date` is far enough after it.
    private static func isStrong(lastModified: String, in head: HTTPResponseHead) -> Bool {
        guard let modified = HTTPDate.parse(lastModified),
              let date = HTTPCacheMetadata.value(of: .date, in: head).flatMap({ HTTPDate.parse($0) }) else { return false }
        return date.timeIntervalSince(modified) >= minimumDateGap
    }

    /// A `Content-Range` of a single byte range with a known complete
    /// length (RFC 9110 §14.4): `bytes first-last/complete`.
    struct ContentRange: Equatable {
        let first: Int
        let last: Int
        let complete: Int

        init?(_ value: String?) {
            guard let value, value.utf8.count <= 64, value.lowercased().hasPrefix("bytes ") else { return nil }
            let spec = value.dropFirst(6)
            let parts = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            func number(_ text: Substring) -> Int? {
                guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
                return Int(text)
            }
            guard bounds.count == 2, let first = number(bounds[0]), let last = number(bounds[1]),
                  let complete = number(parts[1]), first <= last, last < complete else { return nil }
            self.first = first
            self.last = last
            self.complete = complete
        }
    }
}
