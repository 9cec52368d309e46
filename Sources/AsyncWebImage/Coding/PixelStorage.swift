/// The reference-counted pixel buffer behind an ``Image``.
///
/// A class so that copies of an `Image` share one buffer and so that the
/// memory cache can hold it weakly. Immutable once published.
///
/// `@unchecked Sendable` because ``bytes`` is a `var`, and it is safe: the
/// bytes change only in ``rewrite(_:)``, which only
/// ``Image/rewritingUniquelyOwnedPixels(_:)`` calls, after
/// `isKnownUniquelyReferenced` proved that the caller's `Image` holds the
/// one strong reference. Another thread could then reach the storage only
/// through a weak reference, and the only weak references are the memory
/// cache's, taken when an image is stored; the decoders rewrite images
/// they have just made, before they return them, so before any cache has
/// seen them. Everything else only reads.
package final class PixelStorage: @unchecked Sendable {
    /// The pixel bytes, rows top to bottom, `bytesPerRow` apart.
    private(set) var bytes: [UInt8]

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Allocates `count` bytes without zero-filling them and lets `fill`
    /// write every one of them before the storage is published.
    init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// Lets `body` rewrite the bytes where they are (the array copies them
    /// first only if someone took them out through ``Image/pixels``).
    ///
    /// - Important: only for a storage no other thread can reach; see the type's summary.
    func rewrite(_ body: (UnsafeMutableRawBufferPointer) -> Void) {
        bytes.withUnsafeMutableBytes(body)
    }
}
