extension ImageTransformers {
    /// Mirrors the image left to right, top to bottom, or both (SDWebImage's
    /// `SDImageFlippingTransformer`).
    ///
    /// Exact: pixels are moved, never filtered; the pixel format is kept.
    public struct Flip: ImageTransformer {
        /// Mirror left to right (the left column becomes the right one).
        public let horizontal: Bool
        /// Mirror top to bottom (the top row becomes the bottom one).
        public let vertical: Bool

        /// Creates a flip; with neither direction the image is returned as is.
        public init(horizontal: Bool, vertical: Bool) {
            self.horizontal = horizontal
            self.vertical = vertical
        }

        /// `flip(h=…,v=…)`.
        public var key: String { "flip(h=\(horizontal),v=\(vertical))" }

        /// Returns the mirrored image.
        public func transform(_ image: Image) throws -> Image {
            let image = image.uprightForTransform()
            guard horizontal || vertical else { return image }
            let bpp = image.pixelFormat.bytesPerPixel
            let (w, h, stride) = (image.width, image.height, image.bytesPerRow)
            let rowBytes = w * bpp
            let (horizontal, vertical) = (horizontal, vertical)
            return image.withUnsafeBytes { source in
                Image.makeTransformed(like: image, width: w, height: h, pixelFormat: image.pixelFormat) { destination in
                    guard let src = source.baseAddress, let dst = destination.baseAddress else { return }
                    for y in 0..<h {
                        let from = src + (vertical ? h - 1 - y : y) * stride
                        let to = dst + y * rowBytes
                        if horizontal {
                            Self.reverse(row: from, into: to, count: w, bytesPerPixel: bpp)
                        } else {
                            to.copyMemory(from: from, byteCount: rowBytes)
                        }
                    }
                }
            }
        }

        /// Writes the `count` pixels at `from` into `to` in reverse order.
        private static func reverse(row from: UnsafeRawPointer, into to: UnsafeMutableRawPointer, count: Int, bytesPerPixel: Int) {
            switch bytesPerPixel {
            case 4:
                for x in 0..<count {
                    to.storeBytes(of: from.loadUnaligned(fromByteOffset: (count - 1 - x) * 4, as: UInt32.self), toByteOffset: x * 4, as: UInt32.self)
                }
            case 2:
                for x in 0..<count {
                    to.storeBytes(of: from.loadUnaligned(fromByteOffset: (count - 1 - x) * 2, as: UInt16.self), toByteOffset: x * 2, as: UInt16.self)
                }
            case 1:
                let s = from.assumingMemoryBound(to: UInt8.self), d = to.assumingMemoryBound(to: UInt8.self)
                for x in 0..<count { d[x] = s[count - 1 - x] }
            default:
                let s = from.assumingMemoryBound(to: UInt8.self), d = to.assumingMemoryBound(to: UInt8.self)
                for x in 0..<count {
                    let i = (count - 1 - x) * bytesPerPixel, o = x * bytesPerPixel
                    for c in 0..<bytesPerPixel { d[o + c] = s[i + c] }
                }
            }
        }
    }
}

extension ImageTransformer where Self == ImageTransformers.Flip {
    /// A flip; see ``ImageTransformers/Flip``.
    public static func flip(horizontal: Bool = false, vertical: Bool = false) -> ImageTransformers.Flip {
        ImageTransformers.Flip(horizontal: horizontal, vertical: vertical)
    }
}
