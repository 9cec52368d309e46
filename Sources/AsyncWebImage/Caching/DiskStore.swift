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
/// by a 24-byte trailer (see `DiskEntryTrailer`) that lets a read tell a whole
/// entry from a truncated or overwritten one; a damaged entry is removed and
/// reported as a miss.
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

    private nonisolated let directoryPath: String
    private nonisolated let executor: DiskIOExecutor
    /// The store's notion of "now" when injected (tests); `nil` for the real
    /// clock, with file times left to the kernel.
    private nonisolated let injectedNow: (@Sendable () -> Date)?
    private nonisolated let maintenance = Lock<Task<Void, Never>?>(nil)

    private var counters = Statistics()
    /// Hits and misses of reads served on the caller's thread.
    nonisolated let residentCounts = ResidentCounts()
    private var sizeAtLastScan = 0
    private var bytesWrittenSinceScan = 0
    private var isCleanupScheduled = false
    private var random = SystemRandomNumberGenerator()

    static let attributeName = "user.asyncwebimage.extended"
    static let sidecarSuffix = ".ext-data"
    static let temporaryPrefix = ".tmp-"
    private static let sidecarMagic: [UInt8] = Array("AWIX".utf8)
    /// Temporary files and orphaned sidecars younger than this may belong to
    /// a write in progress (maybe in another process) and are left alone.
    private static let strayFileAge: Double = 60 * 60
    /// Access times are renewed on read only when older than this (seconds).
    static let accessTimeResolution: Double = 60

    /// The executor all of this actor's work runs on: a dedicated I/O thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
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

    // MARK: Reading

    /// The data stored under `key`; `nil` when absent, or when the entry is
    /// damaged (it is then removed and counted in ``Statistics/damagedEntries``).
    ///
    /// With ``Configuration/ExpirationDate/accessDate`` the entry's access time is set to now.
    /// - Throws: ``ImageError/diskIO(path:errno:message:)`` when the file exists
    ///   but cannot be read (permissions, I/O error). A missing directory is a miss.
    /// - Complexity: O(size of the entry): one open, one `fstat`, one read.
    ///
    /// An entry the kernel holds in its page cache is read on the calling
    /// thread with non-blocking calls (see `residentData(at:)`): no hop to
    /// the I/O thread and back, which on a small image costs more than the
    /// read itself. Everything else — an entry on disk only, a damaged one,
    /// one whose access time is due — goes to the I/O thread as before.
    public nonisolated func data(forKey key: String) async throws -> Data? {
        let path = path(forKey: key)
        switch residentData(at: path) {
        case .hit(let data): return data
        case .miss: return nil
        case .unknown: return try await isolatedData(at: path)
        }
    }

    private func isolatedData(at path: String) throws -> Data? {
        try readEntry(path, withExtendedData: false)?.data
    }

    /// The data and extended data stored under `key`, read with one open.
    ///
    /// - Throws: as ``data(forKey:)``.
    /// - Complexity: as ``data(forKey:)``, plus one `fgetxattr` (and a sidecar read where used).
    public func dataWithExtendedData(forKey key: String) throws -> (data: Data, extendedData: Data?)? {
        try readEntry(path(forKey: key), withExtendedData: true)
    }

    /// The extended data of the entry under `key`; `nil` when there is no
    /// entry, or it has none.
    ///
    /// - Throws: as ``data(forKey:)``.
    /// - Complexity: O(size of the extended data).
    public func extendedData(forKey key: String) throws -> Data? {
        let path = path(forKey: key)
        guard let fd = try FileIO.openIfPresent(path, O_RDONLY) else { return nil }
        defer { close(fd) }
        guard let trailer = try trailer(of: fd, path) else {
            removeDamaged(path, fd)
            return nil
        }
        return try readExtendedData(fd, path, generation: trailer.generation)
    }

    /// Whether an entry file exists under `key` (it is not read or validated).
    ///
    /// - Complexity: O(1): one `lstat`.
    public func contains(_ key: String) -> Bool {
        (try? FileIO.statIfPresent(path(forKey: key))) != nil
    }

    private func readEntry(_ path: String, withExtendedData: Bool) throws -> (data: Data, extendedData: Data?)? {
        guard let fd = try FileIO.openIfPresent(path, O_RDONLY) else {
            counters.misses += 1
            return nil
        }
        defer { close(fd) }
        let info = try FileIO.stat(fd, path)
        let size = Int(info.st_size)
        guard info.st_mode & S_IFMT == S_IFREG, size >= DiskEntryTrailer.size else {
            removeDamaged(path, fd)
            return nil
        }
        guard let (data, trailer) = try Self.entry(size: size, read: { try FileIO.read(fd, path, into: $0, count: size, offset: 0) == size }) else {
            removeDamaged(path, fd)
            return nil
        }
        // Best effort: a read-only file system still serves the data.
        if let now = accessTimeRenewal(for: info) { try? FileIO.setTimes(fd, path, access: now, modification: nil) }
        let extendedData = withExtendedData ? try readExtendedData(fd, path, generation: trailer.generation) : nil
        counters.hits += 1
        return (data, extendedData)
    }

    /// An entry file of `size` bytes, filled by `read` (which says whether
    /// every byte came), as its data (sharing the buffer) and its trailer;
    /// `nil` when short or damaged. Both read paths use it.
    static func entry(size: Int, read: (UnsafeMutableRawPointer) throws -> Bool) rethrows -> (data: Data, trailer: DiskEntryTrailer)? {
        // Uninitialised, not zero-filled: every byte is read from the file before use.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        let length = size - DiskEntryTrailer.size
        let complete: Bool
        do {
            complete = try read(buffer)
        } catch {
            buffer.deallocate()
            throw error
        }
        guard complete,
              let trailer = DiskEntryTrailer(UnsafeRawBufferPointer(start: buffer + length, count: DiskEntryTrailer.size)),
              trailer.length == UInt64(length) else {
            buffer.deallocate()
            return nil
        }
        return (Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in pointer.deallocate() }), trailer)
    }

    /// The time to stamp as a read entry's access time, or `nil` when none
    /// is due: only with access-date expiry, and to the minute, so a hot
    /// entry read thousands of times a second needs no `futimens` per read.
    nonisolated func accessTimeRenewal(for info: Glibc.stat) -> Double? {
        guard configuration.expirationDate == .accessDate else { return nil }
        let now = nowSeconds()
        return now - max(Self.seconds(info.st_atim), Self.seconds(info.st_mtim)) >= Self.accessTimeResolution ? now : nil
    }

    /// The trailer of an open entry file, or `nil` when it has none.
    private func trailer(of fd: Int32, _ path: String) throws -> DiskEntryTrailer? {
        let size = Int(try FileIO.stat(fd, path).st_size)
        guard size >= DiskEntryTrailer.size else { return nil }
        var bytes = [UInt8](repeating: 0, count: DiskEntryTrailer.size)
        let read = try bytes.withUnsafeMutableBytes {
            try FileIO.read(fd, path, into: $0.baseAddress!, count: DiskEntryTrailer.size, offset: size - DiskEntryTrailer.size)
        }
        guard read == DiskEntryTrailer.size,
              let trailer = bytes.withUnsafeBytes({ DiskEntryTrailer($0) }),
              trailer.length == UInt64(size - DiskEntryTrailer.size) else { return nil }
        return trailer
    }

    private func readExtendedData(_ fd: Int32, _ path: String, generation: UInt64) throws -> Data? {
        if configuration.extendedDataStorage == .automatic,
           case .value(let data) = try FileIO.attribute(fd, path, name: Self.attributeName) {
            return data
        }
        // Also in automatic mode: the attribute may have been refused for
        // this entry only (too large), or by the file system of another writer.
        return try readSidecar(path + Self.sidecarSuffix, generation: generation)
    }

    private func readSidecar(_ path: String, generation: UInt64) throws -> Data? {
        guard let fd = try FileIO.openIfPresent(path, O_RDONLY) else { return nil }
        defer { close(fd) }
        let size = Int(try FileIO.stat(fd, path).st_size)
        let header = Self.sidecarMagic.count + 8
        guard size >= header, size <= header + (16 << 20) else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        let read = try bytes.withUnsafeMutableBytes { try FileIO.read(fd, path, into: $0.baseAddress!, count: size, offset: 0) }
        guard read == size, Array(bytes[0..<4]) == Self.sidecarMagic,
              bytes.withUnsafeBytes({ DiskEntryTrailer.readUInt64($0, at: 4) }) == generation else {
            return nil // left by an older write of this key; not this entry's
        }
        return Data(bytes[header...])
    }

    /// Counts a miss and removes the damaged entry at `path`, but only if
    /// the name still refers to the file that was read: another process may
    /// have renamed a good entry into place meanwhile.
    private func removeDamaged(_ path: String, _ fd: Int32) {
        counters.damagedEntries += 1
        counters.misses += 1
        guard let opened = try? FileIO.stat(fd, path),
              let current = try? FileIO.statIfPresent(path),
              opened.st_ino == current.st_ino, opened.st_dev == current.st_dev else { return }
        _ = try? FileIO.unlinkIfPresent(path)
        _ = try? FileIO.unlinkIfPresent(path + Self.sidecarSuffix)
    }

    // MARK: Writing

    /// Stores `data` under `key`, atomically replacing any older entry (and
    /// its extended data).
    ///
    /// The directory is created (again) when missing.
    /// - Parameters:
    ///   - data: The encoded image.
    ///   - key: The cache key.
    ///   - extendedData: Metadata to keep with the entry; `nil` for none.
    /// - Throws: ``ImageError/diskIO(path:errno:message:)`` when the directory
    ///   is read-only, the device is full, and so on. The older entry is then intact.
    /// - Complexity: O(size of the data): one file written and renamed.
    public func setData(_ data: Data, forKey key: String, extendedData: Data?) throws {
        let name = fileName(forKey: key)
        do {
            let written = try write(data, name: name, extendedData: extendedData)
            counters.writes += 1
            bytesWrittenSinceScan += written
        } catch {
            counters.failedWrites += 1
            throw error
        }
        scheduleCleanupIfOverSize()
    }

    /// Replaces the extended data of the entry under `key`, leaving its data as it is.
    ///
    /// - Parameters:
    ///   - extendedData: The new metadata; `nil` removes it.
    ///   - key: The cache key.
    /// - Returns: `false` when there is no (valid) entry under `key`.
    /// - Throws: ``ImageError/diskIO(path:errno:message:)``.
    @discardableResult
    public func setExtendedData(_ extendedData: Data?, forKey key: String) throws -> Bool {
        let path = path(forKey: key)
        guard let fd = try FileIO.openIfPresent(path, O_RDONLY) else { return false }
        defer { close(fd) }
        guard let trailer = try trailer(of: fd, path) else { return false }
        guard let extendedData else {
            try FileIO.removeAttribute(fd, path, name: Self.attributeName)
            try FileIO.unlinkIfPresent(path + Self.sidecarSuffix)
            return true
        }
        if configuration.extendedDataStorage == .automatic,
           try FileIO.setAttribute(fd, path, name: Self.attributeName, value: extendedData) {
            try FileIO.unlinkIfPresent(path + Self.sidecarSuffix)
        } else {
            try writeSidecar(extendedData, generation: trailer.generation, path: path + Self.sidecarSuffix)
        }
        return true
    }

    /// Writes an entry file through a temporary file; returns the bytes written.
    private func write(_ data: Data, name: String, extendedData: Data?) throws -> Int {
        let path = directoryPath + "/" + name
        let generation = random.next()
        let temporary = directoryPath + "/" + Self.temporaryPrefix + String(generation, radix: 16)
        let fd = try createTemporaryFile(temporary)
        var useSidecar = extendedData != nil && configuration.extendedDataStorage == .sidecarFile
        do {
            try data.withUnsafeBytes { try FileIO.write(fd, temporary, $0) }
            let trailer = DiskEntryTrailer(generation: generation, length: UInt64(data.count)).bytes
            try trailer.withUnsafeBytes { try FileIO.write(fd, temporary, $0) }
            if let extendedData, !useSidecar {
                useSidecar = try !FileIO.setAttribute(fd, temporary, name: Self.attributeName, value: extendedData)
            }
            if injectedNow != nil {
                let now = nowSeconds()
                try FileIO.setTimes(fd, temporary, access: now, modification: now)
            }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        try publish(fd, temporary: temporary, at: path)
        // After the rename, so a failed write never strips an older entry of
        // its metadata; a reader in between sees the new data without
        // extended data, never another entry's.
        var written = data.count + DiskEntryTrailer.size
        if useSidecar, let extendedData {
            try writeSidecar(extendedData, generation: generation, path: path + Self.sidecarSuffix)
            written += extendedData.count + Self.sidecarMagic.count + 8
        } else {
            try FileIO.unlinkIfPresent(path + Self.sidecarSuffix)
        }
        return written
    }

    private func writeSidecar(_ extendedData: Data, generation: UInt64, path: String) throws {
        let temporary = directoryPath + "/" + Self.temporaryPrefix + String(random.next(), radix: 16)
        let fd = try createTemporaryFile(temporary)
        var header = Self.sidecarMagic
        for shift in stride(from: 0, to: 64, by: 8) { header.append(UInt8(truncatingIfNeeded: generation >> UInt64(shift))) }
        do {
            try header.withUnsafeBytes { try FileIO.write(fd, temporary, $0) }
            try extendedData.withUnsafeBytes { try FileIO.write(fd, temporary, $0) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        try publish(fd, temporary: temporary, at: path)
    }

    /// Closes a fully written temporary file and renames it over `path`:
    /// the atomic step of every write. On failure the temporary file is
    /// removed and `path` keeps what it had.
    private func publish(_ fd: Int32, temporary: String, at path: String) throws {
        // close(2) can report a deferred write error (NFS, quota); never retry it.
        if close(fd) != 0 && errno != EINTR {
            let error = FileIO.error(temporary)
            unlink(temporary)
            throw error
        }
        if rename(temporary, path) != 0 {
            let error = FileIO.error(path)
            unlink(temporary)
            throw error
        }
    }

    /// Creates a new 0600 file, (re)creating the directory if it is missing.
    private func createTemporaryFile(_ path: String) throws -> Int32 {
        var createdDirectory = false
        while true {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                fchmod(fd, 0o600) // whatever the umask
                return fd
            }
            if errno == EINTR { continue }
            if errno == ENOENT && !createdDirectory {
                try FileIO.createDirectory(directoryPath)
                createdDirectory = true
                continue
            }
            throw FileIO.error(path)
        }
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
        for name in names where Self.kind(of: name) != nil {
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

    // MARK: Cleanup

    /// Runs a cleanup pass now: removes expired entries, then, while over
    /// ``Configuration/maxSize``, the oldest entries until under half of it;
    /// also leftover temporary files older than an hour (writes a crash
    /// interrupted) and sidecars whose entry is gone.
    ///
    /// - Returns: What was removed and what is left.
    /// - Throws: ``ImageError/diskIO(path:errno:message:)`` when the directory
    ///   cannot be listed. Files that cannot be removed are skipped.
    /// - Complexity: O(n log n) for n entries (one `lstat` each, a sort when trimming).
    @discardableResult
    public func cleanup() throws -> CleanupResult {
        counters.cleanups += 1
        let scan: Scan
        do { scan = try self.scan() } catch {
            counters.failedCleanups += 1
            throw error
        }
        var result = CleanupResult()
        let now = nowSeconds()
        let cutoff = configuration.maxAge.map { now - Self.seconds($0) }
        var kept: [ScannedEntry] = []
        kept.reserveCapacity(scan.entries.count)
        for var entry in scan.entries {
            entry.size += scan.sidecars[entry.name]?.size ?? 0
            if let cutoff, entry.date < cutoff, removeEntryFiles(entry.name) {
                result.expiredCount += 1
                result.removedBytes += entry.size
            } else {
                kept.append(entry)
            }
        }
        var size = kept.reduce(0) { $0 + $1.size }
        if let maxSize = configuration.maxSize, size > maxSize {
            kept.sort { ($0.date, $0.name) < ($1.date, $1.name) }
            var survivors: [ScannedEntry] = []
            for entry in kept {
                if size > maxSize / 2, removeEntryFiles(entry.name) {
                    size -= entry.size
                    result.trimmedCount += 1
                    result.removedBytes += entry.size
                } else {
                    survivors.append(entry)
                }
            }
            kept = survivors
        }
        let entryNames = Set(scan.entries.map(\.name))
        let strayCutoff = Date().timeIntervalSince1970 - Self.strayFileAge
        for (name, sidecar) in scan.sidecars where !entryNames.contains(name) && sidecar.date < strayCutoff {
            if (try? FileIO.unlinkIfPresent(directoryPath + "/" + name + Self.sidecarSuffix)) == true {
                result.strayFilesRemoved += 1
            }
        }
        for temporary in scan.temporaries where temporary.date < strayCutoff {
            if (try? FileIO.unlinkIfPresent(directoryPath + "/" + temporary.name)) == true {
                result.strayFilesRemoved += 1
            }
        }
        result.remainingCount = kept.count
        result.remainingSize = size
        counters.expiredEntries += result.expiredCount
        counters.trimmedEntries += result.trimmedCount
        sizeAtLastScan = size
        bytesWrittenSinceScan = 0
        return result
    }

    private func backgroundCleanup() {
        isCleanupScheduled = false
        _ = try? cleanup()
    }

    /// Starts a background pass when the bytes written since the last scan
    /// may have taken the store over its size limit.
    private func scheduleCleanupIfOverSize() {
        guard let maxSize = configuration.maxSize, !isCleanupScheduled,
              sizeAtLastScan + bytesWrittenSinceScan > maxSize else { return }
        isCleanupScheduled = true
        Task(priority: .background) { [weak self] in await self?.backgroundCleanup() }
    }

    /// Removes an entry file and its sidecar; `false` when the entry file could not be removed.
    private func removeEntryFiles(_ name: String) -> Bool {
        guard (try? FileIO.unlinkIfPresent(directoryPath + "/" + name)) != nil else { return false }
        _ = try? FileIO.unlinkIfPresent(directoryPath + "/" + name + Self.sidecarSuffix)
        return true
    }

    // MARK: Scanning

    private struct ScannedEntry {
        var name: String
        var size: Int
        /// Seconds since 1970 by the configured expiration date.
        var date: Double
    }

    private struct Scan {
        var entries: [ScannedEntry] = []
        /// Sidecars by the name of their entry file; `date` is the modification date.
        var sidecars: [String: ScannedEntry] = [:]
        var temporaries: [ScannedEntry] = []
    }

    /// What a file in the directory is, by its name; `nil` for files the store did not name.
    enum FileKind: Equatable {
        case entry
        /// A sidecar of the entry file named by the associated value.
        case sidecar(String)
        case temporary
    }

    static func kind(of name: String) -> FileKind? {
        if name.hasPrefix(temporaryPrefix) { return .temporary }
        let utf8 = name.utf8
        guard utf8.count >= 64,
              utf8.prefix(64).allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        if name.hasSuffix(sidecarSuffix) { return .sidecar(String(name.dropLast(sidecarSuffix.count))) }
        return .entry
    }

    private func scan() throws -> Scan {
        var scan = Scan()
        guard let names = try FileIO.directoryEntries(directoryPath) else { return scan }
        let byAccess = configuration.expirationDate == .accessDate
        for name in names {
            guard let kind = Self.kind(of: name),
                  let info = try? FileIO.statIfPresent(directoryPath + "/" + name),
                  info.st_mode & S_IFMT == S_IFREG else { continue }
            let modified = Self.seconds(info.st_mtim)
            switch kind {
            case .entry:
                let date = byAccess ? max(Self.seconds(info.st_atim), modified) : modified
                scan.entries.append(ScannedEntry(name: name, size: Int(info.st_size), date: date))
            case .sidecar(let entryName):
                scan.sidecars[entryName] = ScannedEntry(name: name, size: Int(info.st_size), date: modified)
            case .temporary:
                scan.temporaries.append(ScannedEntry(name: name, size: Int(info.st_size), date: modified))
            }
        }
        return scan
    }

    // MARK: Time

    nonisolated func nowSeconds() -> Double {
        (injectedNow?() ?? Date()).timeIntervalSince1970
    }

    static func seconds(_ time: timespec) -> Double {
        Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
