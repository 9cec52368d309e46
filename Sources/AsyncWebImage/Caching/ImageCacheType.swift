/// A cache tier: where an image was found, or which tiers to query or store to.
///
/// As SDWebImage's `SDImageCacheType`, one type serves both purposes: an
/// ``ImageResponse``'s `cacheType` is ``none`` (loaded from the network),
/// ``memory`` or ``disk``; a query or store names ``memory``, ``disk``,
/// ``all`` (both) or ``none`` (neither: skip the cache).
public enum ImageCacheType: Sendable, Hashable, CustomStringConvertible {
    /// No cache: the image came from the loader, or the cache is skipped.
    case none
    /// The in-memory cache of decoded images (``MemoryCache``).
    case memory
    /// The on-disk store of encoded data (``DiskStore`` or another ``DataCaching`` tier).
    case disk
    /// Memory and disk.
    case all

    /// Whether this names the memory tier (``memory`` or ``all``).
    public var includesMemory: Bool { self == .memory || self == .all }

    /// Whether this names the disk tier (``disk`` or ``all``).
    public var includesDisk: Bool { self == .disk || self == .all }

    public var description: String {
        switch self {
        case .none: "none"
        case .memory: "memory"
        case .disk: "disk"
        case .all: "all"
        }
    }
}
