import Foundation

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
/// opaque (so the default, ``TransformColor/clear``, gives `rgba8` or
/// `grayAlpha8`).
public struct RotateTransformer: ImageTransformer {
    /// The clockwise angle in degrees, normalised to `0..<360` (angles
    /// within 10⁻⁹° of a quarter turn are snapped to it).
    public let degrees: Double
    /// The colour of the canvas around the rotated image.
    public let background: TransformColor

    /// Creates a rotation by `degrees` clockwise (negative for counter-clockwise).
    public init(degrees: Double, background: TransformColor = .clear) {
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
    ///   angle or a result over ``Image/maximumTransformPixelCount``.
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
        return image.withUnsafeBytes { source in
            Image.makeTransformed(like: image, width: outWidth, height: outHeight, pixelFormat: format) { destination in
                switch format {
                case .rgba8: Self.sample(RGBA.self, source, destination, geometry, background)
                case .rgb8: Self.sample(RGB.self, source, destination, geometry, background)
                case .grayAlpha8: Self.sample(GrayAlpha.self, source, destination, geometry, background)
                case .gray8: Self.sample(Gray.self, source, destination, geometry, background)
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
        _ g: Geometry, _ background: TransformColor
    ) {
        guard let src = source.baseAddress, let dst = destination.baseAddress else { return }
        let bg = premultiplied(SIMD4(Float(background.red), Float(background.green), Float(background.blue), Float(background.alpha)), L.self)
        let (sw, sh) = (g.sourceWidth, g.sourceHeight)
        // Output pixel centre (x + ½, y + ½) relative to the output centre,
        // turned back by the angle, lands at (u, v) in source pixel-centre
        // coordinates; both move linearly along a row.
        let halfOut = (Float(g.outWidth) / 2, Float(g.outHeight) / 2)
        let halfSource = (Float(sw) / 2 - 0.5, Float(sh) / 2 - 0.5)
        let outRowBytes = g.outWidth * L.channels
        for y in 0..<g.outHeight {
            let dy = Float(y) + 0.5 - halfOut.1
            let dx0 = 0.5 - halfOut.0
            var u = dx0 * g.cosine + dy * g.sine + halfSource.0
            var v = -dx0 * g.sine + dy * g.cosine + halfSource.1
            var d = y * outRowBytes
            for _ in 0..<g.outWidth {
                let fu = u.rounded(.down), fv = v.rounded(.down)
                let x0 = Int(fu), y0 = Int(fv)
                let ax = u - fu, ay = v - fv
                let p00, p10, p01, p11: SIMD4<Float>
                if x0 >= 0 && y0 >= 0 && x0 + 1 < sw && y0 + 1 < sh {
                    let o = y0 * g.bytesPerRow + x0 * L.channels
                    p00 = premultiplied(L.load(src, o), L.self)
                    p10 = premultiplied(L.load(src, o + L.channels), L.self)
                    p01 = premultiplied(L.load(src, o + g.bytesPerRow), L.self)
                    p11 = premultiplied(L.load(src, o + g.bytesPerRow + L.channels), L.self)
                } else if x0 < -1 || y0 < -1 || x0 >= sw || y0 >= sh {
                    L.store(unpremultiplied(bg, L.self), dst, d)
                    d += L.channels
                    u += g.cosine
                    v -= g.sine
                    continue
                } else {
                    // On the border: taps outside the image see the background,
                    // which is what antialiases the edge.
                    func tap(_ x: Int, _ y: Int) -> SIMD4<Float> {
                        guard x >= 0, y >= 0, x < sw, y < sh else { return bg }
                        return premultiplied(L.load(src, y * g.bytesPerRow + x * L.channels), L.self)
                    }
                    p00 = tap(x0, y0)
                    p10 = tap(x0 + 1, y0)
                    p01 = tap(x0, y0 + 1)
                    p11 = tap(x0 + 1, y0 + 1)
                }
                let top = p00 + (p10 - p00) * ax
                let bottom = p01 + (p11 - p01) * ax
                L.store(unpremultiplied(top + (bottom - top) * ay, L.self), dst, d)
                d += L.channels
                u += g.cosine
                v -= g.sine
            }
        }
    }

    @inline(__always)
    private static func premultiplied<L: Layout>(_ p: SIMD4<Float>, _: L.Type) -> SIMD4<Float> {
        guard L.hasAlpha else { return p }
        let a = p.w * (1 / 255)
        return SIMD4(p.x * a, p.y * a, p.z * a, p.w)
    }

    @inline(__always)
    private static func unpremultiplied<L: Layout>(_ p: SIMD4<Float>, _: L.Type) -> SIMD4<Float> {
        guard L.hasAlpha else { return p }
        let scale: Float = p.w > 0.5 / 255 ? 255 / p.w : 0
        return SIMD4(p.x * scale, p.y * scale, p.z * scale, p.w)
    }

    // Channel layouts as types so the sampling loop is specialised per format.
    // Every layout maps to (red or gray, green, blue, alpha) lanes.
    private protocol Layout {
        static var channels: Int { get }
        static var hasAlpha: Bool { get }
        static func load(_ p: UnsafeRawPointer, _ offset: Int) -> SIMD4<Float>
        static func store(_ value: SIMD4<Float>, _ p: UnsafeMutableRawPointer, _ offset: Int)
    }

    private enum RGBA: Layout {
        static let channels = 4, hasAlpha = true
        @inline(__always) static func load(_ p: UnsafeRawPointer, _ o: Int) -> SIMD4<Float> {
            SIMD4(SIMD4<UInt8>(p.load(fromByteOffset: o, as: UInt8.self), p.load(fromByteOffset: o + 1, as: UInt8.self),
                               p.load(fromByteOffset: o + 2, as: UInt8.self), p.load(fromByteOffset: o + 3, as: UInt8.self)))
        }
        @inline(__always) static func store(_ v: SIMD4<Float>, _ p: UnsafeMutableRawPointer, _ o: Int) {
            let b = RotateTransformer.byte(v)
            p.storeBytes(of: b.x, toByteOffset: o, as: UInt8.self)
            p.storeBytes(of: b.y, toByteOffset: o + 1, as: UInt8.self)
            p.storeBytes(of: b.z, toByteOffset: o + 2, as: UInt8.self)
            p.storeBytes(of: b.w, toByteOffset: o + 3, as: UInt8.self)
        }
    }

    private enum RGB: Layout {
        static let channels = 3, hasAlpha = false
        @inline(__always) static func load(_ p: UnsafeRawPointer, _ o: Int) -> SIMD4<Float> {
            SIMD4(SIMD4<UInt8>(p.load(fromByteOffset: o, as: UInt8.self), p.load(fromByteOffset: o + 1, as: UInt8.self),
                               p.load(fromByteOffset: o + 2, as: UInt8.self), 255))
        }
        @inline(__always) static func store(_ v: SIMD4<Float>, _ p: UnsafeMutableRawPointer, _ o: Int) {
            let b = RotateTransformer.byte(v)
            p.storeBytes(of: b.x, toByteOffset: o, as: UInt8.self)
            p.storeBytes(of: b.y, toByteOffset: o + 1, as: UInt8.self)
            p.storeBytes(of: b.z, toByteOffset: o + 2, as: UInt8.self)
        }
    }

    private enum GrayAlpha: Layout {
        static let channels = 2, hasAlpha = true
        @inline(__always) static func load(_ p: UnsafeRawPointer, _ o: Int) -> SIMD4<Float> {
            SIMD4(Float(p.load(fromByteOffset: o, as: UInt8.self)), 0, 0, Float(p.load(fromByteOffset: o + 1, as: UInt8.self)))
        }
        @inline(__always) static func store(_ v: SIMD4<Float>, _ p: UnsafeMutableRawPointer, _ o: Int) {
            let b = RotateTransformer.byte(v)
            p.storeBytes(of: b.x, toByteOffset: o, as: UInt8.self)
            p.storeBytes(of: b.w, toByteOffset: o + 1, as: UInt8.self)
        }
    }

    private enum Gray: Layout {
        static let channels = 1, hasAlpha = false
        @inline(__always) static func load(_ p: UnsafeRawPointer, _ o: Int) -> SIMD4<Float> {
            SIMD4(Float(p.load(fromByteOffset: o, as: UInt8.self)), 0, 0, 255)
        }
        @inline(__always) static func store(_ v: SIMD4<Float>, _ p: UnsafeMutableRawPointer, _ o: Int) {
            p.storeBytes(of: RotateTransformer.byte(v).x, toByteOffset: o, as: UInt8.self)
        }
    }

    /// Rounds and clamps each lane to 0…255.
    @inline(__always)
    fileprivate static func byte(_ v: SIMD4<Float>) -> SIMD4<UInt8> {
        SIMD4<UInt8>((v + 0.5).clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 255)), rounding: .towardZero)
    }
}

extension ImageTransformer where Self == RotateTransformer {
    /// A clockwise rotation by `degrees`; see ``RotateTransformer``.
    public static func rotate(degrees: Double, background: TransformColor = .clear) -> RotateTransformer {
        RotateTransformer(degrees: degrees, background: background)
    }
}
