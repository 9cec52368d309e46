/// The immutable, reference-counted pixel buffer behind an ``Image``.
///
/// A class so that copies of an `Image` share one buffer and so that the
/// memory cache can hold it weakly; immutable after init, so it is `Sendable`
/// without locks.
package final class PixelStorage: Sendable {
    /// The pixel bytes, rows top to bottom, `bytesPerRow` apart.
    let bytes: [UInt8]

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
}
