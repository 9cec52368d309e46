import Foundation

/// A valid zstd frame of zero bytes, built directly: one frame header, then
/// RLE blocks of 128 KiB each (3 header bytes and the one repeated byte), so
/// 1 GiB of zeros takes 32 KiB — a far steeper ratio than gzip's 1032:1.
enum ZstdBomb {
    /// Bytes one RLE block regenerates: zstd's largest block.
    static let blockSize = 128 * 1024

    /// A frame of `blocks` × 128 KiB zeros.
    static func make(blocks: Int) -> Data {
        precondition(blocks > 0)
        // Magic number, then the frame header descriptor (no content size,
        // no checksum, no dictionary, not single-segment) and a window
        // descriptor of 2^(10+7) = 128 KiB, enough for the largest block.
        var bytes: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 7 << 3]
        bytes.reserveCapacity(bytes.count + 4 * blocks)
        for index in 0..<blocks {
            // Block header, little endian: last-block bit, type 1 (RLE), regenerated size.
            let last: UInt32 = index == blocks - 1 ? 1 : 0
            let header = last | 1 << 1 | UInt32(blockSize) << 3
            bytes += [UInt8(header & 0xFF), UInt8(header >> 8 & 0xFF), UInt8(header >> 16 & 0xFF), 0]
        }
        return Data(bytes)
    }
}
