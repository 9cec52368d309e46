import CTurboJPEG
import Foundation

extension JPEGCoder {
    /// The largest side JPEG can store.
    static let maximumSide = 65_535

    /// libjpeg's 1...100 quality for a 0...1 quality (NaN counts as 0.9).
    static func libjpegQuality(_ quality: Double) -> Int {
        let clamped = quality.isNaN ? 0.9 : min(1, max(0, quality))
        return 1 + Int((clamped * 99).rounded())
    }

    /// Encodes with tjCompress2; see ``encode(_:as:quality:)``.
    ///
    /// - Throws: only ``ImageError`` (untyped because `Image.withUnsafeBytes` rethrows).
    static func encodeImage(_ image: Image, quality: Double) throws -> Data {
        guard image.width <= maximumSide, image.height <= maximumSide else {
            throw ImageError.encodingFailed(.jpeg, "\(image.size) exceeds JPEG's \(maximumSide) pixels per side")
        }
        let handle = try TurboJPEGHandle(.compressor)
        let libjpegQuality = libjpegQuality(quality)
        var segments = image.orientation == .up ? [] : ExifOrientationReader.app1Segment(for: image.orientation)
        // A kept non-sRGB profile travels with the pixels; sRGB needs no marker.
        if let profile = image.iccProfile { segments += JPEGICCProfileReader.segments(for: profile) }
        let app1 = segments.isEmpty ? nil : segments
        let gray = image.pixelFormat.isGray
        let (tjFormat, subsampling) = gray ? (TJPF_GRAY, TJSAMP_GRAY) : (TJPF_RGB, TJSAMP_420)

        func compress(_ pixels: UnsafeRawBufferPointer, pitch: Int) throws(ImageError) -> Data {
            guard let base = pixels.baseAddress else { throw .encodingFailed(.jpeg, "no pixels") }
            // The accurate DCT, not TJFLAG_FASTDCT: on 256 px thumbnails at
            // q90 the fast one was no faster (tjbench: libjpeg-turbo's SIMD
            // accurate DCT is as quick) for 0.01–0.07 dB less PSNR.
            return try handle.compress(
                base, size: image.size, pitch: pitch, pixelFormat: tjFormat,
                subsampling: subsampling, quality: libjpegQuality
            ) { jpeg, count in
                guard let app1 else {
                    // Hand TurboJPEG's buffer to Data as it is: no copy.
                    let data = Data(bytesNoCopy: jpeg, count: count, deallocator: .custom { pointer, _ in tjFree(pointer.assumingMemoryBound(to: UInt8.self)) })
                    return (data, true)
                }
                return (insert(app1, into: UnsafeBufferPointer(start: jpeg, count: count)), false)
            }
        }

        switch image.pixelFormat {
        case .rgb8, .gray8:
            return try image.withUnsafeBytes { pixels in try compress(pixels, pitch: image.bytesPerRow) }
        case .rgba8, .grayAlpha8:
            let flat = flattenedOverWhite(image)
            return try flat.withUnsafeBytes { pixels in
                try compress(pixels, pitch: image.width * (gray ? 1 : 3))
            }
        }
    }

    /// The colour channels of an image with alpha composited over white,
    /// packed: `c·a/255 + 255·(1 − a/255)`, rounded.
    static func flattenedOverWhite(_ image: Image) -> [UInt8] {
        let channels = image.pixelFormat.channelCount - 1
        let rowBytes = image.width * channels
        return image.withUnsafeBytes { source in
            [UInt8](unsafeUninitializedCapacity: rowBytes * image.height) { output, initialized in
                for y in 0..<image.height {
                    var s = y * image.bytesPerRow
                    var d = y * rowBytes
                    for _ in 0..<image.width {
                        let alpha = UInt32(source[s + channels])
                        let white = 255 * (255 - alpha)
                        for c in 0..<channels {
                            output[d + c] = CMYKConverter.divideBy255Rounded(UInt32(source[s + c]) * alpha + white)
                        }
                        s += channels + 1
                        d += channels
                    }
                }
                initialized = rowBytes * image.height
            }
        }
    }

    /// `jpeg` with `segment` inserted after SOI and the JFIF APP0 segment, if
    /// any (JFIF wants APP0 first; readers find APP1 anywhere before the scan).
    static func insert(_ segment: [UInt8], into jpeg: UnsafeBufferPointer<UInt8>) -> Data {
        var at = 2
        if jpeg.count >= 6, jpeg[2] == 0xFF, jpeg[3] == 0xE0 {
            at = min(jpeg.count, 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])))
        }
        var data = Data(capacity: jpeg.count + segment.count)
        data.append(UnsafeBufferPointer(rebasing: jpeg[..<at]))
        data.append(contentsOf: segment)
        data.append(UnsafeBufferPointer(rebasing: jpeg[at...]))
        return data
    }
}
