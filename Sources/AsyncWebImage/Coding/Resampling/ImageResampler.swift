import Foundation

/// High-quality resampling of an ``Image`` to an exact size: separable,
/// two passes (horizontal, then vertical), alpha-correct.
///
/// Colour channels are weighted by alpha while filtering (premultiplied),
/// then divided back, so a transparent pixel's colour never bleeds into its
/// visible neighbours.
package enum ImageResampler {
    /// Resamples `image` to `size` with `filter`; returns the image itself
    /// when the size is unchanged. Metadata (orientation, format, preview
    /// flag) is kept.
    ///
    /// - Complexity: O(source pixels × horizontal taps + output pixels × vertical taps).
    package static func resample(_ image: Image, to size: PixelSize, filter: ImageTransformers.Resize.Filter = .area) -> Image {
        resample(image, region: PixelRect(x: 0, y: 0, width: image.width, height: image.height), to: size, filter: filter)
    }

    /// Resamples the pixels of `region` (which must lie inside `image`) to
    /// `size`, reading them in place: a centre-cropping resize costs no copy.
    static func resample(_ image: Image, region: PixelRect, to size: PixelSize, filter: ImageTransformers.Resize.Filter = .area) -> Image {
        precondition(size.width > 0 && size.height > 0, "resample target must not be empty")
        precondition(region.clamped(toWidth: image.width, height: image.height) == region, "region must lie inside the image")
        if size.width == region.width && size.height == region.height { return image.cropped(to: region) }
        let horizontal = Contributions(source: region.width, destination: size.width, filter: filter)
        let vertical = Contributions(source: region.height, destination: size.height, filter: filter)
        switch image.pixelFormat {
        case .rgba8: return run(RGBA.self, image, region, size, horizontal, vertical)
        case .rgb8: return run(RGB.self, image, region, size, horizontal, vertical)
        case .grayAlpha8: return run(GrayAlpha.self, image, region, size, horizontal, vertical)
        case .gray8: return run(Gray.self, image, region, size, horizontal, vertical)
        }
    }

    // Channel layouts as types, so each pass is specialised with a constant
    // channel count and its inner loop unrolls.
    private protocol Layout {
        static var channels: Int { get }
        static var hasAlpha: Bool { get }
    }
    private enum RGBA: Layout { static let channels = 4; static let hasAlpha = true }
    private enum RGB: Layout { static let channels = 3; static let hasAlpha = false }
    private enum GrayAlpha: Layout { static let channels = 2; static let hasAlpha = true }
    private enum Gray: Layout { static let channels = 1; static let hasAlpha = false }

    private static func run<L: Layout>(
        _: L.Type, _ image: Image, _ region: PixelRect, _ size: PixelSize,
        _ horizontal: Contributions, _ vertical: Contributions
    ) -> Image {
        let channels = L.channels
        let rowFloats = size.width * channels
        // Intermediate: region height × destination width, premultiplied floats.
        var intermediate = [Float](repeating: 0, count: rowFloats * region.height)
        image.withUnsafeBytes { source in
            let origin = region.y * image.bytesPerRow + region.x * channels
            intermediate.withUnsafeMutableBufferPointer { temp in
                horizontalPass(
                    L.self, UnsafeRawBufferPointer(rebasing: source[origin...]), image.bytesPerRow, region.height,
                    horizontal, temp, rowFloats
                )
            }
        }
        return intermediate.withUnsafeBufferPointer { temp in
            Image.make(
                width: size.width, height: size.height, pixelFormat: image.pixelFormat,
                orientation: image.orientation, format: image.format, isPreview: image.isPreview
            ) { destination in
                verticalPass(L.self, temp, rowFloats, vertical, destination)
            }
        }
    }

    private static func horizontalPass<L: Layout>(
        _: L.Type, _ source: UnsafeRawBufferPointer, _ bytesPerRow: Int, _ rows: Int,
        _ weights: Contributions, _ temp: UnsafeMutableBufferPointer<Float>, _ rowFloats: Int
    ) {
        let channels = L.channels
        let src = source.bindMemory(to: UInt8.self)
        weights.weights.withUnsafeBufferPointer { w in
            for y in 0..<rows {
                let rowStart = y * bytesPerRow
                let outStart = y * rowFloats
                for x in 0..<weights.count {
                    let first = weights.starts[x]
                    let offset = weights.offsets[x]
                    let taps = weights.lengths[x]
                    var accumulator = (Float(0), Float(0), Float(0), Float(0))
                    for k in 0..<taps {
                        let weight = w[offset + k]
                        let p = rowStart + (first + k) * channels
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
                    let o = outStart + x * channels
                    temp[o] = accumulator.0
                    if channels >= 3 {
                        temp[o + 1] = accumulator.1
                        temp[o + 2] = accumulator.2
                    }
                    if L.hasAlpha { temp[o + channels - 1] = accumulator.3 }
                }
            }
        }
    }

    private static func verticalPass<L: Layout>(
        _: L.Type, _ temp: UnsafeBufferPointer<Float>, _ rowFloats: Int,
        _ weights: Contributions, _ destination: UnsafeMutableRawBufferPointer
    ) {
        let channels = L.channels
        let dst = destination.bindMemory(to: UInt8.self)
        var accumulator = [Float](repeating: 0, count: rowFloats)
        accumulator.withUnsafeMutableBufferPointer { row in
            weights.weights.withUnsafeBufferPointer { w in
                for y in 0..<weights.count {
                    for i in 0..<rowFloats { row[i] = 0 }
                    let first = weights.starts[y]
                    let offset = weights.offsets[y]
                    for k in 0..<weights.lengths[y] {
                        let weight = w[offset + k]
                        let sourceRow = (first + k) * rowFloats
                        for i in 0..<rowFloats { row[i] += temp[sourceRow + i] * weight }
                    }
                    let outRow = y * rowFloats
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
            }
        }
    }

    @inline(__always)
    private static func clampToByte(_ value: Float) -> UInt8 {
        let rounded = value + 0.5
        return rounded <= 0 ? 0 : (rounded >= 255 ? 255 : UInt8(rounded))
    }

    /// For each output index, the run of source indices that contribute and
    /// their normalised weights, laid out flat.
    struct Contributions {
        let count: Int
        var starts: [Int] = []
        var lengths: [Int] = []
        var offsets: [Int] = []
        var weights: [Float] = []

        init(source: Int, destination: Int, filter: ImageTransformers.Resize.Filter) {
            count = destination
            starts.reserveCapacity(destination)
            lengths.reserveCapacity(destination)
            offsets.reserveCapacity(destination)
            let scale = Double(source) / Double(destination)
            for i in 0..<destination {
                var taps: [Double] = []
                var first = 0
                if filter == .area && scale >= 1 {
                    // Exact area coverage: output pixel i covers [i·s, (i+1)·s)
                    // in source space; each source pixel j covers [j, j+1).
                    let lower = Double(i) * scale, upper = Double(i + 1) * scale
                    first = max(0, Int(lower.rounded(.down)))
                    let last = min(source - 1, Int(upper.rounded(.up)) - 1)
                    if last >= first {
                        for j in first...last {
                            taps.append(max(0, min(upper, Double(j + 1)) - max(lower, Double(j))))
                        }
                    }
                } else {
                    let (radius, kernel): (Double, (Double) -> Double) = switch filter {
                    case .lanczos3: (3, Contributions.lanczos3)
                    case .triangle, .area: (1, { max(0, 1 - abs($0)) })
                    }
                    let stretch = max(scale, 1)
                    let centre = (Double(i) + 0.5) * scale - 0.5
                    let support = radius * stretch
                    first = max(0, Int((centre - support).rounded(.up)))
                    let last = min(source - 1, Int((centre + support).rounded(.down)))
                    if last >= first {
                        for j in first...last { taps.append(kernel((Double(j) - centre) / stretch)) }
                    }
                }
                // Trim zero-weight ends so loops touch only pixels that matter.
                while let head = taps.first, head == 0, taps.count > 1 { taps.removeFirst(); first += 1 }
                while let tail = taps.last, tail == 0, taps.count > 1 { taps.removeLast() }
                if taps.isEmpty { taps = [1]; first = min(max(0, Int((Double(i) + 0.5) * scale)), source - 1) }
                let total = taps.reduce(0, +)
                starts.append(first)
                lengths.append(taps.count)
                offsets.append(weights.count)
                weights.append(contentsOf: taps.map { Float(total != 0 ? $0 / total : 1 / Double(taps.count)) })
            }
        }

        private static func lanczos3(_ x: Double) -> Double {
            if x == 0 { return 1 }
            guard abs(x) < 3 else { return 0 }
            let px = Double.pi * x
            return 3 * sin(px) * sin(px / 3) / (px * px)
        }
    }
}
