import AsyncWebImage
import Foundation

/// A finished thumbnail: the encoded bytes and what the response says about them.
struct Thumbnail: Sendable {
    /// The encoded image.
    let body: Data
    /// Its format (and so its `Content-Type`).
    let format: ImageFormat
    /// Its validator.
    let entityTag: EntityTag
    /// `X-Cache`: `hit-result-memory`, `-disk` or `-redis` (the encoded
    /// response was stored), else where the pixels came from: `miss` (the
    /// upstream), `hit-memory`, `hit-disk`, `hit-shared` (the fleet's Redis), `hit-revalidated` (a 304) or `hit-stale` (the upstream failed).
    let cacheStatus: String
    /// `Cache-Control` of the answer (``ThumbnailCachePolicy``).
    let cacheControl: String
    /// Whether the answer carries `Vary: *` (the origin's did).
    var variesOnEverything = false
}
