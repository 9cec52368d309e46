import Foundation

/// One load with everything resolved: effective options and context, the
/// cache keys, the decode options and the data request. Built once per call
/// by ``ImageLoader``; immutable afterwards.
struct ImageLoadRequest: Sendable {
    let url: URL
    let options: ImageOptions
    let context: ImageContext
    /// The key of the encoded original on disk (``ImageContext/cacheKeyFilter``).
    let cacheKey: String
    /// The key of the decoded original in memory: `cacheKey` plus the decode options.
    let originalImageKey: String
    /// The key of the final, transformed image: `originalImageKey` plus the transformer's key.
    let resultKey: String
    let decodingOptions: ImageDecodingOptions
    /// The request as it will be sent (after the request modifier).
    var dataRequest: DataRequest
    let cache: ImageCache

    var transformer: (any ImageTransformer)? { context.transformer }
    var queryCacheType: ImageCacheType { context.queryCacheType ?? .all }
    var storeCacheType: ImageCacheType { context.storeCacheType ?? .all }
    /// Where the original goes: with a transformer, `originalStoreCacheType`
    /// (`.disk` by default); without one the original is the result.
    var originalStoreCacheType: ImageCacheType {
        transformer == nil ? storeCacheType : (context.originalStoreCacheType ?? .disk)
    }
    var wantsPixels: Bool { !options.contains(.avoidDecodeImage) }

    /// What identifies the shared work for this request: two requests with
    /// the same key get the same result, so the key holds everything that
    /// changes it — the result key, the request as sent (credentials
    /// included), and whether pixels are decoded.
    var taskKey: TaskKey {
        TaskKey(
            resultKey: resultKey, request: dataRequest.key, decodes: wantsPixels,
            cacheOnly: options.contains(.fromCacheOnly), revalidates: false
        )
    }

    struct TaskKey: Hashable, Sendable {
        let resultKey: String
        let request: DataRequest.Key
        let decodes: Bool
        /// `.fromCacheOnly` work fails with a cache miss where other work
        /// downloads: the two must never be shared.
        let cacheOnly: Bool
        let revalidates: Bool
    }
}

extension ImageLoadRequest {
    /// This request sending `dataRequest` instead (after the request modifier).
    func with(dataRequest: DataRequest) -> ImageLoadRequest {
        var copy = self
        copy.dataRequest = dataRequest
        return copy
    }
}
