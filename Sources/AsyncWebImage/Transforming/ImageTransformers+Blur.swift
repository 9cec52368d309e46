extension ImageTransformers {
    /// Gaussian blur (SDWebImage's `SDImageBlurTransformer`, Nuke's
    /// `ImageProcessors.GaussianBlur`).
    ///
    /// ``radius`` is the Gaussian's standard deviation σ in pixels, as in Core
    /// Image's `CIGaussianBlur`. The Gaussian is approximated by three
    /// successive box blurs per axis, each a running sum, so the cost per pixel
    /// does not depend on the radius; the boxes have fractional end taps so that
    /// their variance is exactly σ² (see `Box`). Edges
    /// repeat the border pixels. Images with alpha are blurred premultiplied in
    /// 16 bits per channel, so transparent pixels lend no colour and faint
    /// pixels keep their hue; opaque images are blurred in 8 bits. The pixel
    /// format is kept.
    ///
    /// Memory: besides the result, a blur needs scratch of 4 bytes per channel
    /// value for images with alpha (two 16-bit planes), 1 byte for opaque ones.
    public struct Blur: ImageTransformer {
        /// The largest accepted ``radius``: 1000 pixels.
        public static let maximumRadius = 1000.0

        /// The standard deviation σ of the Gaussian, in pixels.
        public let radius: Double

        /// Creates a blur of standard deviation `radius` pixels (0 leaves the image as is).
        public init(radius: Double) {
            self.radius = radius
        }

        /// `blur(r=…)`.
        public var key: String { "blur(r=\(radius))" }

        /// Returns the blurred image.
        ///
        /// - Throws: ``ImageError/transformFailed(key:reason:)`` for a radius
        ///   that is negative, not finite or above ``maximumRadius``;
        ///   `CancellationError` when the task is cancelled (checked between passes).
        public func transform(_ image: Image) throws -> Image {
            guard radius.isFinite, radius >= 0, radius <= Self.maximumRadius else {
                throw ImageError.transformFailed(key: key, reason: "radius must be in 0...\(Self.maximumRadius)")
            }
            let image = image.uprightForTransform()
            guard radius > 0 else { return image }
            let box = Box(sigma: radius)
            let (w, h, stride) = (image.width, image.height, image.bytesPerRow)
            let channels = image.pixelFormat.channelCount
            let count = w * h * channels
            if image.pixelFormat.hasAlpha {
                var planes = [UInt16](repeating: 0, count: count * 2)
                return try planes.withUnsafeMutableBufferPointer { buffer in
                    let a = UnsafeMutableBufferPointer(rebasing: buffer[0..<count])
                    let b = UnsafeMutableBufferPointer(rebasing: buffer[count...])
                    image.withUnsafeBytes { Self.premultiply($0, stride, into: a, w, h, channels) }
                    try Self.blur(a, b, w, h, channels, box)
                    return Image.makeTransformed(like: image, width: w, height: h, pixelFormat: image.pixelFormat) {
                        Self.unpremultiply(a, into: $0.bindMemory(to: UInt8.self), channels)
                    }
                }
            }
            var temporary = [UInt8](repeating: 0, count: count)
            return try temporary.withUnsafeMutableBufferPointer { b in
                try Image.makeTransformed(like: image, width: w, height: h, pixelFormat: image.pixelFormat) { destination in
                    let a = destination.bindMemory(to: UInt8.self)
                    image.withUnsafeBytes { source in
                        let rowBytes = w * channels
                        for y in 0..<h {
                            UnsafeMutableRawBufferPointer(rebasing: destination[(y * rowBytes)..<((y + 1) * rowBytes)])
                                .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[(y * stride)..<(y * stride + rowBytes)]))
                        }
                    }
                    try Self.blur(a, b, w, h, channels, box)
                }
            }
        }

        /// One of the three identical passes per axis: an "extended box" (Gwosdek
        /// et al., 2011) of `2 × radius + 1` taps of weight 1 plus one tap of
        /// weight `endWeight` (0..<1) at each end, whose variance is exactly a
        /// third of σ², so three passes have exactly the Gaussian's variance
        /// (integer boxes alone miss it by up to 10 %).
        struct Box: Equatable {
            /// Taps of full weight on each side of the centre.
            let radius: Int
            /// Weight of the tap just beyond `radius` on each side.
            let endWeight: Float

            init(sigma: Double) {
                let variance = sigma * sigma / 3
                // The widest plain box whose variance r(r + 1)/3 does not exceed the target.
                var r = Int(((1 + 12 * variance).squareRoot() - 1) / 2)
                while Double(r * (r + 1)) / 3 > variance { r -= 1 }
                while Double((r + 1) * (r + 2)) / 3 <= variance { r += 1 }
                let n = Double(r)
                let alpha = (2 * n + 1) * (n * (n + 1) / 3 - variance) / (2 * (variance - (n + 1) * (n + 1)))
                radius = r
                endWeight = Float(alpha)
            }

            /// The variance of the box: Σ k² w(k) / Σ w(k).
            var variance: Double {
                let r = Double(radius), a = Double(endWeight)
                return (r * (r + 1) * (2 * r + 1) / 3 + 2 * a * (r + 1) * (r + 1)) / (2 * r + 1 + 2 * a)
            }

            /// 1 / Σ w(k).
            var scale: Float { 1 / (Float(2 * radius + 1) + 2 * endWeight) }
        }

        /// Three horizontal then three vertical passes; the result ends in `a`.
        ///
        /// - Throws: `CancellationError` between passes when the task is cancelled.
        private static func blur<T: FixedWidthInteger & UnsignedInteger>(
            _ a: UnsafeMutableBufferPointer<T>, _ b: UnsafeMutableBufferPointer<T>,
            _ w: Int, _ h: Int, _ channels: Int, _ box: Box
        ) throws {
            // Rows: all three passes on one row while it sits in cache.
            let rowLength = w * channels
            var scratch = [T](repeating: 0, count: 2 * rowLength)
            scratch.withUnsafeMutableBufferPointer { scratch in
                let first = scratch.baseAddress!, second = first + rowLength
                for y in 0..<h {
                    let row = a.baseAddress! + y * rowLength
                    switch channels {
                    case 4: threeBoxes(row, first, second, b.baseAddress! + y * rowLength, w, 4, box)
                    case 3: threeBoxes(row, first, second, b.baseAddress! + y * rowLength, w, 3, box)
                    case 2: threeBoxes(row, first, second, b.baseAddress! + y * rowLength, w, 2, box)
                    default: threeBoxes(row, first, second, b.baseAddress! + y * rowLength, w, 1, box)
                    }
                }
            }
            try Task.checkCancellation()
            vertical(b, into: a, w, h, rowLength, box)
            try Task.checkCancellation()
            vertical(a, into: b, w, h, rowLength, box)
            try Task.checkCancellation()
            vertical(b, into: a, w, h, rowLength, box)
        }

        @inline(__always)
        private static func threeBoxes<T: FixedWidthInteger & UnsignedInteger>(
            _ row: UnsafeMutablePointer<T>, _ first: UnsafeMutablePointer<T>, _ second: UnsafeMutablePointer<T>,
            _ out: UnsafeMutablePointer<T>, _ w: Int, _ channels: Int, _ box: Box
        ) {
            horizontal(row, into: first, w, channels, box)
            horizontal(first, into: second, w, channels, box)
            horizontal(second, into: out, w, channels, box)
        }

        /// `value` (0…65535) rounded to the nearest integer without the range
        /// checks of `T(_:)`: adding 1.5 × 2²³ leaves the rounded integer in the
        /// low mantissa bits.
        @inline(__always)
        private static func rounded<T: FixedWidthInteger>(_ value: Float) -> T {
            T(truncatingIfNeeded: (value + 12_582_912).bitPattern)
        }

        /// One extended box along a row of interleaved channels, with a running
        /// sum; edges repeat the border pixel.
        @inline(__always)
        private static func horizontal<T: FixedWidthInteger & UnsignedInteger>(
            _ src: UnsafeMutablePointer<T>, into dst: UnsafeMutablePointer<T>, _ w: Int, _ channels: Int, _ box: Box
        ) {
            let r = box.radius, alpha = box.endWeight, scale = box.scale
            let last = w - 1
            for c in 0..<channels {
                @inline(__always) func at(_ x: Int) -> Int32 { Int32(src[x &* channels &+ c]) }
                var sum = at(0) * Int32(r + 1)
                if r > 0 { for k in 1...r { sum += at(min(k, last)) } }
                // Clamped reads only near the edges; the middle runs without.
                let middle = (r + 1)..<max(r + 1, w - r - 1)
                var x = 0
                while x < w {
                    if x == middle.lowerBound && !middle.isEmpty {
                        var i = x &* channels &+ c
                        let step = channels
                        let lead = (r &+ 1) &* channels, trail = r &* channels
                        for _ in middle {
                            let ends = Float(Int32(src[i &- lead]) &+ Int32(src[i &+ lead]))
                            dst[i] = rounded((Float(sum) + alpha * ends) * scale)
                            sum = sum &+ Int32(src[i &+ lead]) &- Int32(src[i &- trail])
                            i &+= step
                        }
                        x = middle.upperBound
                        continue
                    }
                    let ends = Float(at(max(x - r - 1, 0)) + at(min(x + r + 1, last)))
                    dst[x &* channels &+ c] = rounded((Float(sum) + alpha * ends) * scale)
                    sum += at(min(x + r + 1, last)) - at(max(x - r, 0))
                    x += 1
                }
            }
        }

        /// One extended box down every column at once, with a row of running
        /// sums, so memory is read row by row.
        private static func vertical<T: FixedWidthInteger & UnsignedInteger>(
            _ src: UnsafeMutableBufferPointer<T>, into dst: UnsafeMutableBufferPointer<T>,
            _ w: Int, _ h: Int, _ rowLength: Int, _ box: Box
        ) {
            let r = box.radius, alpha = box.endWeight, scale = box.scale
            let last = h - 1
            guard let source = src.baseAddress, let destination = dst.baseAddress else { return }
            var sums = [Int32](repeating: 0, count: rowLength)
            sums.withUnsafeMutableBufferPointer { sums in
                let sum = sums.baseAddress!
                for i in 0..<rowLength { sum[i] = Int32(source[i]) * Int32(r + 1) }
                if r > 0 {
                    for k in 1...r {
                        let row = source + min(k, last) * rowLength
                        for i in 0..<rowLength { sum[i] &+= Int32(row[i]) }
                    }
                }
                for y in 0..<h {
                    let out = destination + y * rowLength
                    let above = source + max(y - r - 1, 0) * rowLength
                    let below = source + min(y + r + 1, last) * rowLength
                    let leaving = source + max(y - r, 0) * rowLength
                    for i in 0..<rowLength {
                        let ends = Float(Int32(above[i]) &+ Int32(below[i]))
                        out[i] = rounded((Float(sum[i]) + alpha * ends) * scale)
                        sum[i] = sum[i] &+ Int32(below[i]) &- Int32(leaving[i])
                    }
                }
            }
        }

        /// Widens to 16 bits and premultiplies: colour becomes `c × a`, alpha `a × 255`.
        private static func premultiply(
            _ source: UnsafeRawBufferPointer, _ stride: Int, into planes: UnsafeMutableBufferPointer<UInt16>,
            _ w: Int, _ h: Int, _ channels: Int
        ) {
            let src = source.bindMemory(to: UInt8.self)
            for y in 0..<h {
                var s = y * stride, d = y * w * channels
                for _ in 0..<w {
                    let alpha = UInt16(src[s + channels - 1])
                    for c in 0..<(channels - 1) { planes[d + c] = UInt16(src[s + c]) &* alpha }
                    planes[d + channels - 1] = alpha &* 255
                    s += channels
                    d += channels
                }
            }
        }

        /// Back to straight 8-bit alpha.
        private static func unpremultiply(
            _ planes: UnsafeMutableBufferPointer<UInt16>, into out: UnsafeMutableBufferPointer<UInt8>, _ channels: Int
        ) {
            var i = 0
            while i < planes.count {
                let alpha = Float(planes[i + channels - 1])
                // One reciprocal per pixel instead of a division per channel.
                let scale: Float = alpha >= 1 ? 255 / alpha : 0
                for c in 0..<(channels - 1) {
                    out[i + c] = rounded(min(Float(planes[i + c]) * scale, 255))
                }
                out[i + channels - 1] = rounded(alpha * (1 / 255))
                i += channels
            }
        }
    }
}

extension ImageTransformer where Self == ImageTransformers.Blur {
    /// A Gaussian blur of standard deviation `radius`; see ``ImageTransformers/Blur``.
    public static func blur(radius: Double) -> ImageTransformers.Blur {
        ImageTransformers.Blur(radius: radius)
    }
}
