import CGif
import Foundation
import AsyncWebImage

/// The bytes giflib reads through `DGifOpen`'s callback, and how far it has read.
final class GIFByteSource {
    private let data: Data
    private var offset = 0

    init(_ data: Data) {
        self.data = data
    }

    /// The last byte giflib read, or `nil` before the first or after the
    /// data ran out: the minimum code size of a frame giflib refused.
    var lastByteRead: UInt8? {
        guard offset > 0, offset <= data.count else { return nil }
        return data[data.startIndex + offset - 1]
    }

    /// giflib's `InputFunc`: copies up to `count` bytes; fewer (0 at the end)
    /// make giflib report a read error, which is how truncation shows.
    static let read: InputFunc = { gif, buffer, count in
        guard let gif, let buffer, count > 0, let user = gif.pointee.UserData else { return 0 }
        let source = Unmanaged<GIFByteSource>.fromOpaque(user).takeUnretainedValue()
        let available = min(Int(count), source.data.count - source.offset)
        guard available > 0 else { return 0 }
        source.data.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + source.offset, byteCount: available)
        }
        source.offset += available
        return Int32(available)
    }
}
