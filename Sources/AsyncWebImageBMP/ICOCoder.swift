public import Foundation
public import AsyncWebImage

/// ICO and CUR (Windows icon and cursor) decoding, in Swift.
///
/// An icon holds several images of one picture at different sizes and
/// depths, each a PNG or a headerless bitmap. A full decode gives the
/// largest (the deepest of equal size); a thumbnail or scaled-down decode
/// picks the smallest image that covers the target size on both sides
/// (else the largest) and resamples it, so a 32 px favicon request never
/// decodes the 256 px image. PNG images decode through ``PNGCoder``,
/// bitmaps as ``BMPCoder`` decodes them, with the AND mask applied as
/// transparency (a 32-bit bitmap with real alpha uses its alpha instead,
/// as Windows does). The result is ``PixelFormat/rgba8`` when anything is
/// transparent, else ``PixelFormat/rgb8``.
///
/// Safety on hostile input: at most 256 directory entries (the format's
/// own field is 16-bit; detection refuses more), each image's bytes must
/// lie in the data (a cut file keeps the images that arrived whole), and
/// the chosen image's header is checked against
/// ``ImageDecodingOptions/maxPixelCount`` and
/// ``ImageDecodingOptions/maxDecodeMemoryBytes`` before any pixel buffer.
public struct ICOCoder: ImageDecoding {
    /// Creates the coder.
    public init() {}

    /// Whether `data` starts with an ICO or CUR directory.
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .ico }

    /// Decodes the image that suits the options (see the type's discussion).
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` over the limits;
    ///   ``ImageError/undecodable(_:_:)`` for a broken directory or image.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        let directory = try data.withUnsafeBytes { bytes throws(ImageError) in try ICODirectory(bytes) }
        let largest = directory.largest
        let target = options.targetSize(forStored: PixelSize(width: largest.width, height: largest.height), orientation: .up)
        let entry = directory.best(covering: target)
        let bytes = data.subdata(in: (data.startIndex + entry.range.lowerBound)..<(data.startIndex + entry.range.upperBound))
        var image: Image
        if ImageFormat.detect(bytes) == .png {
            // PNGCoder makes the thumbnail itself, shrinking while it decodes.
            image = try PNGCoder().decode(bytes, options: options)
        } else {
            image = try bytes.withUnsafeBytes { bytes throws(ImageError) in try Self.decodeBitmap(bytes, options: options) }
            if let size = options.targetSize(forStored: image.size, orientation: .up), size != image.size {
                image = ImageResampler.resample(image, to: size)
            }
        }
        image = image.with(format: .ico)
        return image
    }

    /// The largest image's declared size.
    public func declaredSize(of data: Data) -> PixelSize? {
        data.withUnsafeBytes { bytes in
            (try? ICODirectory(bytes)).map { PixelSize(width: $0.largest.width, height: $0.largest.height) }
        }
    }

    /// A headerless bitmap: its colours, then its AND mask as transparency.
    static func decodeBitmap(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws(ImageError) -> Image {
        let header = try BMPHeader(dib: bytes, at: 0, pixelOffset: nil, format: .ico, heightIsDoubled: true)
        let size = PixelSize(width: header.width, height: header.height)
        try options.checkPixelLimit(size)
        try options.checkDecodeMemory(bytes: size.pixelCount * 4)
        var pixels = try BMPPixelDecoder(header: header, format: .ico).decode(bytes)
        if !pixels.hasAlpha {
            // The AND mask follows the colours: 1 bit a pixel, rows padded to 4 bytes, bottom-up.
            let maskRowBytes = (header.width + 31) / 32 * 4
            let start = header.pixelOffset + header.rowBytes * header.height
            if start + maskRowBytes * header.height <= bytes.count {
                for row in 0..<header.height {
                    let y = header.isTopDown ? row : header.height - 1 - row
                    for x in 0..<header.width where bytes[start + row * maskRowBytes + x / 8] & (0x80 >> (x % 8)) != 0 {
                        let o = (y * header.width + x) * 4
                        pixels.rgba[o] = 0; pixels.rgba[o + 1] = 0; pixels.rgba[o + 2] = 0; pixels.rgba[o + 3] = 0
                        pixels.hasAlpha = true
                    }
                }
            }
        }
        return BMPCoder.image(pixels, size: size, format: .ico)
    }
}
