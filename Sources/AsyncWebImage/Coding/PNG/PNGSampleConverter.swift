import CSpng

/// Turns one unfiltered row of stored PNG samples into pixels of the
/// ``PNGDecodePlan``'s format, with the semantics libspng applies for that
/// plan (checked against `spng_decode_image` over every fixture):
///
/// - sub-byte grey is scaled to 0...255 (× 255, 85 or 17);
/// - 16-bit samples are rounded to 8 bits as ``PNGDecodePlan/reduce(_:to:count:)``;
/// - with tRNS, a grey or RGB pixel whose stored samples equal the tRNS
///   value (compared at the stored depth) gets alpha 0, others 255; a
///   palette entry gets its tRNS alpha, 255 past the tRNS entries.
struct PNGSampleConverter {
    private let layout: PNGRawLayout
    private let channels: Int
    private let hasTransparency: Bool
    private let transparentGray: Int
    private let transparentRGB: (Int, Int, Int)
    /// Palette as output pixels (3 or 4 bytes per entry), 256 entries.
    private let palette: [UInt8]
    private let paletteCount: Int

    /// Whether a row of stored samples is already a row of output pixels:
    /// 8-bit grey, grey + alpha, RGB or RGBA without tRNS.
    let isIdentity: Bool

    /// A converter for `layout`, producing `plan.pixelFormat`; `nil` when the
    /// two disagree, or a palette image has no usable PLTE.
    init?(layout: PNGRawLayout, plan: PNGDecodePlan, transparency: spng_trns?, palette plte: spng_plte?) {
        self.layout = layout
        let channels = plan.pixelFormat.channelCount
        self.channels = channels
        hasTransparency = transparency != nil
        transparentGray = Int(transparency?.gray ?? 0)
        transparentRGB = (Int(transparency?.red ?? 0), Int(transparency?.green ?? 0), Int(transparency?.blue ?? 0))
        let expected: PixelFormat = switch (layout.colorType, hasTransparency) {
        case (0, false): .gray8
        case (0, true), (4, _): .grayAlpha8
        case (2, false), (3, false): .rgb8
        default: .rgba8
        }
        // tRNS is not allowed with an alpha channel; leave such files to libspng.
        guard expected == plan.pixelFormat, !(hasTransparency && (layout.colorType == 4 || layout.colorType == 6)) else { return nil }
        isIdentity = layout.bitDepth == 8 && !hasTransparency && layout.colorType != 3
        if layout.colorType == 3 {
            guard let plte = plte, plte.n_entries > 0, plte.n_entries <= 256 else { return nil }
            let paletteCount = Int(plte.n_entries)
            self.paletteCount = paletteCount
            var table = [UInt8](repeating: 0, count: 256 * channels)
            withUnsafeBytes(of: plte.entries) { entries in
                for index in 0..<paletteCount {
                    for channel in 0..<3 { table[index * channels + channel] = entries[index * 4 + channel] }
                }
            }
            if let transparency, channels == 4 {
                let alphaCount = min(Int(transparency.n_type3_entries), 256)
                withUnsafeBytes(of: transparency.type3_alpha) { alpha in
                    for index in 0..<256 { table[index * 4 + 3] = index < alphaCount ? alpha[index] : 255 }
                }
            }
            palette = table
        } else {
            palette = []
            paletteCount = 0
        }
    }

    /// Converts the `pass.width` pixels of `row` (unfiltered stored samples)
    /// into `destination`, a full-width row of output pixels, at columns
    /// `pass.columnStart + i × pass.columnStep`.
    ///
    /// - Returns: `false` when a palette index is past the PLTE entries (the
    ///   caller then leaves the image to libspng, which decides).
    func convert(_ row: UnsafePointer<UInt8>, pass: PNGRawLayout.Pass, into destination: UnsafeMutablePointer<UInt8>) -> Bool {
        let count = pass.width
        var out = destination + pass.columnStart * channels
        let outStep = pass.columnStep * channels
        if isIdentity {
            if outStep == channels {
                out.update(from: row, count: count * channels)
            } else {
                for i in 0..<count {
                    (out + i * outStep).update(from: row + i * channels, count: channels)
                }
            }
            return true
        }
        switch (layout.colorType, layout.bitDepth) {
        case (3, let depth):
            return palette.withUnsafeBufferPointer { table in
                guard let table = table.baseAddress else { return false }
                var highest = 0
                for i in 0..<count {
                    let index = Self.subByteSample(row, i, depth)
                    highest = max(highest, index)
                    (out + i * outStep).update(from: table + index * channels, count: channels)
                }
                return highest < paletteCount
            }
        case (0, let depth) where depth < 8:
            let scale = 255 / ((1 << depth) - 1)
            for i in 0..<count {
                let sample = Self.subByteSample(row, i, depth)
                out[0] = UInt8(truncatingIfNeeded: sample * scale)
                if hasTransparency { out[1] = sample == transparentGray ? 0 : 255 }
                out += outStep
            }
        case (_, 8):
            // Grey or RGB with tRNS: add the alpha channel.
            let samples = layout.samplesPerPixel
            for i in 0..<count {
                let pixel = row + i * samples
                for s in 0..<samples { out[s] = pixel[s] }
                out[samples] = isTransparent(pixel, samples: samples, wide: false) ? 0 : 255
                out += outStep
            }
        case (_, 16):
            let samples = layout.samplesPerPixel
            for i in 0..<count {
                let pixel = row + i * samples * 2
                for s in 0..<samples { out[s] = Self.round16(pixel + 2 * s) }
                if hasTransparency { out[samples] = isTransparent(pixel, samples: samples, wide: true) ? 0 : 255 }
                out += outStep
            }
        default:
            return false
        }
        return true
    }

    /// Whether a grey or RGB pixel matches the tRNS colour.
    @inline(__always)
    private func isTransparent(_ pixel: UnsafePointer<UInt8>, samples: Int, wide: Bool) -> Bool {
        func sample(_ s: Int) -> Int { wide ? Int(pixel[2 * s]) << 8 | Int(pixel[2 * s + 1]) : Int(pixel[s]) }
        if samples == 1 { return sample(0) == transparentGray }
        return sample(0) == transparentRGB.0 && sample(1) == transparentRGB.1 && sample(2) == transparentRGB.2
    }

    /// Sample `index` of a row of `depth`-bit samples, packed from the most significant bit.
    @inline(__always)
    private static func subByteSample(_ row: UnsafePointer<UInt8>, _ index: Int, _ depth: Int) -> Int {
        if depth == 8 { return Int(row[index]) }
        let bit = index * depth
        let shift = 8 - depth - (bit & 7)
        return Int(row[bit >> 3] >> UInt8(shift)) & ((1 << depth) - 1)
    }

    /// A big-endian 16-bit sample rounded to 8 bits: `round(v / 257)`.
    @inline(__always)
    private static func round16(_ sample: UnsafePointer<UInt8>) -> UInt8 {
        let value = (UInt32(sample[0]) << 8 | UInt32(sample[1])) + 128
        return UInt8(truncatingIfNeeded: (value - (value >> 8)) >> 8)
    }
}
