/// ``ImageResampler``'s separable resample, fed one source row at a time:
/// each row is filtered horizontally as it arrives and added, with its
/// vertical weight, to the few output rows it contributes to; an output row
/// is written as soon as its last source row has arrived.
///
/// It holds the output image and a handful of rows, never the source image
/// nor the resampler's source-height × output-width float intermediate
/// (458 MiB for a 7000 × 7000 RGBA source resampled to 4096 px). The
/// arithmetic is the resampler's, in the same order, so the pixels are
/// identical to ``ImageResampler/resample(_:to:filter:)`` with the same filter.
package struct StreamingResampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let size: PixelSize
    package let pixelFormat: PixelFormat
    private let horizontal: ImageResampler.Contributions
    private let vertical: ImageResampler.Contributions
    /// One source row filtered horizontally (output width × channels floats).
    private var filtered: [Float]
    /// Accumulators of the output rows in progress, a ring of `ringSize` rows.
    private var accumulators: [Float]
    private let ringSize: Int
    /// The next source row expected.
    private var nextSourceRow = 0
    /// The lowest output row not yet written.
    private var nextOutputRow = 0

    /// Bytes the resampler itself holds besides its output: the filtered row
    /// and the ring of accumulators (4 bytes per float), and the weights.
    var workingBytes: Int { (filtered.count + accumulators.count) * 4 + (horizontal.weights.count + vertical.weights.count) * 4 }

    /// A resampler from `sourceWidth × sourceHeight` to `size` with `filter`,
    /// or `nil` when the vertical windows are not monotone (they always are
    /// for the built-in filters; the check keeps the ring sound regardless).
    package init?(sourceWidth: Int, sourceHeight: Int, to size: PixelSize, pixelFormat: PixelFormat, filter: ImageTransformers.Resize.Filter = .area) {
        guard sourceWidth > 0, sourceHeight > 0, size.width > 0, size.height > 0 else { return nil }
        let vertical = ImageResampler.Contributions(source: sourceHeight, destination: size.height, filter: filter)
        // The output rows a source row feeds are contiguous when windows start and end in order.
        var ring = 1
        var open = 0
        for y in 0..<size.height {
            if y > 0 {
                guard vertical.starts[y] >= vertical.starts[y - 1],
                      vertical.starts[y] + vertical.lengths[y] >= vertical.starts[y - 1] + vertical.lengths[y - 1] else { return nil }
            }
            // Output rows whose window is still open when row y's window starts.
            while open < y && vertical.starts[open] + vertical.lengths[open] <= vertical.starts[y] { open += 1 }
            ring = max(ring, y - open + 1)
        }
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.size = size
        self.pixelFormat = pixelFormat
        self.vertical = vertical
        horizontal = ImageResampler.Contributions(source: sourceWidth, destination: size.width, filter: filter)
        ringSize = ring
        let rowFloats = size.width * pixelFormat.channelCount
        filtered = [Float](repeating: 0, count: rowFloats)
        accumulators = [Float](repeating: 0, count: rowFloats * ring)
    }

    /// Adds the next source row (tightly packed pixels of ``pixelFormat``)
    /// and writes every output row it completes into `output` (tightly
    /// packed rows of ``size``).
    package mutating func add(row: UnsafePointer<UInt8>, output: UnsafeMutableRawBufferPointer) {
        guard nextSourceRow < sourceHeight, output.count >= size.width * size.height * pixelFormat.channelCount else { return }
        switch pixelFormat {
        case .rgba8: add(RGBA.self, row, output)
        case .rgb8: add(RGB.self, row, output)
        case .grayAlpha8: add(GrayAlpha.self, row, output)
        case .gray8: add(Gray.self, row, output)
        }
        nextSourceRow += 1
    }

    private protocol Layout {
        static var channels: Int { get }
        static var hasAlpha: Bool { get }
    }
    private enum RGBA: Layout { static let channels = 4; static let hasAlpha = true }
    private enum RGB: Layout { static let channels = 3; static let hasAlpha = false }
    private enum GrayAlpha: Layout { static let channels = 2; static let hasAlpha = true }
    private enum Gray: Layout { static let channels = 1; static let hasAlpha = false }

    private mutating func add<L: Layout>(_: L.Type, _ src: UnsafePointer<UInt8>, _ output: UnsafeMutableRawBufferPointer) {
        let channels = L.channels
        let rowFloats = size.width * channels
        let j = nextSourceRow
        let (horizontal, vertical, ringSize, height) = (horizontal, vertical, ringSize, size.height)
        var nextOutputRow = nextOutputRow
        filtered.withUnsafeMutableBufferPointer { temp in
            // The horizontal pass of ImageResampler, for one row.
            horizontal.weights.withUnsafeBufferPointer { w in
                for x in 0..<horizontal.count {
                    let first = horizontal.starts[x]
                    let offset = horizontal.offsets[x]
                    let taps = horizontal.lengths[x]
                    var accumulator = (Float(0), Float(0), Float(0), Float(0))
                    for k in 0..<taps {
                        let weight = w[offset + k]
                        let p = (first + k) * channels
                        if L.hasAlpha {
                            let alpha = Float(src[p + channels - 1])
                            let premultiplied = weight * alpha * (1 / 255)
                            accumulator.0 += Float(src[p]) * premultiplied
                            if channels == 4 {
                                accumulator.1 += Float(src[p + 1]) * premultiplied
                                accumulator.2 += Float(src[p + 2]) * premultiplied
                            }
                            accumulator.3 += alpha * weight
                        } else {
                            accumulator.0 += Float(src[p]) * weight
                            if channels == 3 {
                                accumulator.1 += Float(src[p + 1]) * weight
                                accumulator.2 += Float(src[p + 2]) * weight
                            }
                        }
                    }
                    let o = x * channels
                    temp[o] = accumulator.0
                    if channels >= 3 {
                        temp[o + 1] = accumulator.1
                        temp[o + 2] = accumulator.2
                    }
                    if L.hasAlpha { temp[o + channels - 1] = accumulator.3 }
                }
            }
            // The vertical pass: this row's share of each output row whose window holds it.
            accumulators.withUnsafeMutableBufferPointer { ring in
                vertical.weights.withUnsafeBufferPointer { w in
                    let dst = output.bindMemory(to: UInt8.self)
                    var y = nextOutputRow
                    while y < height && vertical.starts[y] <= j {
                        let end = vertical.starts[y] + vertical.lengths[y]
                        guard j < end else { y += 1; continue }
                        let row = ring.baseAddress! + (y % ringSize) * rowFloats
                        if j == vertical.starts[y] {
                            for i in 0..<rowFloats { row[i] = 0 }
                        }
                        let weight = w[vertical.offsets[y] + (j - vertical.starts[y])]
                        for i in 0..<rowFloats { row[i] += temp[i] * weight }
                        if j == end - 1 {
                            Self.write(L.self, row, rowFloats, into: dst, at: y * rowFloats)
                            if y == nextOutputRow { nextOutputRow += 1 }
                        }
                        y += 1
                    }
                }
            }
        }
        self.nextOutputRow = nextOutputRow
    }

    /// The end of ImageResampler's vertical pass for one output row.
    private static func write<L: Layout>(
        _: L.Type, _ row: UnsafeMutablePointer<Float>, _ rowFloats: Int, into dst: UnsafeMutableBufferPointer<UInt8>, at outRow: Int
    ) {
        let channels = L.channels
        if L.hasAlpha {
            for x in stride(from: 0, to: rowFloats, by: channels) {
                let alpha = row[x + channels - 1]
                let unpremultiply: Float = alpha > 0.5 / 255 ? 255 / alpha : 0
                for c in 0..<(channels - 1) { dst[outRow + x + c] = clampToByte(row[x + c] * unpremultiply) }
                dst[outRow + x + channels - 1] = clampToByte(alpha)
            }
        } else {
            for i in 0..<rowFloats { dst[outRow + i] = clampToByte(row[i]) }
        }
    }

    @inline(__always)
    private static func clampToByte(_ value: Float) -> UInt8 {
        let rounded = value + 0.5
        return rounded <= 0 ? 0 : (rounded >= 255 ? 255 : UInt8(rounded))
    }
}
