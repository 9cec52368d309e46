public import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension DiskStore {
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
    func write(_ data: Data, name: String, extendedData: Data?) throws -> Int {
        let path = directoryPath + "/" + name
        let generation = random.next()
        let temporary = directoryPath + "/" + Self.temporaryPrefix + String(generation, radix: 16)
        let fd = try createTemporaryFile(temporary)
        var useSidecar = extendedData != nil && configuration.extendedDataStorage == .sidecarFile
        do {
            try data.withUnsafeBytes { try FileIO.write(fd, temporary, $0) }
            let checksum = data.withUnsafeBytes { DiskEntryTrailer.checksum(of: $0) }
            let trailer = DiskEntryTrailer(generation: generation, length: UInt64(data.count), checksum: checksum).bytes
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

    func writeSidecar(_ extendedData: Data, generation: UInt64, path: String) throws {
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
    func publish(_ fd: Int32, temporary: String, at path: String) throws {
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
    func createTemporaryFile(_ path: String) throws -> Int32 {
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
}
