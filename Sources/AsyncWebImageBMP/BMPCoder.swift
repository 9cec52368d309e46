public import Foundation
public import AsyncWebImage

/// Windows bitmap (BMP) decoding, in Swift.
///
/// Reads the BMP variants browsers read: OS/2 core and 2.x and Windows
/// INFO/V4/V5 headers; 1, 2, 4 and 8 bits per pixel through the palette,
/// 16 and 32 with the default or the header's bit-field masks (alpha
/// included, narrow fields widened by repeating their bits, as browsers
/// do), 24; bottom-up and top-down rows; RLE8 and RLE4. The result
/// is ``PixelFormat/rgb8``, or ``PixelFormat/rgba8`` (straight alpha) when
/// alpha is real: a 32-bit pixel's fourth byte or an alpha mask counts
/// unless it is 0 in every pixel (writers that leave it unset), and
/// pixels a run-length bitmap skips are transparent, as browsers draw
/// them. A profile embedded in a V5 header is converted to sRGB like every
/// coder's (``ImageDecodingOptions/keepsColorProfile`` keeps it). Embedded
/// JPEG or PNG data (printer bitmaps) is refused.
///
/// A bitmap has no reduced form: a thumbnail (or scaled-down decode) is
/// the full decode resampled with the package's area filter.
///
/// Safety on hostile input: the headers are read and
/// ``ImageDecodingOptions/maxPixelCount`` and
/// ``ImageDecodingOptions/maxDecodeMemoryBytes`` (4 bytes a pixel) checked
/// before any pixel buffer exists; an uncompressed bitmap's data must be
/// all there before one is allocated (a file cut short fails with a
/// message starting "truncated"), and run-length data is decoded in time
/// linear in its bytes, each run cut at its row's end.
public struct BMPCoder: ImageDecoding {
    /// Creates the coder.
    public init() {}

    /// Whether `data` starts like a BMP file (`BM` and a known header size).
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .bmp }

    /// Decodes a BMP file, then applies the thumbnail and scale-down options.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` over the limits;
    ///   ``ImageError/undecodable(_:_:)`` for data that is not a bitmap this
    ///   coder reads, or is cut short.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        var profile: [UInt8]?
        var result = try data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) -> Image in
                let header = try BMPHeader(file: bytes)
                profile = header.iccProfile
                return try Self.decode(bytes, header: header, format: .bmp, options: options)
            }
        }.get()
        if let target = options.targetSize(forStored: result.size, orientation: .up) {
            result = ImageResampler.resample(result, to: target)
        }
        return ColorManager.manage(consume result, iccProfile: profile.map { Data($0) }, options: options)
    }

    /// The pixel size the headers declare, or `nil`.
    public func declaredSize(of data: Data) -> PixelSize? {
        data.withUnsafeBytes { bytes in
            (try? BMPHeader(file: bytes)).map { PixelSize(width: $0.width, height: $0.height) }
        }
    }

    /// Decodes the pixels `header` describes at full size, after checking the limits.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, header: BMPHeader, format: ImageFormat, options: ImageDecodingOptions
    ) throws(ImageError) -> Image {
        let size = PixelSize(width: header.width, height: header.height)
        try options.checkPixelLimit(size)
        try options.checkDecodeMemory(bytes: size.pixelCount * 4)
        let pixels = try BMPPixelDecoder(header: header, format: format).decode(bytes)
        return Self.image(pixels, size: size, format: format)
    }

    /// `pixels` as an image: RGBA when alpha is real, else RGB.
    static func image(_ pixels: BMPPixelDecoder.Pixels, size: PixelSize, format: ImageFormat) -> Image {
        if pixels.hasAlpha {
            return Image.make(width: size.width, height: size.height, pixelFormat: .rgba8, format: format) { out in
                pixels.rgba.withUnsafeBytes { out.copyMemory(from: $0) }
            }
        }
        return Image.make(width: size.width, height: size.height, pixelFormat: .rgb8, format: format) { out in
            pixels.rgba.withUnsafeBufferPointer { rgba in
                var o = 0
                for s in stride(from: 0, to: rgba.count, by: 4) {
                    out[o] = rgba[s]; out[o + 1] = rgba[s + 1]; out[o + 2] = rgba[s + 2]
                    o += 3
                }
            }
        }
    }
}
