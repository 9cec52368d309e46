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

    /// A reducer for a `sourceWidth × sourceHeight` image by `factor` (1...256).
    init(sourceWidth: Int, sourceHeight: Int, factor: Int, pixelFormat: PixelFormat) {
        precondition((1...Self.maximumFactor).contains(factor), "factor out of range")
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
    @inline(__always)
    private static func accumulate(
        _ row: UnsafePointer<UInt8>, into sums: UnsafeMutablePointer<UInt32>,
        width: Int, factor: Int, boxes: Int, channels: Int, hasAlpha: Bool
    ) {
        var pixel = row
        for box in 0..<boxes {
            let sum = sums + box * channels
            for _ in 0..<min(factor, width - box * factor) {
                if hasAlpha {
                    let alpha = UInt32(pixel[channels - 1])
                    for channel in 0..<(channels - 1) { sum[channel] += UInt32(pixel[channel]) * alpha }
                    sum[channels - 1] += alpha
                } else {
                    for channel in 0..<channels { sum[channel] += UInt32(pixel[channel]) }
                }
                pixel += channels
            }
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
                Self.writeAverage(of: UnsafePointer(sum), count: count, channels: channels, hasAlpha: hasAlpha, to: target + ox * channels)
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
    @inline(__always)
    static func writeAverage(
        of sum: UnsafePointer<UInt32>, count: UInt32, channels: Int, hasAlpha: Bool, to out: UnsafeMutablePointer<UInt8>
    ) {
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
