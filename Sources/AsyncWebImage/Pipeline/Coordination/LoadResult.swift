import Foundation

/// The end of a load inside the pipeline: what ``ImageResponse`` and
/// ``ImageDataResponse`` are made from. The image is `nil` only for loads
/// that decode nothing (``ImageLoader/data(for:)``, data-only prefetches).
struct LoadResult: Sendable {
    /// The decoded image; `nil` when nothing was decoded.
    var image: Image?
    /// The encoded data, when known.
    var data: Data?
    /// Where the result came from.
    var cacheType: ImageCacheType
    /// The URL that was asked for.
    var url: URL
    /// Why an awaited disk write failed, if one did.
    var storeError: ImageError?
    /// What the response head is made from (set where the result is made).
    var headSource: ResponseHeadSource?
    /// A `.disk` result read from the shared tier (the disk did not hold it).
    var fromSharedTier = false

    init(image: Image?, data: Data?, cacheType: ImageCacheType, url: URL) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.url = url
    }

    /// Where the result came from, as the public responses say it: the
    /// tier, or what the origin's answer made of a stored entry.
    var source: ImageSource {
        if case .stored(_, _, let validated, let staleError)? = headSource {
            if let staleError { return .stale(staleError) }
            if validated { return .revalidated }
        }
        if cacheType.contains(.memory) { return .memory }
        if cacheType.contains(.disk) { return fromSharedTier ? .sharedTier : .disk }
        return .network
    }

    /// The public response, or `invalidImage` for a result that has no
    /// image (which an image load never ends with).
    func imageResponse() throws(ImageError) -> ImageResponse {
        guard let image else { throw .invalidImage("the load decoded no image") }
        var response = ImageResponse(image: image, data: data, source: source, url: url)
        response.storeError = storeError
        response.headSource = headSource
        return response
    }
}
