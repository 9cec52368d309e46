import CMalloc
import Synchronization

extension ImageLoader {
    /// Settings of glibc's allocator that keep decode buffers mapped between
    /// decodes, and a way to give the memory back after a burst.
    ///
    /// By default glibc serves every allocation above 128 KiB (raised as such
    /// blocks are freed, up to 32 MiB) with its own `mmap`, and unmaps it on
    /// `free`; blocks above 32 MiB are always mapped afresh. A decode allocates buffers of a few MiB to a few tens of MiB
    /// (libjpeg's coefficient arrays of a progressive JPEG, pixel buffers), so
    /// each decode maps fresh pages and the kernel faults every one of them in
    /// and zeroes it. With a higher mmap threshold these buffers come from the
    /// heap, and with a higher trim threshold the heap keeps them between
    /// decodes: the next decode reuses pages that are already resident.
    ///
    /// The first ``ImageLoader`` created in the process applies its
    /// configuration's ``ImageLoader/Configuration/allocatorTuning`` (``default``
    /// unless changed); a configuration with `nil` there leaves the allocator
    /// untouched. The settings are process-wide, so they are applied once: later
    /// loaders, whatever their configuration, change nothing.
    ///
    /// ```swift
    /// var configuration = ImageLoader.Configuration()
    /// configuration.allocatorTuning = nil          // keep glibc's defaults
    /// let loader = ImageLoader(configuration: configuration)
    /// ```
    ///
    /// A thread keeps the arena it first allocated from, and only the main
    /// arena keeps large buffers between decodes (see ``maxArenas``). So tune
    /// before other threads allocate: create the first loader, or call
    /// ``apply()``, first thing in `main`. Threads that allocated before that
    /// keep their own arenas (measured: a 12 MP progressive JPEG decode on such
    /// a thread still faults about 5,900 pages each time).
    ///
    /// A server that has just finished a burst of large decodes can hand the
    /// memory the heap kept back to the system with ``releaseFreeMemory()``.
    ///
    /// - Important: The settings are glibc's `mallopt` parameters: a process
    ///   linked against another allocator (jemalloc, tcmalloc) ignores them.
    public struct AllocatorTuning: Sendable, Hashable {
        /// Allocations of at least this many bytes get their own `mmap`; smaller
        /// ones come from the heap and are reused. 256 MiB by default, so that
        /// the coefficient arrays of a large progressive JPEG (about 36 MB for
        /// the luma of an 18 MP one) and the inflate buffer of a large PNG stay
        /// on the heap. (A thread's arena other than the main one still maps
        /// blocks larger than its 64 MiB heap.)
        public var mmapThreshold: Int

        /// Free memory at the top of a heap beyond this many bytes is returned to
        /// the system at once. 128 MiB by default: one large decode's buffers
        /// stay resident for the next.
        public var trimThreshold: Int

        /// The most allocator arenas (each thread allocates from one), or `nil`
        /// to keep glibc's limit (8 per core). 1 by default.
        ///
        /// Why one: a thread other than the main one allocates from an arena
        /// made of heaps of at most 64 MiB, and glibc unmaps such a heap as soon
        /// as it is entirely free, whatever the thresholds; a 12 MP decode's
        /// buffers then come back as fresh pages on every decode (measured: about
        /// 5,900 page faults per progressive 12 MP decode on an extra arena,
        /// none on the main one, 10 % of the decode's CPU). The main arena grows
        /// without that limit and obeys ``trimThreshold``. Small allocations,
        /// most of them, go through glibc's per-thread cache and do not take
        /// the arena's lock.
        public var maxArenas: Int?

        /// Creates a tuning; every value defaults to the one ``default`` uses.
        public init(
            mmapThreshold: Int = 256 * 1024 * 1024,
            trimThreshold: Int = 128 * 1024 * 1024,
            maxArenas: Int? = 1
        ) {
            self.mmapThreshold = mmapThreshold
            self.trimThreshold = trimThreshold
            self.maxArenas = maxArenas
        }

        /// The tuning a loader applies unless configured otherwise.
        public static var `default`: ImageLoader.AllocatorTuning { ImageLoader.AllocatorTuning() }

        // MARK: Applying

        /// What has been decided for this process.
        private enum State: Sendable {
            /// No loader has been created and nothing was applied.
            case unsettled
            /// The first loader opted out: loaders leave the allocator alone.
            case declined
            /// This tuning is in effect.
            case applied(ImageLoader.AllocatorTuning)
        }

        private static let state = Mutex<State>(.unsettled)

        /// The tuning in effect in this process, or `nil` when none was applied.
        public static var current: ImageLoader.AllocatorTuning? {
            state.withLock { state in
                if case .applied(let tuning) = state { return tuning }
                return nil
            }
        }

        /// Applies this tuning now, unless a tuning is already in effect.
        ///
        /// Loaders call this for you; call it yourself to tune before the first
        /// loader exists, or after a loader opted out.
        ///
        /// - Returns: Whether this call applied it (`false`: another tuning, or
        ///   this one, was already in effect, and nothing changed).
        @discardableResult
        public func apply() -> Bool {
            Self.state.withLock { state in
                if case .applied = state { return false }
                setAllocatorParameters()
                state = .applied(self)
                return true
            }
        }

        /// The loaders' entry: the first call settles the process (applies
        /// `tuning`, or records the opt-out); later calls change nothing.
        static func settle(_ tuning: ImageLoader.AllocatorTuning?) {
            state.withLock { state in
                guard case .unsettled = state else { return }
                if let tuning {
                    tuning.setAllocatorParameters()
                    state = .applied(tuning)
                } else {
                    state = .declined
                }
            }
        }

        /// The `mallopt` calls (under the state lock, so two tunings never interleave).
        private func setAllocatorParameters() {
            // A value glibc refuses leaves its own setting in place.
            _ = awi_mallopt_mmap_threshold(Int32(clamping: max(0, mmapThreshold)))
            _ = awi_mallopt_trim_threshold(Int32(clamping: max(0, trimThreshold)))
            if let maxArenas {
                _ = awi_mallopt_arena_max(Int32(clamping: max(1, maxArenas)))
            }
        }

        // MARK: Releasing

        /// Returns the free memory every allocator arena holds to the system
        /// (glibc's `malloc_trim(0)`): the top of each heap, and the whole free
        /// pages inside it.
        ///
        /// The tuning keeps freed decode buffers resident so the next decode can
        /// reuse them; after a burst of large decodes that is memory a quiet
        /// server does not need. It walks every arena's free lists under their
        /// locks, and the next large decode faults its pages in again, so call it when a burst is over, not per request.
        ///
        /// - Returns: Whether any memory was returned.
        @discardableResult
        public static func releaseFreeMemory() -> Bool {
            awi_malloc_trim(0) != 0
        }
    }
}
