extension Image {
    /// The image turned upright: pixels rotated and mirrored by
    /// ``orientation``, which becomes `.up`. Returns `self` when already `.up`.
    ///
    /// - Complexity: O(width × height), one pass, no filtering (exact).
    public func applyingOrientation() -> Image {
        guard orientation != .up else { return self }
        let bpp = pixelFormat.bytesPerPixel
        let (w, h, bpr) = (width, height, bytesPerRow)
        // Each destination row is a straight walk through the source: start
        // at `origin + dy * rowStep` and advance `columnStep` per pixel.
        let (origin, columnStep, rowStep): (Int, Int, Int) = switch orientation {
        case .up: (0, bpp, bpr)
        case .upMirrored: ((w - 1) * bpp, -bpp, bpr)
        case .down: ((h - 1) * bpr + (w - 1) * bpp, -bpp, -bpr)
        case .downMirrored: ((h - 1) * bpr, bpp, -bpr)
        case .leftMirrored: (0, bpr, bpp)
        case .right: ((h - 1) * bpr, -bpr, bpp)
        case .rightMirrored: ((h - 1) * bpr + (w - 1) * bpp, -bpr, -bpp)
        case .left: ((w - 1) * bpp, bpr, -bpp)
        }
        let out = orientedSize
        return withUnsafeBytes { source in
            Image.make(width: out.width, height: out.height, pixelFormat: pixelFormat, orientation: .up, format: format, isPreview: isPreview) { destination in
                guard let src = source.baseAddress, let dst = destination.baseAddress else { return }
                let dstRowBytes = out.width * bpp
                for dy in 0..<out.height {
                    var s = origin + dy * rowStep
                    var d = dy * dstRowBytes
                    for _ in 0..<out.width {
                        switch bpp {
                        case 4: dst.storeBytes(of: src.loadUnaligned(fromByteOffset: s, as: UInt32.self), toByteOffset: d, as: UInt32.self)
                        case 3:
                            dst.storeBytes(of: src.loadUnaligned(fromByteOffset: s, as: UInt16.self), toByteOffset: d, as: UInt16.self)
                            dst.storeBytes(of: src.load(fromByteOffset: s + 2, as: UInt8.self), toByteOffset: d + 2, as: UInt8.self)
                        case 2: dst.storeBytes(of: src.loadUnaligned(fromByteOffset: s, as: UInt16.self), toByteOffset: d, as: UInt16.self)
                        default: dst.storeBytes(of: src.load(fromByteOffset: s, as: UInt8.self), toByteOffset: d, as: UInt8.self)
                        }
                        s += columnStep
                        d += bpp
                    }
                }
            }
        }
    }
}
