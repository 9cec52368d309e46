import Foundation

extension DiskStore {
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
        let scan: DiskStoreDirectoryScan
        do { scan = try self.scan() } catch {
            counters.failedCleanups += 1
            throw error
        }
        var result = CleanupResult()
        let now = nowSeconds()
        let cutoff = configuration.maxAge.map { now - Self.seconds($0) }
        var kept: [DiskStoreDirectoryScan.File] = []
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
            var survivors: [DiskStoreDirectoryScan.File] = []
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

    func backgroundCleanup() {
        isCleanupScheduled = false
        _ = try? cleanup()
    }

    /// Starts a background pass when the bytes written since the last scan
    /// may have taken the store over its size limit.
    func scheduleCleanupIfOverSize() {
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
}
