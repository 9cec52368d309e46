import AsyncWebImage
import Foundation

/// A finished thumbnail: the encoded bytes and what the response says about them.
struct Thumbnail: Sendable {
    /// The encoded image.
    let body: Data
    /// Its format (and so its `Content-Type`).
    let format: ImageFormat
    /// Its pixel size.
    let size: PixelSize
    /// Its validator.
    let entityTag: EntityTag
    /// Where the pixels came from: `.none` (the upstream), `.memory` or `.disk`.
    let cacheType: ImageCacheType
}
