import Foundation

extension MemoryCache {
    /// Limits and switches of a ``MemoryCache``.
    ///
    /// The defaults are sized from the memory the process may use: the
    /// machine's physical memory, or the cgroup limit of the container it runs
    /// in when that is smaller (a server in a 2 GiB container on a 256 GiB
    /// host must not plan for 256 GiB).
    public struct Configuration: Sendable, Hashable {
        // MARK: Limits

        /// The most bytes of decoded pixels the LRU keeps (``Image/cost``).
        ///
        /// By default 20 % of ``availableMemory``, clamped to 32 MiB...2 GiB.
        public var costLimit: Int

        /// The most images the LRU keeps, whatever their cost.
        ///
        /// By default `costLimit / 4096`: as many 32×32 RGBA images as fit in
        /// the cost limit, which bounds the bookkeeping spent on tiny entries.
        public var countLimit: Int

        /// An image costing more than this fraction of ``costLimit`` is not
        /// stored: it would flush most of the cache for one entry. `0.1` by default.
        public var entryCostLimitFraction: Double

        // MARK: Expiry

        /// How long after it is stored an image is served; `nil` (the
        /// default) for as long as it stays in the cache. After that a lookup
        /// is a miss (in the LRU and in the weak-recovery table alike), as
        /// Nuke's `ttl` and Kingfisher's memory expiration: for images whose
        /// URL may start serving other bytes.
        public var entryLifetime: Duration?

        // MARK: Weak recovery

        /// Keep weak references to the pixels of images the LRU evicts, so
        /// that an image still held elsewhere is recovered by a lookup instead
        /// of being decoded again. `true` by default.
        public var isWeakRecoveryEnabled: Bool

        /// Creates a configuration; every value has the default documented on its property.
        ///
        /// - Parameters:
        ///   - costLimit: Bytes of pixels; `nil` for the default.
        ///   - countLimit: Number of images; `nil` for the default (`costLimit / 4096`).
        ///   - entryCostLimitFraction: Largest share of `costLimit` one image may take.
        ///   - isWeakRecoveryEnabled: Whether evicted images are recoverable while held elsewhere.
        ///   - entryLifetime: How long a stored image is served; `nil` for no limit.
        public init(
            costLimit: Int? = nil,
            countLimit: Int? = nil,
            entryCostLimitFraction: Double = 0.1,
            isWeakRecoveryEnabled: Bool = true,
            entryLifetime: Duration? = nil
        ) {
            let cost = max(0, costLimit ?? Self.defaultCostLimit)
            self.costLimit = cost
            self.countLimit = max(0, countLimit ?? max(1, cost / 4096))
            self.entryCostLimitFraction = entryCostLimitFraction
            self.isWeakRecoveryEnabled = isWeakRecoveryEnabled
            self.entryLifetime = entryLifetime
        }

        /// The largest ``Image/cost`` a single entry may have.
        public var entryCostLimit: Int {
            let fraction = min(max(entryCostLimitFraction, 0), 1)
            return Int(Double(costLimit) * fraction)
        }

        /// The default ``costLimit``: 20 % of ``availableMemory``, at least
        /// 32 MiB and at most 2 GiB.
        public static var defaultCostLimit: Int {
            let fifth = availableMemory / 5
            return Int(min(max(fifth, 32 << 20), 2 << 30))
        }

        /// Bytes of memory this process may use: the smaller of
        /// `ProcessInfo.physicalMemory` and the cgroup (v2 or v1) memory limit.
        ///
        /// Read once per process; the cgroup files live in a pseudo
        /// filesystem, so reading them does not wait on a disk.
        public static var availableMemory: UInt64 { measuredAvailableMemory }
    }
}

/// Measured once: limits do not change under a running process often enough
/// to pay a file read on every default configuration.
private let measuredAvailableMemory: UInt64 = {
    var limit = ProcessInfo.processInfo.physicalMemory
    for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let value = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)),
              value > 0 else { continue }
        limit = min(limit, value)
    }
    return limit
}()
