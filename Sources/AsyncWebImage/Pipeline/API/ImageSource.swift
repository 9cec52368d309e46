/// Where a load's image (or data) came from: the one answer to that
/// question, on ``ImageResponse/source`` and ``ImageDataResponse/source``.
///
/// ```swift
/// let response = try await loader.response(url)
/// switch response.source {
/// case .memory, .disk, .sharedTier: print("no request")
/// case .revalidated: print("the origin said 304")
/// case .network: print("downloaded")
/// case .stale(let error): print("the origin failed (\(error)); served what was stored")
/// }
/// ```
public enum ImageSource: Sendable, Hashable, CustomStringConvertible {
    /// The memory cache, without asking the origin.
    case memory
    /// The disk store, without asking the origin.
    case disk
    /// The fleet's shared tier (``ImageCache/sharedTier``, Redis), without
    /// asking the origin; the disk is filled from it.
    case sharedTier
    /// Downloaded from the origin for this load.
    case network
    /// A stored image the origin confirmed for this load: a `304 Not Modified`
    /// to the loader's conditional request.
    case revalidated
    /// A stored image served in place of an origin that failed with the
    /// error (RFC 9111 §4.2.4, `stale-if-error`).
    case stale(ImageError)

    /// Whether the origin was not asked at all (``memory``, ``disk``, ``sharedTier``).
    public var isCacheHit: Bool {
        switch self {
        case .memory, .disk, .sharedTier: true
        case .network, .revalidated, .stale: false
        }
    }

    public var description: String {
        switch self {
        case .memory: "memory"
        case .disk: "disk"
        case .sharedTier: "sharedTier"
        case .network: "network"
        case .revalidated: "revalidated"
        case .stale(let error): "stale(\(error.caseName))"
        }
    }
}
