public import Foundation
import Synchronization
import AWILocking
#if canImport(Glibc)
import Glibc
#endif

/// A directory of encoded image data: hashed file names, atomic writes,
/// expiry by age, trimming by size, and extended data per entry.
///
/// **Files.** Each entry is one file named by the SHA-256 of its key in hex
/// (plus the URL's path extension when short), so no key — `../../etc` or
/// anything else — can name a file outside the directory. The directory is
/// created with mode 0700 and files with 0600. A file holds the data followed
/// by a 32-byte trailer (see `DiskEntryTrailer`: length and an xxHash
/// checksum of the data, checked on every read) that lets a read tell a whole
/// entry from a truncated, overwritten or bit-rotten one; a damaged entry is
/// removed and reported as a miss. Entries written by versions without the
/// checksum count as damaged.
///
/// **Atomic writes.** Data is written to a temporary file in the same
/// directory and renamed over the entry, so a reader in this process or in
/// another process sharing the directory sees the old entry or the new one,
/// never a mix. There is no `fsync`: after a power loss a renamed file may be
/// empty or short on some file systems, which the trailer check then treats
/// as damaged — a cache may lose an entry, but never serves a broken one.
///
/// **Threads.** The actor runs on its own serial executor backed by one
/// dedicated thread (`DiskIOExecutor`), so its blocking file calls never
/// occupy the cooperative thread pool. Callers simply `await` it.
///
/// **Cleanup.** A pass removes entries older than ``Configuration/maxAge``,
/// then, if the rest exceed ``Configuration/maxSize``, the oldest until at
/// most half of it remain (SDWebImage's rule). Passes run in the background at
/// creation, every ``Configuration/cleanupInterval``, as soon as writes may
/// have taken the store over its size, and on demand with ``cleanup()``.
///
/// ```swift
/// let store = DiskStore(name: "thumbnails")   // ~/.cache/AsyncWebImage/thumbnails
/// try await store.setData(jpeg, forKey: url.absoluteString, extendedData: etag)
/// let data = try await store.data(forKey: url.absoluteString)
/// ```
public actor DiskStore: DataCaching {
    /// The directory holding the entries.
    public nonisolated let directory: URL
    /// The limits and policies of this store.
    public nonisolated let configuration: Configuration

    nonisolated let directoryPath: String
    nonisolated let executor: DiskIOExecutor
    /// The store's notion of "now" when injected (tests); `nil` for the real
    /// clock, with file times left to the kernel.
    nonisolated let injectedNow: (@Sendable () -> Date)?
    private nonisolated let maintenance = Lock<Task<Void, Never>?>(nil)

    var counters = Statistics()
    /// Hits and misses of reads served on the caller's thread.
    nonisolated let residentCounts = ResidentCounts()
    var sizeAtLastScan = 0
    var bytesWrittenSinceScan = 0
    var isCleanupScheduled = false
    var random = SystemRandomNumberGenerator()

    static let attributeName = "user.asyncwebimage.extended"
    static let sidecarSuffix = ".ext-data"
    static let temporaryPrefix = ".tmp-"
    static let sidecarMagic: [UInt8] = Array("AWIX".utf8)
    /// Temporary files and orphaned sidecars younger than this may belong to
    /// a write in progress (maybe in another process) and are left alone.
    static let strayFileAge: Double = 60 * 60
    /// Access times are renewed on read only when older than this (seconds).
    static let accessTimeResolution: Double = 60

    /// The executor all of this actor's work runs on: a dedicated I/O thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Ends the store's I/O thread once the work queued on it is done (a
    /// write in flight finishes and renames its file); returns when the
    /// thread has ended. The store still answers afterwards, each burst of
    /// calls on a short-lived thread of its own.
    public nonisolated func shutdown() async {
        await executor.shutDown()
    }

    // MARK: Creating a store

    /// Creates a store in the default cache directory,
    /// `$XDG_CACHE_HOME/AsyncWebImage/<name>` (or `~/.cache/AsyncWebImage/<name>`).
    ///
    /// Nothing is touched on disk until the first write (which creates the
    /// directory) or the first cleanup pass.
    /// - Parameters:
    ///   - name: The store's folder name; `/` and leading dots are replaced.
    ///   - configuration: Limits and policies.
    public init(name: String = "default", configuration: Configuration = .init()) {
        self.init(directory: Self.defaultDirectory(name: name), configuration: configuration, now: nil, sleep: nil)
    }

    /// Creates a store in `directory` (created with mode 0700 on first write if missing).
    ///
    /// - Parameters:
    ///   - directory: A file URL. Files the store did not name are left alone.
    ///   - configuration: Limits and policies.
    public init(directory: URL, configuration: Configuration = .init()) {
        self.init(directory: directory, configuration: configuration, now: nil, sleep: nil)
    }

    /// Creates a store with an injected clock and sleep, for tests.
    ///
    /// - Parameters:
    ///   - now: The current date; when given, the store also stamps the files
    ///     it writes and reads with it, so expiry can be tested without waiting.
    ///   - sleep: Waits between periodic cleanups.
    init(
        directory: URL,
        configuration: Configuration,
        now: (@Sendable () -> Date)?,
        sleep: (@Sendable (Duration) async throws -> Void)?
    ) {
        self.directory = directory
        self.configuration = configuration
        var path = directory.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        directoryPath = path
        executor = DiskIOExecutor(name: "awi-disk-io")
        injectedNow = now

        let interval = configuration.cleanupInterval
        let atStart = configuration.cleansUpAtStart
        guard atStart || interval != nil else { return }
        let sleep = sleep ?? { try await Task.sleep(for: $0) }
        // Weak: the maintenance loop must not keep the store (and its thread) alive.
        let task = Task(priority: .background) { [weak self] in
            if atStart { await self?.backgroundCleanup() }
            guard let interval else { return }
            while !Task.isCancelled {
                do { try await sleep(interval) } catch { return }
                guard let store = self else { return }
                await store.backgroundCleanup()
            }
        }
        maintenance.withLock { $0 = task }
    }

    deinit {
        maintenance.withLock { $0?.cancel() }
    }

    /// The directory a store named `name` uses by default:
    /// `$XDG_CACHE_HOME/AsyncWebImage/<name>` when `XDG_CACHE_HOME` is an
    /// absolute path, else `$HOME/.cache/AsyncWebImage/<name>`, else
    /// `/tmp/AsyncWebImage-<uid>/<name>`.
    ///
    /// - Parameter name: The folder name; `/` and leading dots are replaced by `_`.
    public static func defaultDirectory(name: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base: String
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            base = cache + "/AsyncWebImage"
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.cache/AsyncWebImage"
        } else {
            base = "/tmp/AsyncWebImage-\(getuid())"
        }
        var safe = name.replacingOccurrences(of: "/", with: "_")
        while safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
        if safe.isEmpty { safe = "default" }
        return URL(fileURLWithPath: base).appendingPathComponent(safe, isDirectory: true)
    }

    // MARK: Names

    /// The path of the file that holds (or would hold) the entry for `key`.
    ///
    /// - Complexity: O(length of the key) (one SHA-256).
    public nonisolated func path(forKey key: String) -> String {
        directoryPath + "/" + fileName(forKey: key)
    }

    nonisolated func fileName(forKey key: String) -> String {
        let digest = SHA256.hexDigest(key)
        guard configuration.usesPathExtension, let pathExtension = Self.pathExtension(of: key) else { return digest }
        return digest + "." + pathExtension
    }

    /// The lowercased extension of the last path component of URL `key`,
    /// when it is 1 to 8 ASCII letters or digits (so it can never carry a `/`
    /// or a `.` into a file name).
    static func pathExtension(of key: String) -> String? {
        var path = Substring(key)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        if let scheme = path.range(of: "://") {
            let afterAuthority = path[scheme.upperBound...]
            guard let slash = afterAuthority.firstIndex(of: "/") else { return nil }
            path = afterAuthority[slash...]
        }
        if let slash = path.lastIndex(of: "/") { path = path[path.index(after: slash)...] }
        guard let dot = path.lastIndex(of: ".") else { return nil }
        let candidate = path[path.index(after: dot)...]
        guard (1...8).contains(candidate.count),
              candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        return candidate.lowercased()
    }

    // MARK: Removing

    /// Removes the entry under `key` and its extended data, if any.
    ///
    /// - Throws: ``ImageError/diskIO(path:errno:message:)`` when the entry
    ///   exists but cannot be removed (read-only directory).
    /// - Complexity: O(1): two `unlink`s.
    public func removeData(forKey key: String) throws {
        let path = path(forKey: key)
        try FileIO.unlinkIfPresent(path)
        try FileIO.unlinkIfPresent(path + Self.sidecarSuffix)
    }

    /// Removes every entry (and every file the store named) from the
    /// directory; the directory itself stays, since another process may use it.
    ///
    /// - Throws: ``ImageError/diskIO(path:errno:message:)`` for the first file
    ///   that could not be removed (the others are removed all the same).
    /// - Complexity: O(n).
    public func removeAll() throws {
        guard let names = try FileIO.directoryEntries(directoryPath) else { return }
        var firstError: (any Error)?
        for name in names where DiskStoreDirectoryScan.kind(of: name) != nil {
            do { try FileIO.unlinkIfPresent(directoryPath + "/" + name) } catch { firstError = firstError ?? error }
        }
        sizeAtLastScan = 0
        bytesWrittenSinceScan = 0
        if let firstError { throw firstError }
    }

    // MARK: Size and statistics

    /// Bytes of all entries: file lengths (data plus trailer) and sidecar files.
    ///
    /// - Throws: ``ImageError/diskIO(path:errno:message:)`` when the directory cannot be listed.
    /// - Complexity: O(n): lists the directory.
    public var totalSize: Int {
        get throws {
            let scan = try scan()
            return scan.entries.reduce(0) { $0 + $1.size + (scan.sidecars[$1.name]?.size ?? 0) }
        }
    }

    /// Number of entries.
    ///
    /// - Throws: ``ImageError/diskIO(path:errno:message:)`` when the directory cannot be listed.
    /// - Complexity: O(n): lists the directory.
    public var count: Int {
        get throws { try scan().entries.count }
    }

    /// Counters since the store was created.
    public var statistics: Statistics {
        var statistics = counters
        statistics.residentHits = residentCounts.hits.load(ordering: .relaxed)
        statistics.hits += statistics.residentHits
        statistics.misses += residentCounts.misses.load(ordering: .relaxed)
        return statistics
    }

    /// Lists the directory for a cleanup pass or a size count.
    func scan() throws -> DiskStoreDirectoryScan {
        try DiskStoreDirectoryScan(directoryPath: directoryPath, byAccessDate: configuration.expirationDate == .accessDate)
    }

    // MARK: Time

    nonisolated func nowSeconds() -> Double {
        (injectedNow?() ?? Date()).timeIntervalSince1970
    }

    static func seconds(_ time: timespec) -> Double {
        Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
