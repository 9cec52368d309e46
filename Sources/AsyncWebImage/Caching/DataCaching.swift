public import Foundation

/// A store of encoded image data by key: the disk tier of ``ImageCache``.
///
/// ``DiskStore`` is the built-in one. A tier shared by a fleet of servers (a
/// Redis or memcached client) conforms to this protocol and slots in without
/// any change to the loader. Extended data is small metadata kept with an
/// entry, such as the `ETag` and `Last-Modified` that let `.refreshCached`
/// revalidate with a conditional request.
///
/// Conformers must treat a damaged entry as absent (and drop it), and never
/// return a partial entry or another key's data.
public protocol DataCaching: Sendable {
    /// The data stored under `key`, or `nil` when there is none (or it was damaged).
    ///
    /// - Throws: ``ImageError/diskIO(path:errno:message:)`` (or the tier's own
    ///   error) when the store cannot be read at all.
    func data(forKey key: String) async throws -> Data?

    /// The data and the extended data stored under `key`, read together.
    ///
    /// - Throws: as ``data(forKey:)``.
    func dataWithExtendedData(forKey key: String) async throws -> (data: Data, extendedData: Data?)?

    /// Stores `data` (and `extendedData`, replacing any older) under `key`.
    ///
    /// - Parameters:
    ///   - data: The encoded image.
    ///   - key: The cache key.
    ///   - extendedData: Small metadata kept with the entry; `nil` for none.
    /// - Throws: when the write fails; an older entry under `key` is then left whole.
    func setData(_ data: Data, forKey key: String, extendedData: Data?) async throws

    /// The extended data of the entry under `key`, or `nil` when there is no
    /// entry or it has none.
    ///
    /// - Throws: as ``data(forKey:)``.
    func extendedData(forKey key: String) async throws -> Data?

    /// Replaces the extended data of the entry under `key`, keeping its data
    /// (after a `304 Not Modified`, the new `ETag`).
    ///
    /// - Parameters:
    ///   - extendedData: The new metadata; `nil` removes it.
    ///   - key: The cache key.
    /// - Returns: `false` when there is no entry under `key`.
    /// - Throws: when the store cannot be written.
    @discardableResult
    func setExtendedData(_ extendedData: Data?, forKey key: String) async throws -> Bool

    /// Removes the entry under `key`, if any.
    ///
    /// - Throws: when the entry exists but cannot be removed.
    func removeData(forKey key: String) async throws

    /// Whether an entry exists under `key` (without reading it).
    func contains(_ key: String) async -> Bool

    /// Removes every entry.
    ///
    /// - Throws: when the store cannot be emptied.
    func removeAll() async throws

    /// Ends the store's threads and connections once the work queued before
    /// the call is done (``ImageCache/shutdown()`` calls it for its tiers).
    /// Nothing by default: a store without threads of its own needs no
    /// shutdown.
    func shutdown() async
}

extension DataCaching {
    /// Nothing to end.
    public func shutdown() async {}

    /// Reads the data, then the extended data, in two calls.
    public func dataWithExtendedData(forKey key: String) async throws -> (data: Data, extendedData: Data?)? {
        guard let data = try await data(forKey: key) else { return nil }
        return (data, try await extendedData(forKey: key))
    }

    /// Reads the data and writes it back with the new extended data.
    @discardableResult
    public func setExtendedData(_ extendedData: Data?, forKey key: String) async throws -> Bool {
        guard let data = try await data(forKey: key) else { return false }
        try await setData(data, forKey: key, extendedData: extendedData)
        return true
    }

    /// Stores `data` under `key` without extended data.
    ///
    /// - Throws: when the write fails.
    public func setData(_ data: Data, forKey key: String) async throws {
        try await setData(data, forKey: key, extendedData: nil)
    }
}
