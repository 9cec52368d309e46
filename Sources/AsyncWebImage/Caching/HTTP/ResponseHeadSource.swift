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
    case received(DataResponseHead)
    /// A stored response served at `servedAt` from `tier`.
    case stored(HTTPCacheRecord, tier: HTTPResponseHead.Tier, servedAt: Date, validated: Bool, staleError: ImageError?)

    /// A stored response served now.
    static func stored(_ record: HTTPCacheRecord, tier: HTTPResponseHead.Tier, validated: Bool = false, staleError: ImageError? = nil) -> ResponseHeadSource {
        .stored(record, tier: tier, servedAt: Date(), validated: validated, staleError: staleError)
    }

    /// The head.
    var head: HTTPResponseHead {
        switch self {
        case .received(let head):
            return HTTPResponseHead(statusCode: head.statusCode, headers: head.headers, tier: .network)
        case .stored(let record, let tier, let servedAt, let validated, let staleError):
            return record.responseHead(tier: tier, at: servedAt, validated: validated, staleError: staleError)
        }
    }
}
