/// Cache tiers: where a response came from, or which tiers a load queries
/// and stores to.
///
/// As SDWebImage's `SDImageCacheType`, one type serves both purposes, as an
/// option set: an ``ImageResponse``'s `cacheType` is ``none`` (loaded from
/// the network), ``memory`` or ``disk`` (the disk tier, or the shared tier
/// behind it); a query or store names any set of tiers — ``all``,
/// ``memory``, ``disk`` or ``none`` (`[]`: skip the cache).
///
/// ```swift
/// var context = ImageContext()
/// context.storeCacheType = .none      // load, store nowhere
/// context.queryCacheType = .memory    // look in memory only
/// ```
public struct ImageCacheType: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    /// Creates a set of tiers from its raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The in-memory cache of decoded images (``MemoryCache``).
    public static let memory = ImageCacheType(rawValue: 1 << 0)
    /// The encoded-data tiers: the disk (``DiskStore`` or another
    /// ``DataCaching``) and the tier a fleet shares behind it.
    public static let disk = ImageCacheType(rawValue: 1 << 1)
    /// Memory and disk.
    public static let all: ImageCacheType = [.memory, .disk]
    /// No tier: the image came from the network, or the cache is skipped.
    public static let none: ImageCacheType = []

    /// Whether this names the memory tier.
    public var includesMemory: Bool { contains(.memory) }
    /// Whether this names the disk tier.
    public var includesDisk: Bool { contains(.disk) }

    public var description: String {
        switch self {
        case .none: "none"
        case .memory: "memory"
        case .disk: "disk"
        default: "all"
        }
    }
}
