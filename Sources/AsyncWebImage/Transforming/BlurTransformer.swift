/// Gaussian blur (SDWebImage's `SDImageBlurTransformer`, Nuke's
/// `ImageProcessors.GaussianBlur`).
///
/// ``radius`` is the Gaussian's standard deviation σ in pixels, as in Core
/// Image's `CIGaussianBlur`. The Gaussian is approximated by three
/// successive box blurs per axis (sizes chosen for σ, after Kutskir), each a
/// running sum, so the cost per pixel does not depend on the radius. Edges
/// repeat the border pixels. Images with alpha are blurred premultiplied in
/// 16 bits per channel, so transparent pixels lend no colour and faint
/// pixels keep their hue; opaque images are blurred in 8 bits. The pixel
/// format is kept.
public struct BlurTransformer: ImageTransformer {
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
    ///   that is negative, not finite or above ``maximumRadius``.
    public func transform(_ image: Image) throws -> Image {
        guard radius.isFinite, radius >= 0, radius <= Self.maximumRadius else {
            throw ImageError.transformFailed(key: key, reason: "radius must be in 0...\(Self.maximumRadius)")
        }
        let image = image.uprightForTransform()
        let radii = Self.boxRadii(sigma: radius)
        guard radii.contains(where: { $0 > 0 }) else { return image }
        let (w, h, stride) = (image.width, image.height, image.bytesPerRow)
        let channels = image.pixelFormat.channelCount
        let count = w * h * channels
        if image.pixelFormat.hasAlpha {
            var planes = [UInt16](repeating: 0, count: count * 2)
            return planes.withUnsafeMutableBufferPointer { buffer in
                let a = UnsafeMutableBufferPointer(rebasing: buffer[0..<count])
                let b = UnsafeMutableBufferPointer(rebasing: buffer[count...])
                image.withUnsafeBytes { Self.premultiply($0, stride, into: a, w, h, channels) }
                Self.blur(a, b, w, h, channels, radii)
                return Image.makeTransformed(like: image, width: w, height: h, pixelFormat: image.pixelFormat) {
                    Self.unpremultiply(a, into: $0.bindMemory(to: UInt8.self), channels)
                }
            }
        }
        var temporary = [UInt8](repeating: 0, count: count)
        return temporary.withUnsafeMutableBufferPointer { b in
            Image.makeTransformed(like: image, width: w, height: h, pixelFormat: image.pixelFormat) { destination in
                let a = destination.bindMemory(to: UInt8.self)
                image.withUnsafeBytes { source in
                    let rowBytes = w * channels
                    for y in 0..<h {
                        UnsafeMutableRawBufferPointer(rebasing: destination[(y * rowBytes)..<((y + 1) * rowBytes)])
                            .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[(y * stride)..<(y * stride + rowBytes)]))
                    }
                }
                Self.blur(a, b, w, h, channels, radii)
            }
        }
    }

    /// Radii of the three boxes whose succession best approximates a
    /// Gaussian of standard deviation `sigma` (Kutskir's box sizes).
    static func boxRadii(sigma: Double) -> [Int] {
        let passes = 3.0
        let ideal = (12 * sigma * sigma / passes + 1).squareRoot()
        var lower = Int(ideal.rounded(.down))
        if lower % 2 == 0 { lower -= 1 }
        let l = Double(lower)
        let lowerCount = Int(((12 * sigma * sigma - passes * l * l - 4 * passes * l - 3 * passes) / (-4 * l - 4)).rounded())
        return (0..<3).map { ($0 < lowerCount ? lower : lower + 2) / 2 }
    }

    /// Three horizontal then three vertical box passes; the result ends in `a`.
    private static func blur<T: FixedWidthInteger & UnsignedInteger>(
        _ a: UnsafeMutableBufferPointer<T>, _ b: UnsafeMutableBufferPointer<T>,
        _ w: Int, _ h: Int, _ channels: Int, _ radii: [Int]
    ) {
        horizontal(a, into: b, w, h, channels, radii[0])
        horizontal(b, into: a, w, h, channels, radii[1])
        horizontal(a, into: b, w, h, channels, radii[2])
        vertical(b, into: a, w, h, channels, radii[0])
        vertical(a, into: b, w, h, channels, radii[1])
        vertical(b, into: a, w, h, channels, radii[2])
    }

    /// Fixed-point reciprocal of a box size: `(sum × inverse + half) >> 24` divides by it.
    @inline(__always)
    private static func reciprocal(_ size: Int) -> Int { ((1 << 24) + size / 2) / size }

    /// A box of radius `r` along each row, for each channel, with a running sum.
    private static func horizontal<T: FixedWidthInteger & UnsignedInteger>(
        _ src: UnsafeMutableBufferPointer<T>, into dst: UnsafeMutableBufferPointer<T>,
        _ w: Int, _ h: Int, _ channels: Int, _ r: Int
    ) {
        let inverse = reciprocal(2 * r + 1)
        let last = w - 1
        for y in 0..<h {
            let row = y * w * channels
            for c in 0..<channels {
                let base = row + c
                @inline(__always) func at(_ x: Int) -> Int { Int(src[base + x * channels]) }
                var sum = at(0) * (r + 1)
                if r > 0 { for k in 1...r { sum += at(min(k, last)) } }
                for x in 0..<w {
                    dst[base + x * channels] = T(truncatingIfNeeded: (sum * inverse + (1 << 23)) >> 24)
                    sum += at(min(x + r + 1, last)) - at(max(x - r, 0))
                }
            }
        }
    }

    /// A box of radius `r` down each column, all columns at once with a row of
    /// running sums, so memory is read row by row.
    private static func vertical<T: FixedWidthInteger & UnsignedInteger>(
        _ src: UnsafeMutableBufferPointer<T>, into dst: UnsafeMutableBufferPointer<T>,
        _ w: Int, _ h: Int, _ channels: Int, _ r: Int
    ) {
        let inverse = reciprocal(2 * r + 1)
        let rowLength = w * channels
        let last = h - 1
        var sums = [Int](repeating: 0, count: rowLength)
        sums.withUnsafeMutableBufferPointer { sums in
            for i in 0..<rowLength { sums[i] = Int(src[i]) * (r + 1) }
            if r > 0 {
                for k in 1...r {
                    let row = min(k, last) * rowLength
                    for i in 0..<rowLength { sums[i] += Int(src[row + i]) }
                }
            }
            for y in 0..<h {
                let out = y * rowLength
                let incoming = min(y + r + 1, last) * rowLength
                let outgoing = max(y - r, 0) * rowLength
                for i in 0..<rowLength {
                    let sum = sums[i]
                    dst[out + i] = T(truncatingIfNeeded: (sum * inverse + (1 << 23)) >> 24)
                    sums[i] = sum + Int(src[incoming + i]) - Int(src[outgoing + i])
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
                for c in 0..<(channels - 1) { planes[d + c] = UInt16(src[s + c]) * alpha }
                planes[d + channels - 1] = alpha * 255
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
            let alpha = Int(planes[i + channels - 1])
            if alpha == 0 {
                for c in 0..<channels { out[i + c] = 0 }
            } else {
                for c in 0..<(channels - 1) {
                    out[i + c] = UInt8(min(255, (Int(planes[i + c]) * 255 + alpha / 2) / alpha))
                }
                out[i + channels - 1] = UInt8((alpha + 127) / 255)
            }
            i += channels
        }
    }
}

extension ImageTransformer where Self == BlurTransformer {
    /// A Gaussian blur of standard deviation `radius`; see ``BlurTransformer``.
    public static func blur(radius: Double) -> BlurTransformer {
        BlurTransformer(radius: radius)
    }
}
