import Foundation

/// What a response's ``HTTPResponseHead`` is made from, kept with the
/// response and turned into the head only when a caller asks: a memory hit
/// then costs no header copy unless its head is read.
///
/// `indirect`: a stored record is a few hundred bytes, and every response
/// carries this field through each async return on its way to the caller;
/// boxed, the field is one reference (none on a hit without a record), and
/// a memory hit moves a small ``ImageResponse`` instead of a large one.
indirect enum ResponseHeadSource: Sendable {
    /// A response downloaded for the load, as received.
    case received(HTTPResponseHead)
    /// A stored response served at `servedAt`; `validated` when the origin
    /// confirmed it for this load (a 304), `staleError` the origin's error
    /// when it stands in for the origin's answer.
    case stored(HTTPCacheRecord, servedAt: Date, validated: Bool, staleError: ImageError?)

    /// A stored response served now.
    static func stored(_ record: HTTPCacheRecord, validated: Bool = false, staleError: ImageError? = nil) -> ResponseHeadSource {
        .stored(record, servedAt: Date(), validated: validated, staleError: staleError)
    }

    /// The head, for a load of `url`.
    func head(url: URL) -> HTTPResponseHead {
        switch self {
        case .received(let head):
            return head
        case .stored(let record, let servedAt, let validated, _):
            return record.responseHead(url: url, at: servedAt, validated: validated)
        }
    }
}
