import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension DiskStore {
    /// What a read on the caller's thread found.
    enum ResidentRead {
        /// The whole entry, from the page cache.
        case hit(Data)
        /// No entry (the kernel knew without I/O).
        case miss
        /// Not decidable without blocking or without the actor (on disk
        /// only, damaged, access time due): read on the I/O thread.
        case unknown
    }

    /// Counters of ``residentData(at:)``, added into ``statistics``.
    final class ResidentCounts: Sendable {
        let hits = Atomic<Int>(0)
        let misses = Atomic<Int>(0)
    }

    /// Reads the entry at `path` on the calling thread if, and only if, the
    /// kernel can serve it without blocking: the path resolved from the
    /// lookup cache (`openat2` with `RESOLVE_CACHED`), the bytes from the
    /// page cache (`preadv2` with `RWF_NOWAIT`); `fstat` and `close` of an
    /// open read-only file do no I/O. So it may run on the cooperative pool
    /// (the design keeps *blocking* I/O off it), and a hot entry costs a
    /// disk hit no thread hand-off: two of them (to the I/O thread and back,
    /// each a wake-up of an idle CPU) cost 25–45 µs here, more than reading
    /// and checking a 60 KB entry.
    ///
    /// It never changes the store: anything that needs a write (removing a
    /// damaged entry, renewing an access time) or a decision it cannot make
    /// without I/O returns `.unknown`, and the actor does it as before.
    /// Files are only ever replaced by rename, so what it reads is one whole
    /// entry, old or new, exactly as on the I/O thread.
    nonisolated func residentData(at path: String) -> ResidentRead {
        guard FileIO.supportsCachedOpen else { return .unknown }
        let fd: Int32
        switch FileIO.openIfCached(path) {
        case .opened(let opened): fd = opened
        case .absent:
            residentCounts.misses.add(1, ordering: .relaxed)
            return .miss
        case .wouldBlock: return .unknown
        }
        defer { close(fd) }
        var info = Glibc.stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .unknown }
        let size = Int(info.st_size)
        guard size >= DiskEntryTrailer.size else { return .unknown }
        guard accessTimeRenewal(for: info) == nil,
              let (data, _) = Self.entry(size: size, read: { FileIO.readIfCached(fd, into: $0, count: size, offset: 0) }) else {
            return .unknown
        }
        residentCounts.hits.add(1, ordering: .relaxed)
        return .hit(data)
    }
}
