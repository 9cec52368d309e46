import Foundation
import AsyncWebImage

/// The structure of a GIF read from its bytes without decoding any pixels:
/// the logical screen, each frame's place, delay, disposal and transparent
/// index, and the NETSCAPE2.0 loop count.
///
/// It walks the blocks and skips every data sub-block by its length, so
/// its work is linear in the size of the file whatever the frames declare;
/// an animation decoder checks the limits on what it finds before any
/// pixel is decoded.
struct GIFAnimationScan {
    /// One frame as its descriptor and graphic control extension declare it.
    struct Frame: Equatable {
        var rect: GIFFrame.Rect
        var delayCentiseconds: Int
        var disposal: Int
        var transparentIndex: Int?
    }

    let screen: PixelSize
    private(set) var frames: [Frame] = []
    /// The NETSCAPE2.0 (or ANIMEXTS1.0) loop count as stored (0 for
    /// forever), or `nil` when the file has no loop extension.
    private(set) var storedLoopCount: Int?

    /// Scans `data`.
    ///
    /// Data that ends inside a frame, or unknown bytes after at least one
    /// complete frame, end the scan with the frames complete so far (as
    /// browsers show them); no frame at all is an error.
    /// - Throws: ``ImageError/undecodable(_:_:)`` for data that is not a GIF
    ///   or holds no complete frame.
    init(_ data: Data) throws(ImageError) {
        let bytes = [UInt8](data)
        guard bytes.count >= 13, bytes[0] == 0x47, bytes[1] == 0x49, bytes[2] == 0x46 else {
            throw .undecodable(.gif, "truncated: no GIF header")
        }
        screen = PixelSize(width: Int(bytes[6]) | Int(bytes[7]) << 8, height: Int(bytes[8]) | Int(bytes[9]) << 8)
        var offset = 13
        if bytes[10] & 0x80 != 0 { offset += 3 << (Int(bytes[10] & 7) + 1) }
        var control: (delay: Int, disposal: Int, transparent: Int?)?
        scan: while offset < bytes.count {
            switch bytes[offset] {
            case 0x21:
                guard offset + 1 < bytes.count else { break scan }
                let label = bytes[offset + 1]
                var blocks: [Range<Int>] = []
                guard let end = Self.skipSubBlocks(bytes, from: offset + 2, keepingFirst: 2, into: &blocks) else { break scan }
                if label == 0xF9, let block = blocks.first, block.count >= 4 {
                    let packed = bytes[block.lowerBound]
                    control = (
                        delay: Int(bytes[block.lowerBound + 1]) | Int(bytes[block.lowerBound + 2]) << 8,
                        disposal: Int(packed >> 2 & 7),
                        transparent: packed & 1 != 0 ? Int(bytes[block.lowerBound + 3]) : nil
                    )
                } else if label == 0xFF, blocks.count == 2, blocks[0].count == 11,
                          ["NETSCAPE2.0", "ANIMEXTS1.0"].contains(String(decoding: bytes[blocks[0]], as: UTF8.self)),
                          blocks[1].count >= 3, bytes[blocks[1].lowerBound] == 1 {
                    storedLoopCount = Int(bytes[blocks[1].lowerBound + 1]) | Int(bytes[blocks[1].lowerBound + 2]) << 8
                }
                offset = end
            case 0x2C:
                guard offset + 10 <= bytes.count else { break scan }
                func le16(_ at: Int) -> Int { Int(bytes[offset + at]) | Int(bytes[offset + at + 1]) << 8 }
                let rect = GIFFrame.Rect(x: le16(1), y: le16(3), width: le16(5), height: le16(7))
                let packed = bytes[offset + 9]
                var next = offset + 10
                if packed & 0x80 != 0 { next += 3 << (Int(packed & 7) + 1) }
                // The LZW minimum code size, then the data sub-blocks.
                var unused: [Range<Int>] = []
                guard next < bytes.count, let end = Self.skipSubBlocks(bytes, from: next + 1, keepingFirst: 0, into: &unused) else { break scan }
                frames.append(Frame(
                    rect: rect, delayCentiseconds: control?.delay ?? 0,
                    disposal: control?.disposal ?? 0, transparentIndex: control?.transparent
                ))
                control = nil
                offset = end
            case 0x3B:
                break scan
            default:
                guard !frames.isEmpty else { throw .undecodable(.gif, "unexpected block 0x\(String(bytes[offset], radix: 16)) at \(offset)") }
                break scan
            }
        }
        guard !frames.isEmpty else { throw .undecodable(.gif, "truncated: no complete frame") }
    }

    /// Skips the sub-blocks starting at `start` (length byte, data, ending
    /// with a 0 length); returns the offset after the terminator, or `nil`
    /// when the data ends first. The first `keepingFirst` sub-blocks' data
    /// ranges go to `kept`.
    private static func skipSubBlocks(_ bytes: [UInt8], from start: Int, keepingFirst: Int, into kept: inout [Range<Int>]) -> Int? {
        var offset = start
        while offset < bytes.count {
            let length = Int(bytes[offset])
            if length == 0 { return offset + 1 }
            guard offset + 1 + length <= bytes.count else { return nil }
            if kept.count < keepingFirst { kept.append((offset + 1)..<(offset + 1 + length)) }
            offset += 1 + length
        }
        return nil
    }
}
