import Foundation

/// The loader's HTTP caching rules as one value: its mode and the lifetime
/// it gives responses that state none. Every judgement of a stored or
/// received response goes through it — storability, freshness, and the
/// plan of a fetch (``plan(for:)``) — so the stages, a `.refreshCached`,
/// a background revalidation and a `stale-if-error` all decide alike.
struct HTTPCachePolicy: Hashable, Sendable {
    /// A week: SDWebImage's `maxDiskAge`, and the disk store's default age limit.
    static let oneWeek: Double = 7 * 86_400

    let mode: ImageLoader.HTTPCacheMode
    /// The freshness lifetime, in seconds, of a response with no explicit
    /// freshness, in the modes that give one (``ImageLoader/HTTPCacheMode/givesDefaultLifetime``).
    let defaultLifetime: Double

    init(mode: ImageLoader.HTTPCacheMode, defaultLifetime: Double = Self.oneWeek) {
        self.mode = mode
        self.defaultLifetime = max(0, defaultLifetime)
    }

    /// The policy of a loader's configuration.
    init(_ configuration: ImageLoader.Configuration) {
        let lifetime = configuration.defaultFreshnessLifetime.components
        self.init(mode: configuration.httpCacheMode, defaultLifetime: Double(lifetime.seconds) + Double(lifetime.attoseconds) * 1e-18)
    }

    // Each mode with the default lifetime: what tests and a loader built
    // without a configuration use.
    static let `private` = HTTPCachePolicy(mode: .private)
    static let shared = HTTPCachePolicy(mode: .shared)
    static let strictPrivate = HTTPCachePolicy(mode: .strictPrivate)
    static let strictShared = HTTPCachePolicy(mode: .strictShared)
    static let ignoringHeaders = HTTPCachePolicy(mode: .ignoringHeaders)

    /// Whether stored records are judged by their headers at all.
    var followsHeaders: Bool { mode.followsHeaders }

    /// The record of a stored response under this policy.
    func record(_ metadata: HTTPCacheMetadata) -> HTTPCacheRecord {
        HTTPCacheRecord(metadata, policy: self)
    }

    /// How the response `head` to `request`, sent at `requestTime` and
    /// arriving now, is kept. Ignoring headers stores every response, with
    /// a record that is always fresh (its head and validators only count).
    ///
    /// - Parameter encodesMetadata: Whether a disk or shared tier will keep
    ///   the metadata beside the bytes: its JSON form is made only then (a
    ///   thumbnail server with every cache off makes none per response).
    func storage(for head: HTTPResponseHead?, request: DataRequest, requestTime: Date? = nil, encodesMetadata: Bool = true) -> ResponseStorage {
        guard let head else { return ResponseStorage() }
        let metadata = HTTPCacheMetadata(head: head, request: request, requestTime: requestTime, responseTime: Date(), mode: mode)
        return storage(of: metadata, request: request, encodesMetadata: encodesMetadata)
    }

    /// How a response with `metadata`, to `request`, is kept.
    func storage(of metadata: HTTPCacheMetadata, request: DataRequest, encodesMetadata: Bool = true) -> ResponseStorage {
        ResponseStorage(
            isStorable: metadata.isStorable(mode: mode, request: request),
            record: record(metadata),
            extendedData: encodesMetadata ? metadata.encoded : nil
        )
    }
}
