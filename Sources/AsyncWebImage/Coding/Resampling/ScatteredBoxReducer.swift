/// Shrinks an image by a whole factor when its pixels arrive scattered:
/// rows in any order, each holding only every `step`-th pixel (the Adam7
/// passes of an interlaced PNG). Each output pixel is the average of a
/// `factor × factor` box of source pixels, colour weighted by alpha.
///
/// It keeps sums for the whole reduced image (4 bytes per channel of the
/// output, a 1/factor² fraction of the source), never the source itself.
/// Fed every source pixel exactly once, its result equals ``BoxReducer``'s.
struct ScatteredBoxReducer {
    let sourceWidth: Int
    let sourceHeight: Int
    let factor: Int
    let pixelFormat: PixelFormat
    /// Width and height of the reduced image (edge boxes may be partial).
    let size: PixelSize
    /// Per output pixel and channel: the sum so far (colour × alpha with alpha).
    private var sums: [UInt32]

    /// Whether boxes average light, as ``BoxReducer/linear``.
    let linear: Bool

    /// A reducer for a `sourceWidth × sourceHeight` image by `factor` (1...256).
    init(sourceWidth: Int, sourceHeight: Int, factor: Int, pixelFormat: PixelFormat, linear: Bool = false) {
        precondition((1...BoxReducer.maximumFactor).contains(factor), "factor out of range")
        self.linear = linear
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.factor = factor
        self.pixelFormat = pixelFormat
        size = PixelSize(width: (sourceWidth + factor - 1) / factor, height: (sourceHeight + factor - 1) / factor)
        sums = [UInt32](repeating: 0, count: size.width * size.height * pixelFormat.channelCount)
    }

    /// Adds the pixels of source row `y` at columns `start`, `start + step`, …
    /// (`row` is laid out full width; other columns are ignored).
    ///
    /// - Complexity: O(`sourceWidth / step`).
    mutating func add(row: UnsafePointer<UInt8>, y: Int, start: Int, step: Int) {
        guard y >= 0, y < sourceHeight, start >= 0, step > 0 else { return }
        let channels = pixelFormat.channelCount
        let hasAlpha = pixelFormat.hasAlpha
        let (width, factor, boxes) = (sourceWidth, factor, size.width)
        sums.withUnsafeMutableBufferPointer { sums in
            guard let sums = sums.baseAddress else { return }
            let band = sums + (y / factor) * boxes * channels
            if linear {
                SRGBTransfer.linear16FromByte.withUnsafeBufferPointer { table in
                    guard let table = table.baseAddress else { return }
                    for x in stride(from: start, to: width, by: step) {
                        BoxReducer.addLinear(row + x * channels, to: band + (x / factor) * channels, channels: channels, hasAlpha: hasAlpha, table: table)
                    }
                }
                return
            }
            for x in stride(from: start, to: width, by: step) {
                let pixel = row + x * channels
                let sum = band + (x / factor) * channels
                if hasAlpha {
                    let alpha = UInt32(pixel[channels - 1])
                    for channel in 0..<(channels - 1) { sum[channel] += UInt32(pixel[channel]) * alpha }
                    sum[channels - 1] += alpha
                } else {
                    for channel in 0..<channels { sum[channel] += UInt32(pixel[channel]) }
                }
            }
        }
    }

    /// Writes the averages (tightly packed rows of ``size``) into `output`.
    func write(into output: UnsafeMutableRawBufferPointer) {
        let channels = pixelFormat.channelCount
        guard let base = output.baseAddress, output.count >= size.width * size.height * channels else { return }
        let target = base.assumingMemoryBound(to: UInt8.self)
        let hasAlpha = pixelFormat.hasAlpha
        sums.withUnsafeBufferPointer { sums in
            guard let sums = sums.baseAddress else { return }
            for oy in 0..<size.height {
                let rows = UInt32(min(factor, sourceHeight - oy * factor))
                for ox in 0..<size.width {
                    let count = UInt32(min(factor, sourceWidth - ox * factor)) * rows
                    let index = (oy * size.width + ox) * channels
                    BoxReducer.writeAverage(of: sums + index, count: count, channels: channels, hasAlpha: hasAlpha, linear: linear, to: target + index)
                }
            }
        }
    }
}
