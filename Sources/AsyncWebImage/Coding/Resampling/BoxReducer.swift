/// Shrinks an image by a whole factor while its rows stream in: each output
/// pixel is the average of a `factor × factor` box of source pixels.
///
/// Only one band of sums is held, so a decoder can produce a reduced image
/// without ever holding the full-size one (libvips' shrink-on-load idea).
/// Colour is averaged weighted by alpha (premultiplied) so that transparent
/// pixels do not bleed their colour into the result.
///
/// When `factor` does not divide a side, the last box on it averages the
/// pixels it has and still becomes one whole output pixel: that edge weighs
/// a little more than its share in a later resample, by less than one
/// reduced pixel, which the large factors of thumbnails make invisible.
struct BoxReducer {
    /// Largest factor: keeps every sum within `UInt32` (256² × 255² < 2³²).
    static let maximumFactor = 256

    let sourceWidth: Int
    let sourceHeight: Int
    let factor: Int
    let pixelFormat: PixelFormat
    /// Width and height of the reduced image (edge boxes may be partial).
    let size: PixelSize
    /// Per output pixel and channel: the sum of the band so far
    /// (colour × alpha for images with alpha).
    private var sums: [UInt32]
    /// Rows added to the current band.
    private var bandRows = 0
    /// The next output row to write.
    private var outputRow = 0

    /// Whether boxes average light (the samples decoded from sRGB, summed,
    /// encoded back) rather than the stored values: so a box before a
    /// linear-light filter keeps the brightness of fine high-contrast detail.
    let linear: Bool

    /// A reducer for a `sourceWidth × sourceHeight` image by `factor` (1...256).
    init(sourceWidth: Int, sourceHeight: Int, factor: Int, pixelFormat: PixelFormat, linear: Bool = false) {
        precondition((1...Self.maximumFactor).contains(factor), "factor out of range")
        self.linear = linear
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.factor = factor
        self.pixelFormat = pixelFormat
        size = PixelSize(width: (sourceWidth + factor - 1) / factor, height: (sourceHeight + factor - 1) / factor)
        sums = [UInt32](repeating: 0, count: size.width * pixelFormat.channelCount)
    }

    /// Adds the next source row; when it completes a band, writes one output
    /// row into `output` (tightly packed rows of the reduced image).
    ///
    /// - Complexity: O(`sourceWidth`).
    mutating func add(row: UnsafePointer<UInt8>, output: UnsafeMutableRawBufferPointer) {
        let (width, factor, boxes) = (sourceWidth, factor, size.width)
        sums.withUnsafeMutableBufferPointer { sums in
            guard let sums = sums.baseAddress else { return }
            if linear {
                Self.accumulateLinear(row, into: sums, width: width, factor: factor, boxes: boxes, channels: pixelFormat.channelCount, hasAlpha: pixelFormat.hasAlpha)
                return
            }
            // One call per layout, so that each loop is compiled for a constant channel count.
            switch pixelFormat {
            case .gray8: Self.accumulate(row, into: sums, width: width, factor: factor, boxes: boxes, channels: 1, hasAlpha: false)
            case .grayAlpha8: Self.accumulate(row, into: sums, width: width, factor: factor, boxes: boxes, channels: 2, hasAlpha: true)
            case .rgb8: Self.accumulate(row, into: sums, width: width, factor: factor, boxes: boxes, channels: 3, hasAlpha: false)
            case .rgba8: Self.accumulate(row, into: sums, width: width, factor: factor, boxes: boxes, channels: 4, hasAlpha: true)
            }
        }
        bandRows += 1
        if bandRows == factor || outputRow * factor + bandRows == sourceHeight {
            emit(into: output)
        }
    }

    /// Adds one row to the band sums, box by box (no division per pixel).
    ///
    /// A box's pixels are summed in registers and added to the band sums
    /// once: adding each pixel into the sums in memory made every add wait
    /// for the store before it (a sixth of a PNG thumbnail's time). The
    /// sums cannot overflow (``maximumFactor``), so the adds wrap unchecked.
    @inline(__always)
    private static func accumulate(
        _ row: UnsafePointer<UInt8>, into sums: UnsafeMutablePointer<UInt32>,
        width: Int, factor: Int, boxes: Int, channels: Int, hasAlpha: Bool
    ) {
        var pixel = row
        if channels == 4, hasAlpha {
            accumulatePremultiplied(&pixel, into: sums, width: width, factor: factor, boxes: boxes)
            return
        }
        for box in 0..<boxes {
            // Colour channels (premultiplied when there is alpha) in s0...s2, alpha in s3.
            var (s0, s1, s2, s3): (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
            for _ in 0..<min(factor, width - box * factor) {
                if hasAlpha {
                    let alpha = UInt32(pixel[channels - 1])
                    s0 &+= UInt32(pixel[0]) &* alpha
                    if channels == 4 {
                        s1 &+= UInt32(pixel[1]) &* alpha
                        s2 &+= UInt32(pixel[2]) &* alpha
                    }
                    s3 &+= alpha
                } else {
                    s0 &+= UInt32(pixel[0])
                    if channels >= 2 { s1 &+= UInt32(pixel[1]) }
                    if channels >= 3 { s2 &+= UInt32(pixel[2]) }
                    if channels >= 4 { s3 &+= UInt32(pixel[3]) }
                }
                pixel += channels
            }
            let sum = sums + box * channels
            if hasAlpha {
                // Colour in the first channels - 1 sums, alpha in the last.
                sum[0] &+= s0
                if channels == 4 {
                    sum[1] &+= s1
                    sum[2] &+= s2
                }
                sum[channels - 1] &+= s3
            } else {
                sum[0] &+= s0
                if channels >= 2 { sum[1] &+= s1 }
                if channels >= 3 { sum[2] &+= s2 }
                if channels >= 4 { sum[3] &+= s3 }
            }
        }
    }

    /// ``accumulate(_:into:width:factor:boxes:channels:hasAlpha:)`` for
    /// RGBA, two pixels at a time in 16-bit lanes: each colour sample times
    /// its alpha (at most 255 × 255, so one 16-bit multiply), alpha times
    /// one, then widened into 32-bit sums.
    @inline(__always)
    private static func accumulatePremultiplied(
        _ pixel: inout UnsafePointer<UInt8>, into sums: UnsafeMutablePointer<UInt32>, width: Int, factor: Int, boxes: Int
    ) {
        for box in 0..<boxes {
            var total = SIMD4<UInt32>()
            let count = min(factor, width - box * factor)
            var done = 0
            while done + 2 <= count {
                let wide = SIMD8<UInt16>(truncatingIfNeeded: UnsafeRawPointer(pixel).loadUnaligned(as: SIMD8<UInt8>.self))
                let weights = SIMD8<UInt16>(wide[3], wide[3], wide[3], 1, wide[7], wide[7], wide[7], 1)
                let products = wide &* weights
                total &+= SIMD4<UInt32>(truncatingIfNeeded: products.lowHalf) &+ SIMD4<UInt32>(truncatingIfNeeded: products.highHalf)
                pixel += 8
                done += 2
            }
            if done < count {
                let wide = SIMD4<UInt16>(truncatingIfNeeded: UnsafeRawPointer(pixel).loadUnaligned(as: SIMD4<UInt8>.self))
                total &+= SIMD4<UInt32>(truncatingIfNeeded: wide &* SIMD4<UInt16>(wide[3], wide[3], wide[3], 1))
                pixel += 4
            }
            let sum = sums + box * 4
            sum[0] &+= total[0]
            sum[1] &+= total[1]
            sum[2] &+= total[2]
            sum[3] &+= total[3]
        }
    }

    /// Writes the averages of the current band as one output row and starts the next band.
    private mutating func emit(into output: UnsafeMutableRawBufferPointer) {
        let channels = pixelFormat.channelCount
        let rowBytes = size.width * channels
        guard outputRow < size.height, let base = output.baseAddress, output.count >= (outputRow + 1) * rowBytes else { return }
        let target = (base + outputRow * rowBytes).assumingMemoryBound(to: UInt8.self)
        let hasAlpha = pixelFormat.hasAlpha
        let (rows, factor, width) = (UInt32(bandRows), factor, sourceWidth)
        sums.withUnsafeMutableBufferPointer { sums in
            guard let sums = sums.baseAddress else { return }
            for ox in 0..<size.width {
                let columns = UInt32(min(factor, width - ox * factor))
                let count = columns * rows
                let sum = sums + ox * channels
                Self.writeAverage(of: UnsafePointer(sum), count: count, channels: channels, hasAlpha: hasAlpha, linear: linear, to: target + ox * channels)
                for channel in 0..<channels { sum[channel] = 0 }
            }
        }
        bandRows = 0
        outputRow += 1
    }
}

extension BoxReducer {
    /// Writes one output pixel from the sums of its box of `count` source
    /// pixels: colour weighted by alpha (the sums hold premultiplied colour),
    /// rounded to nearest. Shared by both box reducers.
    ///
    /// With `linear`, the colour sums are of ``SRGBTransfer/linear16FromByte``
    /// values (premultiplied: `value × alpha / 256`, so that a box of up to
    /// 256 × 256 pixels fits in 32 bits), and the average is encoded back to sRGB.
    @inline(__always)
    static func writeAverage(
        of sum: UnsafePointer<UInt32>, count: UInt32, channels: Int, hasAlpha: Bool, linear: Bool = false, to out: UnsafeMutablePointer<UInt8>
    ) {
        if linear {
            SRGBTransfer.byteFromLinear.withUnsafeBufferPointer { encode in
                if hasAlpha {
                    let alphaSum = UInt64(sum[channels - 1])
                    for channel in 0..<(channels - 1) {
                        let value = alphaSum == 0 ? 0 : (UInt64(sum[channel]) * 256 + alphaSum / 2) / alphaSum
                        out[channel] = encode[Int(min(value, 65_535))]
                    }
                    out[channels - 1] = UInt8(truncatingIfNeeded: (UInt32(alphaSum) + count / 2) / count)
                } else {
                    for channel in 0..<channels {
                        out[channel] = encode[Int(min((UInt64(sum[channel]) + UInt64(count / 2)) / UInt64(count), 65_535))]
                    }
                }
            }
            return
        }
        if hasAlpha {
            let alphaSum = sum[channels - 1]
            for channel in 0..<(channels - 1) {
                out[channel] = alphaSum == 0 ? 0 : UInt8(truncatingIfNeeded: (sum[channel] + alphaSum / 2) / alphaSum)
            }
            out[channels - 1] = UInt8(truncatingIfNeeded: (alphaSum + count / 2) / count)
        } else {
            for channel in 0..<channels {
                out[channel] = UInt8(truncatingIfNeeded: (sum[channel] + count / 2) / count)
            }
        }
    }
}

extension BoxReducer {
    /// Adds one pixel to its box's sums in linear light (see
    /// ``writeAverage(of:count:channels:hasAlpha:linear:to:)``). Shared by both box reducers.
    @inline(__always)
    static func addLinear(
        _ pixel: UnsafePointer<UInt8>, to sum: UnsafeMutablePointer<UInt32>, channels: Int, hasAlpha: Bool,
        table: UnsafePointer<UInt16>
    ) {
        if hasAlpha {
            let alpha = UInt32(pixel[channels - 1])
            for channel in 0..<(channels - 1) { sum[channel] &+= (UInt32(table[Int(pixel[channel])]) &* alpha) >> 8 }
            sum[channels - 1] &+= alpha
        } else {
            for channel in 0..<channels { sum[channel] &+= UInt32(table[Int(pixel[channel])]) }
        }
    }

    /// ``accumulate(_:into:width:factor:boxes:channels:hasAlpha:)`` in linear light.
    private static func accumulateLinear(
        _ row: UnsafePointer<UInt8>, into sums: UnsafeMutablePointer<UInt32>,
        width: Int, factor: Int, boxes: Int, channels: Int, hasAlpha: Bool
    ) {
        SRGBTransfer.linear16FromByte.withUnsafeBufferPointer { table in
            guard let table = table.baseAddress else { return }
            var pixel = row
            for box in 0..<boxes {
                let sum = sums + box * channels
                for _ in 0..<min(factor, width - box * factor) {
                    addLinear(pixel, to: sum, channels: channels, hasAlpha: hasAlpha, table: table)
                    pixel += channels
                }
            }
        }
    }
}
