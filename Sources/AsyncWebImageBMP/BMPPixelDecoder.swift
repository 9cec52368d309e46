import AsyncWebImage

/// Turns a bitmap's stored pixels (uncompressed, bit fields or run-length
/// encoded) into RGBA8 rows, top to bottom, straight alpha.
///
/// Whether alpha is real is decided as browsers decide it: a 32-bit
/// bitmap's fourth byte (or an alpha mask's bits) is alpha unless every
/// pixel's is 0, in which case the writer left it unset and the bitmap is
/// opaque. Pixels a run-length bitmap skips (a delta, an early end of line
/// or of the bitmap) are transparent, as browsers draw them.
struct BMPPixelDecoder {
    let header: BMPHeader
    let format: ImageFormat

    /// The decoded pixels, RGBA8, and whether any alpha is not opaque.
    struct Pixels {
        var rgba: [UInt8]
        var hasAlpha: Bool
    }

    /// Decodes every pixel of `bytes` (the whole file or icon image).
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` with a message starting
    ///   "truncated" when the pixel data is shorter than the header says.
    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> Pixels {
        var rgba = [UInt8](repeating: 0, count: header.width * header.height * 4)
        switch header.compression {
        case .runLength8, .runLength4:
            let complete = decodeRunLength(bytes, into: &rgba)
            return Pixels(rgba: rgba, hasAlpha: !complete)
        case .none, .bitFields:
            let hasAlpha = try decodeRows(bytes, into: &rgba)
            return Pixels(rgba: rgba, hasAlpha: hasAlpha)
        }
    }

    /// Uncompressed and bit-field rows; returns whether alpha is real.
    private func decodeRows(_ bytes: UnsafeRawBufferPointer, into rgba: inout [UInt8]) throws(ImageError) -> Bool {
        let width = header.width, height = header.height, bits = header.bitsPerPixel
        let rowBytes = header.rowBytes
        let lastRowBytes = (width * bits + 7) / 8
        let (stored, overflow) = rowBytes.multipliedReportingOverflow(by: height - 1)
        guard !overflow, header.pixelOffset + stored + lastRowBytes <= bytes.count else {
            throw .undecodable(format, "truncated: \(bytes.count - header.pixelOffset) bytes of pixels where \(width)×\(height) at \(bits) bits need \(stored + lastRowBytes)")
        }
        let channels = Self.channels(header)
        let palette = header.palette
        let paletteCount = palette.count / 3
        var alphaSeen = false
        let hasAlphaSource = bits == 32 && (header.compression == .none || header.masks.alpha != 0) || (bits == 16 && header.masks.alpha != 0)
        rgba.withUnsafeMutableBufferPointer { out in
            for row in 0..<height {
                let y = header.isTopDown ? row : height - 1 - row
                let source = header.pixelOffset + row * rowBytes
                var o = y * width * 4
                switch bits {
                case 1, 2, 4, 8:
                    let perByte = 8 / bits
                    let mask = (1 << bits) - 1
                    for x in 0..<width {
                        let byte = Int(bytes[source + x / perByte])
                        let index = (byte >> (8 - bits * (x % perByte + 1))) & mask
                        if index < paletteCount {
                            out[o] = palette[index * 3]; out[o + 1] = palette[index * 3 + 1]; out[o + 2] = palette[index * 3 + 2]
                        }
                        out[o + 3] = 255
                        o += 4
                    }
                case 24:
                    for x in 0..<width {
                        let s = source + x * 3
                        out[o] = bytes[s + 2]; out[o + 1] = bytes[s + 1]; out[o + 2] = bytes[s]; out[o + 3] = 255
                        o += 4
                    }
                default:
                    let step = bits / 8
                    for x in 0..<width {
                        let s = source + x * step
                        var value = UInt32(bytes[s]) | UInt32(bytes[s + 1]) << 8
                        if step == 4 { value |= UInt32(bytes[s + 2]) << 16 | UInt32(bytes[s + 3]) << 24 }
                        out[o] = channels.red.extract(value)
                        out[o + 1] = channels.green.extract(value)
                        out[o + 2] = channels.blue.extract(value)
                        let alpha = hasAlphaSource ? channels.alpha.extract(value) : 255
                        out[o + 3] = alpha
                        if alpha != 0 { alphaSeen = true }
                        o += 4
                    }
                }
            }
            // Alpha left at 0 everywhere was never written: the bitmap is opaque.
            if hasAlphaSource && !alphaSeen {
                for offset in stride(from: 3, to: out.count, by: 4) { out[offset] = 255 }
            }
        }
        return hasAlphaSource && alphaSeen
    }

    /// One channel's place in a 16- or 32-bit pixel, scaled to 8 bits.
    struct Channel {
        let mask: UInt32
        let shift: UInt32
        /// Bits of the channel (the mask's width).
        let bits: Int

        init(mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            // The mask's width (its set bits are contiguous in every real file).
            bits = mask.nonzeroBitCount
        }

        /// The channel's value as 8 bits (0 without a mask): the top 8 bits
        /// of a wider channel, a narrower one's bits repeated to fill 8
        /// (5 bits `abcde` → `abcdeabc`), as ImageMagick and browsers widen them.
        func extract(_ pixel: UInt32) -> UInt8 {
            guard bits > 0 else { return 0 }
            let value = (pixel & mask) >> shift
            if bits >= 8 { return UInt8(truncatingIfNeeded: value >> UInt32(bits - 8)) }
            var widened = value << UInt32(8 - bits)
            var filled = bits
            while filled < 8 {
                widened |= widened >> UInt32(filled)
                filled *= 2
            }
            return UInt8(truncatingIfNeeded: widened)
        }
    }

    /// The four channels of `header`'s masks (a 32-bit BI_RGB pixel's
    /// fourth byte as alpha).
    static func channels(_ header: BMPHeader) -> (red: Channel, green: Channel, blue: Channel, alpha: Channel) {
        let alphaMask: UInt32 = header.compression == .none && header.bitsPerPixel == 32 ? 0xFF00_0000 : header.masks.alpha
        return (Channel(mask: header.masks.red), Channel(mask: header.masks.green), Channel(mask: header.masks.blue), Channel(mask: alphaMask))
    }

    /// Run-length data (RLE8 or RLE4), bottom row first (top row first
    /// for a top-down bitmap); returns whether
    /// every pixel was written. Runs past a row's end are cut there; data
    /// that ends early leaves the rest transparent, as browsers show it.
    private func decodeRunLength(_ bytes: UnsafeRawBufferPointer, into rgba: inout [UInt8]) -> Bool {
        let width = header.width, height = header.height
        let four = header.compression == .runLength4
        let palette = header.palette
        let paletteCount = palette.count / 3
        var x = 0, row = 0
        var offset = header.pixelOffset
        var written = 0
        func put(_ index: Int) {
            guard x < width, row < height else { x += 1; return }
            let o = ((header.isTopDown ? row : height - 1 - row) * width + x) * 4
            if index < paletteCount {
                rgba[o] = palette[index * 3]; rgba[o + 1] = palette[index * 3 + 1]; rgba[o + 2] = palette[index * 3 + 2]
            } else {
                rgba[o] = 0; rgba[o + 1] = 0; rgba[o + 2] = 0
            }
            rgba[o + 3] = 255
            written += 1
            x += 1
        }
        decoding: while offset + 1 < bytes.count, row < height {
            let count = Int(bytes[offset]), value = Int(bytes[offset + 1])
            offset += 2
            if count > 0 {
                for n in 0..<count {
                    put(four ? (n % 2 == 0 ? value >> 4 : value & 0x0F) : value)
                }
                continue
            }
            switch value {
            case 0:
                x = 0
                row += 1
            case 1:
                break decoding
            case 2:
                guard offset + 1 < bytes.count else { break decoding }
                x += Int(bytes[offset])
                row += Int(bytes[offset + 1])
                offset += 2
            default:
                let byteCount = four ? (value + 1) / 2 : value
                guard offset + byteCount <= bytes.count else { break decoding }
                for n in 0..<value {
                    let byte = Int(bytes[offset + (four ? n / 2 : n)])
                    put(four ? (n % 2 == 0 ? byte >> 4 : byte & 0x0F) : byte)
                }
                offset += (byteCount + 1) & ~1
            }
        }
        return written >= width * height
    }
}
