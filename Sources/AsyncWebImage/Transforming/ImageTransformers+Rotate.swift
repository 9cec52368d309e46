import Foundation

extension ImageTransformers {
    /// Rotates the image clockwise by any angle (SDWebImage's
    /// `SDImageRotationTransformer`).
    ///
    /// Multiples of 90° are exact: pixels are moved, never filtered, the size is
    /// swapped for 90° and 270°, and the pixel format is kept.
    ///
    /// Any other angle samples bilinearly (alpha premultiplied) into a canvas
    /// just large enough to hold the whole rotated image, with ``background`` in
    /// the corners the image does not cover and antialiased edges. The result's
    /// format is the smallest that holds both the image and the background:
    /// colour is added when the background is not gray, alpha when it is not
    /// opaque (so the default, ``ImageTransformers/Color/clear``, gives `rgba8` or
    /// `grayAlpha8`).
    public struct Rotate: ImageTransformer {
        /// The clockwise angle in degrees, normalised to `0..<360` (angles
        /// within 10⁻⁹° of a quarter turn are snapped to it).
        public let degrees: Double
        /// The colour of the canvas around the rotated image.
        public let background: ImageTransformers.Color

        /// Creates a rotation by `degrees` clockwise (negative for counter-clockwise).
        public init(degrees: Double, background: ImageTransformers.Color = .clear) {
            var angle = degrees.truncatingRemainder(dividingBy: 360)
            if angle < 0 { angle += 360 }
            let quarter = (angle / 90).rounded() * 90
            if abs(angle - quarter) < 1e-9 { angle = quarter }
            // -0.0, and the 360 a tiny negative angle wraps to, mean no rotation:
            // one spelling keeps the key stable.
            if angle == 0 || angle == 360 { angle = 0 }
            self.degrees = angle
            self.background = background
        }

        /// `rotate(deg=…,bg=#rrggbbaa)`, with the normalised angle.
        public var key: String { "rotate(deg=\(degrees),bg=\(background.hex))" }

        /// Returns the rotated image.
        ///
        /// - Throws: ``ImageError/transformFailed(key:reason:)`` for a non-finite
        ///   angle or a result over ``Image/maximumTransformPixelCount``;
        ///   `CancellationError` when the task is cancelled (checked every 64 rows
        ///   of an arbitrary-angle rotation).
        public func transform(_ image: Image) throws -> Image {
            guard degrees.isFinite else { throw ImageError.transformFailed(key: key, reason: "angle is not finite") }
            let image = image.uprightForTransform()
            // Quarter turns reuse the exact pixel walk of EXIF orientations.
            switch degrees {
            case 0: return image
            case 90: return image.with(orientation: .right).applyingOrientation()
            case 180: return image.with(orientation: .down).applyingOrientation()
            case 270: return image.with(orientation: .left).applyingOrientation()
            default: return try rotatedByAnyAngle(image)
            }
        }

        private func rotatedByAnyAngle(_ original: Image) throws -> Image {
            let radians = degrees * .pi / 180
            let (cosine, sine) = (cos(radians), sin(radians))
            let (w, h) = (Double(original.width), Double(original.height))
            // Trigonometric noise (1e-13) must not add a whole column.
            func side(_ exact: Double) -> Int { max(1, Int((exact - 1e-6).rounded(.up))) }
            let outWidth = side(abs(w * cosine) + abs(h * sine))
            let outHeight = side(abs(w * sine) + abs(h * cosine))
            try Image.checkTransformSize(width: outWidth, height: outHeight, key: key)

            let format = original.formatAccommodating(background)
            let image = original.converted(to: format)
            let geometry = Geometry(
                cosine: Float(cosine), sine: Float(sine),
                sourceWidth: image.width, sourceHeight: image.height, bytesPerRow: image.bytesPerRow,
                outWidth: outWidth, outHeight: outHeight
            )
            return try image.withUnsafeBytes { source in
                try Image.makeTransformed(like: image, width: outWidth, height: outHeight, pixelFormat: format) { destination in
                    switch format {
                    case .rgba8: try Self.sample(RGBA.self, source, destination, geometry, background)
                    case .rgb8: try Self.sample(RGB.self, source, destination, geometry, background)
                    case .grayAlpha8: try Self.sample(GrayAlpha.self, source, destination, geometry, background)
                    case .gray8: try Self.sample(Gray.self, source, destination, geometry, background)
                    }
                }
            }
        }

        /// Sizes and the inverse mapping from output to source pixels.
        private struct Geometry {
            let cosine: Float, sine: Float
            let sourceWidth: Int, sourceHeight: Int, bytesPerRow: Int
            let outWidth: Int, outHeight: Int
        }

        private static func sample<L: Layout>(
            _: L.Type, _ source: UnsafeRawBufferPointer, _ destination: UnsafeMutableRawBufferPointer,
            _ g: Geometry, _ background: ImageTransformers.Color
        ) throws {
            guard let src = source.baseAddress?.assumingMemoryBound(to: UInt8.self),
                  let dst = destination.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let channels = L.channels
            // The background as one pixel of the same layout: taps that fall
            // outside the image read it, which antialiases the edges for free.
            let backgroundPixel = background.components(in: L.format)
            try backgroundPixel.withUnsafeBufferPointer { backgroundBuffer in
                let bg = backgroundBuffer.baseAddress!
                let (sw, sh, stride) = (g.sourceWidth, g.sourceHeight, g.bytesPerRow)
                // Output pixel centre (x + ½, y + ½) relative to the output centre,
                // turned back by the angle, lands at (u, v) in source pixel-centre
                // coordinates; both move linearly along a row. Shifted by +1 so
                // that truncation is floor for every tap that can touch the image.
                let halfOutWidth = Float(g.outWidth) / 2, halfOutHeight = Float(g.outHeight) / 2
                let centreU = Float(sw) / 2 + 0.5, centreV = Float(sh) / 2 + 0.5
                let outRowBytes = g.outWidth * channels
                // Square tiles of output: the source rows a rotated tile reads
                // stay in cache, where whole output rows would sweep diagonally
                // across thousands of source rows.
                let tile = 64
                for tileY in Swift.stride(from: 0, to: g.outHeight, by: tile) {
                    try Task.checkCancellation()
                    for tileX in Swift.stride(from: 0, to: g.outWidth, by: tile) {
                        for y in tileY..<min(tileY + tile, g.outHeight) {
                            let dy = Float(y) + 0.5 - halfOutHeight
                            let dx0 = Float(tileX) + 0.5 - halfOutWidth
                            var u = dx0 * g.cosine + dy * g.sine + centreU
                            var v = -dx0 * g.sine + dy * g.cosine + centreV
                            var out = dst + y * outRowBytes + tileX * channels
                            for _ in tileX..<min(tileX + tile, g.outWidth) {
                                defer {
                                    out += channels
                                    u += g.cosine
                                    v -= g.sine
                                }
                                // (u, v) ≥ 0 here means the top-left tap is at column ≥ −1.
                                guard u >= 0, v >= 0 else { L.copy(bg, out); continue }
                                let xi = Int(u), yi = Int(v)
                                guard xi <= sw, yi <= sh else { L.copy(bg, out); continue }
                                // 8-bit fractions: weights in 16-bit fixed point that sum to exactly 65536.
                                let fx = Int32((u - Float(xi)) * 256), fy = Int32((v - Float(yi)) * 256)
                                let x0 = xi - 1, y0 = yi - 1
                                let p00, p10, p01, p11: UnsafePointer<UInt8>
                                if x0 >= 0 && y0 >= 0 && xi < sw && yi < sh {
                                    p00 = UnsafePointer(src + y0 * stride + x0 * channels)
                                    p10 = p00 + channels
                                    p01 = p00 + stride
                                    p11 = p01 + channels
                                } else {
                                    let inX0 = x0 >= 0, inX1 = xi < sw, inY0 = y0 >= 0, inY1 = yi < sh
                                    let row0 = src + max(y0, 0) * stride, row1 = src + min(yi, sh - 1) * stride
                                    p00 = inX0 && inY0 ? UnsafePointer(row0 + x0 * channels) : bg
                                    p10 = inX1 && inY0 ? UnsafePointer(row0 + xi * channels) : bg
                                    p01 = inX0 && inY1 ? UnsafePointer(row1 + x0 * channels) : bg
                                    p11 = inX1 && inY1 ? UnsafePointer(row1 + xi * channels) : bg
                                }
                                L.blend(p00, p10, p01, p11, (256 - fx) * (256 - fy), fx * (256 - fy), (256 - fx) * fy, fx * fy, out)
                            }
                        }
                    }
                }
            }
        }

        /// `value` (0…255) rounded to the nearest byte without the range checks
        /// of `UInt8(_:)`: adding 1.5 × 2²³ leaves the rounded integer in the low
        /// mantissa bits.
        @inline(__always)
        fileprivate static func roundedByte(_ value: Float) -> UInt8 {
            UInt8(truncatingIfNeeded: (min(value, 255) + 12_582_912).bitPattern)
        }

        // Channel layouts as types, so the sampling loop is specialised per
        // format with a constant channel count.
        fileprivate protocol Layout {
            static var format: PixelFormat { get }
            static var channels: Int { get }
            static var hasAlpha: Bool { get }
        }

        // Computed, not stored: a `static let` would be read through a lazy
        // global on every pixel instead of folding to a constant.
        fileprivate enum RGBA: Layout {
            static var format: PixelFormat { .rgba8 }
            static var channels: Int { 4 }
            static var hasAlpha: Bool { true }
        }

        fileprivate enum RGB: Layout {
            static var format: PixelFormat { .rgb8 }
            static var channels: Int { 3 }
            static var hasAlpha: Bool { false }
        }

        fileprivate enum GrayAlpha: Layout {
            static var format: PixelFormat { .grayAlpha8 }
            static var channels: Int { 2 }
            static var hasAlpha: Bool { true }
        }

        fileprivate enum Gray: Layout {
            static var format: PixelFormat { .gray8 }
            static var channels: Int { 1 }
            static var hasAlpha: Bool { false }
        }
    }
}

extension ImageTransformers.Rotate.Layout {
    @inline(__always)
    static func copy(_ pixel: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>) {
        for c in 0..<channels { out[c] = pixel[c] }
    }

    /// Writes the weighted sum of four pixels (weights sum to 65536); with
    /// alpha, colours are weighted by their alpha (premultiplied) and divided back.
    @inline(__always)
    static func blend(
        _ p00: UnsafePointer<UInt8>, _ p10: UnsafePointer<UInt8>, _ p01: UnsafePointer<UInt8>, _ p11: UnsafePointer<UInt8>,
        _ w00: Int32, _ w10: Int32, _ w01: Int32, _ w11: Int32, _ out: UnsafeMutablePointer<UInt8>
    ) {
        if hasAlpha {
            let a = channels - 1
            // Alpha-weighted weights: at most 65536 × 255, so sums fit in 32 bits.
            let e00 = w00 &* Int32(p00[a]), e10 = w10 &* Int32(p10[a])
            let e01 = w01 &* Int32(p01[a]), e11 = w11 &* Int32(p11[a])
            let alpha = e00 &+ e10 &+ e01 &+ e11
            out[a] = UInt8(truncatingIfNeeded: (alpha &+ 32768) >> 16)
            let scale: Float = alpha > 0 ? 1 / Float(alpha) : 0
            for c in 0..<a {
                // Colour × alpha-weight needs 40 bits.
                let sum = Int64(p00[c]) &* Int64(e00) &+ Int64(p10[c]) &* Int64(e10)
                    &+ Int64(p01[c]) &* Int64(e01) &+ Int64(p11[c]) &* Int64(e11)
                out[c] = ImageTransformers.Rotate.roundedByte(Float(sum) * scale)
            }
        } else {
            for c in 0..<channels {
                let sum = Int32(p00[c]) &* w00 &+ Int32(p10[c]) &* w10 &+ Int32(p01[c]) &* w01 &+ Int32(p11[c]) &* w11
                out[c] = UInt8(truncatingIfNeeded: (sum &+ 32768) >> 16)
            }
        }
    }
}

extension ImageTransformer where Self == ImageTransformers.Rotate {
    /// A clockwise rotation by `degrees`; see ``ImageTransformers/Rotate``.
    public static func rotate(degrees: Double, background: ImageTransformers.Color = .clear) -> ImageTransformers.Rotate {
        ImageTransformers.Rotate(degrees: degrees, background: background)
    }
}
