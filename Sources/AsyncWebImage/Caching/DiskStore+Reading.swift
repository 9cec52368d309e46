public import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension DiskStore {
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

    func isolatedData(at path: String) throws -> Data? {
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

    func readEntry(_ path: String, withExtendedData: Bool) throws -> (data: Data, extendedData: Data?)? {
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
    /// `nil` when short or damaged — including data whose checksum is not
    /// the trailer's. Both read paths use it, so every read checks the data.
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
              trailer.length == UInt64(length),
              trailer.checksum == DiskEntryTrailer.checksum(of: UnsafeRawBufferPointer(start: buffer, count: length)) else {
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
    func trailer(of fd: Int32, _ path: String) throws -> DiskEntryTrailer? {
        let info = try FileIO.stat(fd, path)
        let size = Int(info.st_size)
        // Only a regular file is an entry; reading a FIFO or a device could block or never end.
        guard info.st_mode & S_IFMT == S_IFREG, size >= DiskEntryTrailer.size else { return nil }
        var bytes = [UInt8](repeating: 0, count: DiskEntryTrailer.size)
        let read = try bytes.withUnsafeMutableBytes {
            try FileIO.read(fd, path, into: $0.baseAddress!, count: DiskEntryTrailer.size, offset: size - DiskEntryTrailer.size)
        }
        guard read == DiskEntryTrailer.size,
              let trailer = bytes.withUnsafeBytes({ DiskEntryTrailer($0) }),
              trailer.length == UInt64(size - DiskEntryTrailer.size) else { return nil }
        return trailer
    }

    func readExtendedData(_ fd: Int32, _ path: String, generation: UInt64) throws -> Data? {
        if configuration.extendedDataStorage == .automatic,
           case .value(let data) = try FileIO.attribute(fd, path, name: Self.attributeName) {
            return data
        }
        // Also in automatic mode: the attribute may have been refused for
        // this entry only (too large), or by the file system of another writer.
        return try readSidecar(path + Self.sidecarSuffix, generation: generation)
    }

    func readSidecar(_ path: String, generation: UInt64) throws -> Data? {
        guard let fd = try FileIO.openIfPresent(path, O_RDONLY) else { return nil }
        defer { close(fd) }
        let info = try FileIO.stat(fd, path)
        let size = Int(info.st_size)
        let header = Self.sidecarMagic.count + 8
        guard info.st_mode & S_IFMT == S_IFREG, size >= header, size <= header + (16 << 20) else { return nil }
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
    func removeDamaged(_ path: String, _ fd: Int32) {
        counters.damagedEntries += 1
        counters.misses += 1
        guard let opened = try? FileIO.stat(fd, path),
              let current = try? FileIO.statIfPresent(path),
              opened.st_ino == current.st_ino, opened.st_dev == current.st_dev else { return }
        _ = try? FileIO.unlinkIfPresent(path)
        _ = try? FileIO.unlinkIfPresent(path + Self.sidecarSuffix)
    }
}
