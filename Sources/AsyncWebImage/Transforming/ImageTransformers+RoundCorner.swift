extension ImageTransformers {
    /// Rounds the corners of the image, optionally with a border along the
    /// rounded edge (SDWebImage's `SDImageRoundCornerTransformer`, Nuke's
    /// `ImageProcessors.RoundedCorners`).
    ///
    /// The result is always `rgba8` (other formats are converted first): pixels
    /// outside the rounded rectangle become transparent, and the edge is
    /// antialiased by the pixel's coverage. The border is drawn inside the
    /// edge, over the image, so the size does not change.
    public struct RoundCorner: ImageTransformer {
        /// Which corners to round.
        public struct Corners: OptionSet, Sendable, Hashable {
            /// The bits of the set.
            public let rawValue: UInt8
            /// Creates a set from its bits (1 top left, 2 top right, 4 bottom left, 8 bottom right).
            public init(rawValue: UInt8) { self.rawValue = rawValue }
            /// The top-left corner.
            public static let topLeft = Corners(rawValue: 1)
            /// The top-right corner.
            public static let topRight = Corners(rawValue: 2)
            /// The bottom-left corner.
            public static let bottomLeft = Corners(rawValue: 4)
            /// The bottom-right corner.
            public static let bottomRight = Corners(rawValue: 8)
            /// All four corners.
            public static let all: Corners = [.topLeft, .topRight, .bottomLeft, .bottomRight]
        }

        /// The corner radius in pixels; capped at half the shorter side, so a
        /// huge radius turns a square into a circle.
        public let radius: Double
        /// The corners that are rounded; the others stay square.
        public let corners: Corners
        /// The border's width in pixels (0, the default, for none).
        public let borderWidth: Double
        /// The border's colour.
        public let borderColor: ImageTransformers.Color

        /// Creates a corner rounding.
        public init(radius: Double, corners: Corners = .all, borderWidth: Double = 0, borderColor: ImageTransformers.Color = .black) {
            self.radius = radius
            self.corners = corners
            self.borderWidth = borderWidth
            self.borderColor = borderColor
        }

        /// `roundCorners(r=…,corners=…,border=…,color=#rrggbbaa)`; corners are the bits of ``Corners``.
        public var key: String {
            "roundCorners(r=\(radius),corners=\(corners.rawValue),border=\(borderWidth),color=\(borderColor.hex))"
        }

        /// Returns the `rgba8` image with rounded corners.
        ///
        /// - Throws: ``ImageError/transformFailed(key:reason:)`` for a negative
        ///   or non-finite radius or border width.
        public func transform(_ image: Image) throws -> Image {
            guard radius.isFinite, radius >= 0 else {
                throw ImageError.transformFailed(key: key, reason: "radius must be finite and at least 0")
            }
            guard borderWidth.isFinite, borderWidth >= 0 else {
                throw ImageError.transformFailed(key: key, reason: "border width must be finite and at least 0")
            }
            let image = image.uprightForTransform()
            let (w, h) = (image.width, image.height)
            let shape = Shape(
                width: Float(w), height: Float(h), radius: Float(min(radius, Double(min(w, h)) / 2)),
                corners: corners, border: Float(borderWidth)
            )
            let border = SIMD4(Float(borderColor.red), Float(borderColor.green), Float(borderColor.blue), 255) * (Float(borderColor.alpha) / 255)
            let borderAlpha = Float(borderColor.alpha) / 255
            let stride = image.bytesPerRow
            return image.withUnsafeBytes { source in
                Image.makeTransformed(like: image, width: w, height: h, pixelFormat: .rgba8) { destination in
                    guard let src = source.baseAddress, let dst = destination.baseAddress else { return }
                    let rowBytes = w * 4
                    for y in 0..<h {
                        let to = dst + y * rowBytes
                        // Converted straight into the output: no intermediate rgba8 image.
                        Image.convertRow(
                            (src + y * stride).assumingMemoryBound(to: UInt8.self), image.pixelFormat,
                            into: to.assumingMemoryBound(to: UInt8.self), .rgba8, count: w
                        )
                        let py = Float(y) + 0.5
                        // Only pixels near the edge change; find the untouched
                        // middle of the row from both ends.
                        var left = 0
                        while left < w, !shape.isUntouched(Float(left) + 0.5, py) {
                            Self.shade(to, left, shape.coverage(Float(left) + 0.5, py), border, borderAlpha)
                            left += 1
                        }
                        var right = w - 1
                        while right > left, !shape.isUntouched(Float(right) + 0.5, py) {
                            Self.shade(to, right, shape.coverage(Float(right) + 0.5, py), border, borderAlpha)
                            right -= 1
                        }
                    }
                }
            }
        }

        /// Applies the coverage (outer shape, border ring) to the pixel at column `x` of `row`.
        @inline(__always)
        private static func shade(
            _ row: UnsafeMutableRawPointer, _ x: Int, _ coverage: (shape: Float, ring: Float),
            _ border: SIMD4<Float>, _ borderAlpha: Float
        ) {
            let o = x * 4
            let p = SIMD4<Float>(SIMD4<UInt8>(
                row.load(fromByteOffset: o, as: UInt8.self), row.load(fromByteOffset: o + 1, as: UInt8.self),
                row.load(fromByteOffset: o + 2, as: UInt8.self), row.load(fromByteOffset: o + 3, as: UInt8.self)
            ))
            // Premultiplied: the image clipped to the shape, then the border over it.
            let alpha = p.w / 255
            var image = SIMD4(p.x * alpha, p.y * alpha, p.z * alpha, p.w) * coverage.shape
            image = border * coverage.ring + image * (1 - coverage.ring * borderAlpha)
            let outAlpha = image.w
            let scale: Float = outAlpha > 0.5 / 255 ? 255 / outAlpha : 0
            let straight = SIMD4(image.x * scale, image.y * scale, image.z * scale, outAlpha)
            let bytes = SIMD4<UInt8>(
                (straight + 0.5).clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 255)),
                rounding: .towardZero
            )
            row.storeBytes(of: bytes.x, toByteOffset: o, as: UInt8.self)
            row.storeBytes(of: bytes.y, toByteOffset: o + 1, as: UInt8.self)
            row.storeBytes(of: bytes.z, toByteOffset: o + 2, as: UInt8.self)
            row.storeBytes(of: bytes.w, toByteOffset: o + 3, as: UInt8.self)
        }

        /// The rounded rectangle as a signed distance field: negative inside,
        /// in pixels, so coverage is `½ − distance` clamped to 0…1.
        private struct Shape {
            let halfWidth: Float, halfHeight: Float
            let radius: Float, corners: Corners, border: Float

            init(width: Float, height: Float, radius: Float, corners: Corners, border: Float) {
                halfWidth = width / 2
                halfHeight = height / 2
                self.radius = radius
                self.corners = corners
                self.border = border
            }

            /// Distance from the point (pixel centre) to the edge.
            @inline(__always)
            func distance(_ x: Float, _ y: Float) -> Float {
                let left = x < halfWidth, top = y < halfHeight
                let corner: Corners = top ? (left ? .topLeft : .topRight) : (left ? .bottomLeft : .bottomRight)
                let r = corners.contains(corner) ? radius : 0
                let qx = abs(x - halfWidth) - (halfWidth - r)
                let qy = abs(y - halfHeight) - (halfHeight - r)
                let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
                return outside + min(max(qx, qy), 0) - r
            }

            /// Whether the pixel is fully inside the shape and clear of the border.
            @inline(__always)
            func isUntouched(_ x: Float, _ y: Float) -> Bool {
                distance(x, y) + border <= -0.5
            }

            /// How much of the pixel the shape covers, and how much of it is border.
            @inline(__always)
            func coverage(_ x: Float, _ y: Float) -> (shape: Float, ring: Float) {
                let d = distance(x, y)
                let shape = min(max(0.5 - d, 0), 1)
                guard border > 0 else { return (shape, 0) }
                let inner = min(max(0.5 - (d + border), 0), 1)
                return (shape, shape - inner)
            }
        }
    }
}

extension ImageTransformer where Self == ImageTransformers.RoundCorner {
    /// Rounded corners; see ``ImageTransformers/RoundCorner``.
    public static func roundCorners(
        radius: Double, corners: ImageTransformers.RoundCorner.Corners = .all,
        borderWidth: Double = 0, borderColor: ImageTransformers.Color = .black
    ) -> ImageTransformers.RoundCorner {
        ImageTransformers.RoundCorner(radius: radius, corners: corners, borderWidth: borderWidth, borderColor: borderColor)
    }
}
