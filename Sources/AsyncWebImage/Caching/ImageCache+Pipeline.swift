import Foundation
import Synchronization
import Logging
import Metrics

extension ImageCache {
    /// One disk write, run by ``writeToDisk(_:waits:)``.
    typealias DiskWrite = @Sendable () async throws -> Void

    /// The entry under `key`, undecoded: from the disk tier, else from the
    /// shared tier (whose hit is then written to disk in the background, so
    /// the next read stays local; `fromSharedTier` says which). The shared
    /// tier's trouble is a miss.
    func readEntry(
        forKey key: String, includeExtendedData: Bool = false, readErrorsAreMisses: Bool = false
    ) async throws -> (data: Data, extendedData: Data?, fromSharedTier: Bool)? {
        if let disk {
            do {
                if includeExtendedData {
                    if let entry = try await disk.dataWithExtendedData(forKey: key) { return (entry.data, entry.extendedData, false) }
                } else if let data = try await disk.data(forKey: key) {
                    return (data, nil, false)
                }
            } catch where readErrorsAreMisses && !(error is CancellationError) {
                // A disk that cannot be read leaves the shared tier to answer.
            }
        }
        guard let sharedTier, let entry = try? await sharedTier.dataWithExtendedData(forKey: key) else { return nil }
        if let disk {
            let failures = self
            backgroundWrites.begin()
            Task.detached {
                defer { failures.backgroundWrites.end() }
                do { try await disk.setData(entry.data, forKey: key, extendedData: entry.extendedData) } catch {
                    failures.recordBackgroundDiskWriteFailure(error)
                }
            }
        }
        return (entry.data, entry.extendedData, true)
    }

    /// A write of encoded data to the disk tier, or `nil` without one.
    ///
    /// The write goes to the shared tier too (unless `toShared` is `false`:
    /// a fleet's lease holder has written it there already); a shared write
    /// that fails is counted in ``sharedWriteFailureCount``, never thrown.
    func dataWrite(_ data: Data, extendedData: Data?, forKey key: String, toShared: Bool = true) -> DiskWrite? {
        let shared = toShared ? sharedTier : nil
        guard disk != nil || shared != nil else { return nil }
        return { [self, disk] in
            await writeToShared(shared, data, extendedData: extendedData, forKey: key)
            try await disk?.setData(data, forKey: key, extendedData: extendedData)
        }
    }

    /// Writes to the shared tier, counting (never throwing) a failure.
    func writeToShared(_ shared: (any DataCaching)?, _ data: Data, extendedData: Data?, forKey key: String) async {
        guard let shared else { return }
        do { try await shared.setData(data, forKey: key, extendedData: extendedData) } catch {
            if !(error is CancellationError) { sharedWriteFailures.add(1, ordering: .relaxed) }
        }
    }

    /// Counts a disk write nobody awaits that failed (a fill from the shared tier).
    func recordBackgroundDiskWriteFailure(_ error: any Error) {
        recordWriteFailure(error)
    }

    /// A write of `image` encoded with `coders` (under `limiter`,
    /// off every actor) to the disk tier, or `nil` without one.
    ///
    /// - Parameter format: The format to write; `nil` for the image's source
    ///   format when an encoder writes it, PNG otherwise.
    func imageWrite(
        _ image: Image, as format: ImageFormat?, quality: Double = 0.9, forKey key: String, coders: ImageCoderRegistry, limiter: ConcurrencyLimiter,
        encodeTimer: Metrics.Timer? = nil
    ) -> DiskWrite? {
        guard disk != nil || sharedTier != nil else { return nil }
        return { [self, disk, sharedTier] in
            let start = ContinuousClock.now
            let encoded = try await coders.encode(image, as: format, quality: quality, limiter: limiter)
            encodeTimer?.record(duration: ContinuousClock.now - start)
            await writeToShared(sharedTier, encoded, extendedData: nil, forKey: key)
            try await disk?.setData(encoded, forKey: key, extendedData: nil)
        }
    }

    /// Runs disk writes: awaited when `waits` (the first failure is thrown,
    /// after every write was tried), else in a task of their own that
    /// outlives the caller, whose failures are counted in
    /// ``diskWriteFailureCount`` and passed to the failure handler — never
    /// lost silently.
    ///
    /// Background writes are tracked in ``backgroundWrites`` so that
    /// ``shutdown()`` can wait for them; each failure is logged as a warning
    /// on `logger` with the load's `id`.
    func writeToDisk(_ writes: [DiskWrite], waits: Bool, logger: Logger? = nil, id: Logger.MetadataValue? = nil) async throws {
        guard !writes.isEmpty else { return }
        if waits {
            var first: (any Error)?
            for write in writes {
                do { try await write() } catch {
                    recordWriteFailure(error, logger: logger, id: id)
                    if first == nil { first = error }
                }
            }
            if let first { throw first }
        } else {
            // Not tied to the caller: a store that started should finish even if nobody waits.
            backgroundWrites.begin()
            Task { [self] in
                defer { backgroundWrites.end() }
                for write in writes {
                    do { try await write() } catch { recordWriteFailure(error, logger: logger, id: id) }
                }
            }
        }
    }

    private func recordWriteFailure(_ error: any Error, logger: Logger? = nil, id: Logger.MetadataValue? = nil) {
        guard !(error is CancellationError) else { return }
        writeFailures.add(1, ordering: .relaxed)
        logger?.warning("disk write failed", metadata: [
            "awi.id": id ?? "-", "awi.error": .string((error as? ImageError)?.caseName ?? String(describing: type(of: error))),
        ])
        onDiskWriteFailure?(error)
    }

}
