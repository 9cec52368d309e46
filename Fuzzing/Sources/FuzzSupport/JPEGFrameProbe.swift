import Foundation

/// Reads a JPEG's marker segments up to the frame header, independently of
/// the library: the harness must not trust the code it tests to tell it
/// which rule applies.
package enum JPEGFrameProbe {
    /// Whether the first frame header before the first scan is `SOF2`
    /// (progressive, Huffman-coded). Bytes between segments are skipped as
    /// libjpeg skips them.
    package static func isProgressive(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return false }
        var index = 2
        while index + 3 < bytes.count {
            guard bytes[index] == 0xFF, bytes[index + 1] != 0xFF, bytes[index + 1] != 0x00 else {
                index += 1
                continue
            }
            let marker = bytes[index + 1]
            if marker == 0xC2 { return true }
            if marker == 0xDA || marker == 0xD9 || (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                return false
            }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            index += 2 + max(length, 2)
        }
        return false
    }
}
