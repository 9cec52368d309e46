/// LZW decoding of a GIF frame whose minimum code size is 9 to 11 bits,
/// which giflib refuses (it accepts at most 8) and ImageMagick, Pillow and
/// libvips decode: the codes are still at most 12 bits wide, as the format
/// allows, so the decoder is the usual one with a larger first table.
///
/// Indices are stored as bytes, as every GIF colour table has at most 256
/// entries: an index past 255 keeps its low byte, as Pillow stores it.
/// The work is bounded by the output (`count` indices) and the input.
struct GIFWideCodeDecoder {
    /// The smallest and largest minimum code sizes this decoder is for.
    static let codeSizes = 9...11

    /// Decodes `count` indices from the concatenated sub-block payloads
    /// `data`; indices the data does not reach stay 0, as giflib leaves a
    /// short frame's rows (the frame reader reports truncation itself).
    static func decode(_ data: [UInt8], minimumCodeSize: Int, count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        let clear = 1 << minimumCodeSize
        let end = clear + 1
        // Each table entry: its prefix code and last byte; lengths for the copy-out.
        var prefix = [Int](repeating: -1, count: 4096)
        var suffix = [UInt8](repeating: 0, count: 4096)
        var length = [Int](repeating: 1, count: 4096)
        for code in 0..<clear { suffix[code] = UInt8(truncatingIfNeeded: code) }
        var codeSize = minimumCodeSize + 1
        var next = clear + 2
        var previous = -1
        var written = 0
        var bitBuffer = 0
        var bitCount = 0
        var position = 0
        while written < count {
            while bitCount < codeSize, position < data.count {
                bitBuffer |= Int(data[position]) << bitCount
                bitCount += 8
                position += 1
            }
            guard bitCount >= codeSize else { break }
            let code = bitBuffer & ((1 << codeSize) - 1)
            bitBuffer >>= codeSize
            bitCount -= codeSize
            if code == clear {
                codeSize = minimumCodeSize + 1
                next = clear + 2
                previous = -1
                continue
            }
            if code == end { break }
            var entry: Int
            if code < next && (code < clear || code > end) {
                entry = code
            } else if code == next, previous >= 0 {
                entry = previous
            } else {
                break // A code not yet defined: the data is damaged, what came before stays.
            }
            // Walk the chain to its first byte, writing back to front.
            let entryLength = code == next ? length[previous] + 1 : length[entry]
            let start = written
            let stop = min(count, start + entryLength)
            var cursor = entry
            var offset = entryLength - 1
            if code == next {
                // KwKwK: the new string is the previous one plus its own first byte.
                var first = previous
                while prefix[first] >= 0 { first = prefix[first] }
                if start + offset < stop { output[start + offset] = suffix[first] }
                offset -= 1
            }
            while cursor >= 0 {
                if start + offset < stop { output[start + offset] = suffix[cursor] }
                cursor = prefix[cursor]
                offset -= 1
            }
            written = stop
            if previous >= 0, next < 4096 {
                var first = code == next ? previous : entry
                while prefix[first] >= 0 { first = prefix[first] }
                prefix[next] = previous
                suffix[next] = suffix[first]
                length[next] = length[previous] + 1
                next += 1
                if next == 1 << codeSize, codeSize < 12 { codeSize += 1 }
            }
            previous = code
        }
        return output
    }
}
