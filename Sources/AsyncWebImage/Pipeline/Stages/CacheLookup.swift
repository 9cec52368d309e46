import Foundation

/// What a cache stage holds for a load, judged by HTTP freshness.
enum CacheLookup {
    /// Usable as it is. `revalidate` is the record of an entry served while
    /// it is revalidated in the background (`stale-while-revalidate`): the
    /// loader, which owns background work, starts that revalidation.
    case hit(LoadResult, revalidate: HTTPCacheRecord? = nil)
    /// Stored, but it must be revalidated before use.
    case stale(StaleEntry)
    /// Nothing usable (absent, or stored for other `Vary` values).
    case miss
    /// Under the load's primary keys is a response that varies and was
    /// selected by other values of the fields its `Vary` names: this
    /// request's variant, if stored, is under its own keys
    /// (``ImageLoadRequest/selectingVariant(varyingOn:)``), and the
    /// stored one's validators may still name it in a conditional
    /// request (RFC 9111 §4.3.1).
    case otherVariant(StaleEntry)
}

/// How a stored response, judged by its HTTP record, may serve a request:
/// the one judgement the memory and the disk stages share.
enum StoredVerdict {
    /// Serve it; with `revalidate`, while a background revalidation runs
    /// (`stale-while-revalidate`).
    case usable(revalidate: Bool)
    /// Revalidate it before use.
    case stale
    /// Stored for other `Vary` values: under the primary keys, another
    /// variant (``CacheLookup/otherVariant(_:)``); under a variant's own keys, a miss.
    case otherVariant
    /// Not usable at all.
    case miss

    /// The verdict on `record` for `request` now.
    ///
    /// - Parameter acceptingStale: Serve a stale record (`.refreshCached`,
    ///   which revalidates anyway; a 304 that has just refreshed it).
    init(_ record: HTTPCacheRecord, for request: ImageLoadRequest, acceptingStale: Bool) {
        guard record.metadata.matchesVary(request.dataRequest) else {
            self = request.varyKey == nil ? .otherVariant : .miss
            return
        }
        guard !acceptingStale else {
            self = .usable(revalidate: false)
            return
        }
        switch record.reuse(for: request.dataRequest, at: Date()) {
        case .fresh: self = .usable(revalidate: false)
        case .staleWhileRevalidate: self = .usable(revalidate: true)
        case .stale: self = .stale
        }
    }
}

/// A stored response that must be revalidated before use (or is being
/// revalidated: ``FetchPlan/fetchConditionally(_:)``).
struct StaleEntry {
    let record: HTTPCacheRecord
    /// The final image, when the stale entry was found in memory: a
    /// `304` then serves it with no decode.
    let image: Image?
    /// The original's stored bytes, when they were read (a `.refreshCached`
    /// reads them): an origin that ignores the validators and sends the
    /// same bytes again has changed nothing.
    var data: Data? = nil
}

/// How a response is kept: whether the tiers may store it, the record
/// memory entries carry, and the extended data of its disk entry.
struct ResponseStorage {
    var isStorable = true
    var record: HTTPCacheRecord?
    var extendedData: Data?

    /// Storage of an image that came from a cache with `record`.
    static func cached(_ record: HTTPCacheRecord?) -> ResponseStorage {
        ResponseStorage(record: record)
    }
}
