extension ImageLoader {
    /// How much CPU work — decodes, transforms, encodes, preview decodes —
    /// a loader runs at once, and how it keeps huge images from crowding
    /// out small ones. Set on ``Configuration/cpuLimits``.
    ///
    /// Heavy work (decodes of images declaring more than
    /// ``heavyPixelCount`` pixels) runs at most ``maxConcurrentHeavyWork``
    /// at once, on threads of their own at a lower OS priority
    /// (``heavyThreadNice``): a few huge images then take only the CPU other
    /// work leaves, instead of making small images wait behind seconds of
    /// decoding.
    ///
    /// ```swift
    /// var configuration = ImageLoader.Configuration()
    /// configuration.cpuLimits = ImageLoader.CPULimits(maxConcurrentWork: 2, heavyThreadNice: nil)
    /// ```
    public struct CPULimits: Sendable, Hashable {
        /// The most CPU jobs at once: the cores the process may use by
        /// default (the fewest of the active processors, the CPUs of its
        /// affinity mask and its cgroup CPU quota, rounded up).
        public var maxConcurrentWork: Int
        /// The most heavy jobs at once, 1 to ``maxConcurrentWork``: half of
        /// it by default, at least 1.
        public var maxConcurrentHeavyWork: Int
        /// The declared pixel count above which a decode is heavy work; 20
        /// megapixels by default (a 12 MP phone photo or a 4K frame is not
        /// heavy, a 49 MP scan is).
        public var heavyPixelCount: Int
        /// The nice value (0 to 19) of the threads heavy work runs on; 10
        /// by default (such a thread gets about a tenth of a core another
        /// thread also wants). `nil` runs heavy work on the cooperative pool,
        /// each job holding a normal permit too.
        public var heavyThreadNice: Int?

        /// Limits; every value has the default documented on its property.
        ///
        /// - Parameters:
        ///   - maxConcurrentWork: The most CPU jobs at once; `nil` for the cores the process may use.
        ///   - maxConcurrentHeavyWork: The most heavy jobs at once; `nil` for half of `maxConcurrentWork`.
        ///   - heavyPixelCount: The pixel count above which a decode is heavy.
        ///   - heavyThreadNice: The nice value of the heavy threads, or `nil` for none.
        public init(maxConcurrentWork: Int? = nil, maxConcurrentHeavyWork: Int? = nil, heavyPixelCount: Int = 20_000_000, heavyThreadNice: Int? = 10) {
            let work = max(1, maxConcurrentWork ?? AvailableCores.count)
            self.maxConcurrentWork = work
            self.maxConcurrentHeavyWork = min(work, max(1, maxConcurrentHeavyWork ?? work / 2))
            self.heavyPixelCount = heavyPixelCount
            self.heavyThreadNice = heavyThreadNice.map { min(19, max(0, $0)) }
        }
    }
}
