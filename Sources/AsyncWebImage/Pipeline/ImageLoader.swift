public import Foundation
import Synchronization
import AWILocking

/// Loads images by URL: memory cache, disk cache, then the network, with
/// progressive previews, transforms and two levels of coalescing.
///
/// ```swift
/// let loader = ImageLoader()
/// for try await image in loader.images(url, options: .progressiveLoad) {
///     show(image)                              // previews, then the final image
/// }
/// let response = try await loader.image(url)  // just the final one
/// ```
///
/// Identical concurrent loads share one download (``DownloadCoalescer``)
/// and one decode and transform per distinct result. Cancelling the calling
/// task (or breaking out of the loop) cancels the load; work that other
/// callers still wait for goes on.
///
/// - Important: Every method may be called from any task or thread.
public final class ImageLoader: Sendable {
    /// What the loader was built from.
    public let configuration: Configuration

    /// A loader with the default configuration, on ``ImageCache/shared`` and
    /// ``CurlDataLoader/shared``. It lives as long as the process.
    public static let shared = ImageLoader()

    let downloads: DownloadCoalescer
    let tasks = ImageTaskCoalescer()
    let failedURLs: FailedURLSet
    /// Coalescers for per-request data loaders (``ImageContext/dataLoader``),
    /// one per loader object, so such requests still share downloads.
    private let otherDownloads = Lock<[ObjectIdentifier: (any DataLoading, DownloadCoalescer)]>([:])

    /// Whether the configuration's default context sets nothing (then a
    /// call's context needs no merging).
    let defaultContextIsEmpty: Bool
    /// The data loader's scheme allow-list (``DataLoading/allowedSchemes``),
    /// read once: the loader refuses other schemes before any work.
    let allowedSchemes: Set<String>
    /// Whether the scheme allow-list has `http` / `https`, for the cheap URL check.
    let httpAllowed: Bool
    let httpsAllowed: Bool
    /// The decode-options key suffix of a load with no decode size and no
    /// scale-down (only the orientation switch can add to it).
    let plainKeySuffix: String
    /// Whether the configuration has an options processor (read on every
    /// call; an optional existential is costlier to test than a Bool).
    let hasOptionsProcessor: Bool

    /// Creates a loader.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        AllocatorTuning.settle(configuration.allocatorTuning)
        defaultContextIsEmpty = configuration.defaultContext.isEmpty
        allowedSchemes = configuration.dataLoader.allowedSchemes
        httpAllowed = allowedSchemes.contains("http")
        httpsAllowed = allowedSchemes.contains("https")
        hasOptionsProcessor = configuration.optionsProcessor != nil
        plainKeySuffix = ImageDecodingOptions(applyOrientation: configuration.appliesOrientation).cacheKeySuffix
        downloads = DownloadCoalescer(loader: configuration.dataLoader)
        failedURLs = FailedURLSet(capacity: configuration.failedURLCapacity)
    }

    // MARK: Loading

    /// The images of `url`: previews while bytes arrive (with
    /// `.progressiveLoad`), then the final image; the sequence ends after it.
    ///
    /// Nothing happens until the sequence is iterated; each iteration is a
    /// load of its own (sharing work with identical loads).
    ///
    /// - Parameters:
    ///   - url: The image's URL (`http` or `https` unless configured otherwise).
    ///   - options: Switches for this load.
    ///   - context: Settings for this load, over the loader's defaults.
    /// - Returns: A sequence that throws ``ImageError`` on failure and
    ///   `CancellationError` when the iterating task is cancelled.
    public func images(_ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext()) -> ImageSequence {
        ImageSequence(events: events(url, options: options, context: context))
    }

    /// The events of a load of `url`: `.progress`, `.preview` (with
    /// `.progressiveLoad`), then `.finished`. A slow consumer sees the newest
    /// progress and preview, never a backlog, and never misses the final
    /// response.
    ///
    /// - Parameters:
    ///   - url: The image's URL.
    ///   - options: Switches for this load.
    ///   - context: Settings for this load, over the loader's defaults.
    public func events(_ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext()) -> ImageEventSequence {
        ImageEventSequence { [self] channel in
            await start(url, options: options, context: context, channel: channel, wantsPreviews: options.contains(.progressiveLoad))
        }
    }

    /// Loads `url` and returns the final image; no previews are decoded.
    ///
    /// With `.refreshCached` the result is the revalidated image: the
    /// cached one when the server says it has not changed, else the new one.
    ///
    /// - Throws: ``ImageError``, or `CancellationError` when the calling task is cancelled.
    public func image(_ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext()) async throws -> ImageResponse {
        try Task.checkCancellation()
        // The fast paths: a memory hit (one lookup), or joining the load
        // already making this result (one wait); no request, no channel.
        var memoryChecked = true
        switch try await fastPath(url, options: options, context: context) {
        case .hit(let response):
            return response
        case .inFlight(let key):
            if case .finished(let response) = try await tasks.awaitResult(key) {
                guard let response else { throw CancellationError() }
                return response
            }
            // The work ended in between: the shared work looks in memory again.
        case .none(let checked):
            memoryChecked = checked
        }
        let request = try makeRequest(url, options: options, context: context)
        let channel = ImageEventChannel()
        defer { channel.terminate() }
        await start(request, channel: channel, wantsPreviews: false, wantsProgress: false, memoryChecked: memoryChecked)
        // Without `.refreshCached` the first response is the only one: return
        // it without asking the channel for its end.
        let responses = request.options.contains(.refreshCached) ? 2 : 1
        var last: ImageResponse?
        var received = 0
        while received < responses, let event = try await channel.next() {
            if case .finished(let response) = event {
                last = response
                received += 1
            }
        }
        // A load that ends without a response was cancelled (the channel ends quietly then).
        guard let last else { throw CancellationError() }
        return last
    }

    // MARK: Failed URLs

    /// Whether `url` is on the failed-URL list for some request variant
    /// (refused without `.retryFailed`). The list is kept per request
    /// identity (URL plus credentials and other header fields), so a URL
    /// blocked for one set of credentials still loads with another.
    public func isBlocked(_ url: URL) -> Bool {
        failedURLs.containsAnyVariant(of: url.absoluteString)
    }

    /// Takes `url` (for every request variant) off the failed-URL list, or
    /// everything when `url` is `nil`.
    public func unblock(_ url: URL? = nil) {
        if let url { failedURLs.removeEveryVariant(of: url.absoluteString) } else { failedURLs.removeAll() }
    }

    // MARK: Diagnostics

    /// Distinct loads in flight (callers sharing one count once): a gauge
    /// for server metrics, and zero when the loader is idle.
    public var activeLoadCount: Int { tasks.count }

    // MARK: Internals

    /// The download coalescer for `dataLoader`, or the loader's own.
    func downloadCoalescer(for dataLoader: (any DataLoading)?) -> DownloadCoalescer {
        guard let dataLoader else { return downloads }
        let object = dataLoader as AnyObject
        // Value-type loaders have no stable identity: give them a coalescer of their own.
        guard type(of: dataLoader) is AnyClass else { return DownloadCoalescer(loader: dataLoader) }
        let id = ObjectIdentifier(object)
        return otherDownloads.withLock { table in
            if let (_, coalescer) = table[id] { return coalescer }
            let coalescer = DownloadCoalescer(loader: dataLoader)
            table[id] = (dataLoader, coalescer)
            return coalescer
        }
    }
}
