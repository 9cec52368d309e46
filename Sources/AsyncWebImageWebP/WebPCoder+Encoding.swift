public import Foundation
import CWebP
public import AsyncWebImage

extension WebPCoder {
    /// The largest side libwebp writes (`WEBP_MAX_DIMENSION`).
    static let maximumDimension = 16383

    /// Encodes `image` as WebP: lossy at `quality` (0...1, as `cwebp -q`
    /// 0...100), or lossless when ``lossless`` is set (then `quality` is the
    /// effort, and the RGB of fully transparent pixels is kept exactly).
    /// Alpha is kept; grey images are written as RGB, WebP having no grey
    /// mode. An orientation other than `.up` is written as an EXIF chunk, so
    /// decoding gives back the same image.
    ///
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` for a format other than
    ///   `.webp`, a side over 16383 pixels, or when libwebp fails.
    public func encode(_ image: Image, as format: ImageFormat, quality: Double) throws -> Data {
        guard format == .webp else { throw ImageError.encodingFailed(format, "WebPCoder only writes WebP") }
        guard image.width <= Self.maximumDimension, image.height <= Self.maximumDimension else {
            throw ImageError.encodingFailed(.webp, "\(image.size) is over WebP's \(Self.maximumDimension) pixels a side")
        }
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw ImageError.encodingFailed(.webp, "libwebp version mismatch") }
        config.lossless = lossless ? 1 : 0
        config.quality = Float(min(max(quality, 0), 1) * 100)
        config.method = Int32(method)
        config.exact = lossless ? 1 : 0
        guard WebPValidateConfig(&config) != 0 else { throw ImageError.encodingFailed(.webp, "invalid configuration") }

        let source = image.pixelFormat.isGray ? Self.expandedGray(image) : image
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw ImageError.encodingFailed(.webp, "libwebp version mismatch") }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(source.width)
        picture.height = Int32(source.height)
        picture.use_argb = lossless ? 1 : 0
        let imported = source.withUnsafeBytes { pixels -> Int32 in
            let rgb = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self)
            let stride = Int32(source.bytesPerRow)
            return source.pixelFormat == .rgba8
                ? WebPPictureImportRGBA(&picture, rgb, stride)
                : WebPPictureImportRGB(&picture, rgb, stride)
        }
        guard imported != 0 else { throw ImageError.encodingFailed(.webp, "cannot import the pixels (out of memory)") }

        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let encoded = withUnsafeMutablePointer(to: &writer) { writerPointer -> Int32 in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0, let memory = writer.mem else {
            throw ImageError.encodingFailed(.webp, "libwebp encoder error \(picture.error_code.rawValue)")
        }
        let bitstream = Data(bytes: memory, count: writer.size)
        guard image.orientation != .up else { return bitstream }
        return try Self.addingEXIF(for: image.orientation, to: bitstream)
    }

    /// The same image with an EXIF chunk holding `orientation` (via libwebpmux).
    private static func addingEXIF(for orientation: Image.Orientation, to webp: Data) throws -> Data {
        // The APP1 segment without its marker, length and "Exif\0\0": the TIFF structure.
        let tiff = Array(ExifOrientationReader.app1Segment(for: orientation).dropFirst(10))
        guard let mux = WebPMuxNew() else { throw ImageError.encodingFailed(.webp, "cannot create a WebP muxer") }
        defer { WebPMuxDelete(mux) }
        var output = WebPData()
        defer { WebPDataClear(&output) }
        let status = webp.withUnsafeBytes { image in
            tiff.withUnsafeBytes { exif in
                var imageData = WebPData(bytes: image.baseAddress?.assumingMemoryBound(to: UInt8.self), size: image.count)
                var exifData = WebPData(bytes: exif.baseAddress?.assumingMemoryBound(to: UInt8.self), size: exif.count)
                // copy_data = 1: the muxer keeps its own copies beyond these closures.
                var status = WebPMuxSetImage(mux, &imageData, 1)
                if status == WEBP_MUX_OK { status = WebPMuxSetChunk(mux, "EXIF", &exifData, 1) }
                if status == WEBP_MUX_OK { status = WebPMuxAssemble(mux, &output) }
                return status
            }
        }
        guard status == WEBP_MUX_OK, let bytes = output.bytes else {
            throw ImageError.encodingFailed(.webp, "libwebpmux error \(status.rawValue)")
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// A grey image as RGB (or RGBA), WebP having no grey mode.
    private static func expandedGray(_ image: Image) -> Image {
        let hasAlpha = image.pixelFormat.hasAlpha
        return image.withUnsafeBytes { source in
            Image.make(width: image.width, height: image.height, pixelFormat: hasAlpha ? .rgba8 : .rgb8,
                       orientation: image.orientation, format: image.format) { pixels in
                let outBytes = hasAlpha ? 4 : 3, inBytes = hasAlpha ? 2 : 1
                var out = 0
                for row in 0..<image.height {
                    var index = row * image.bytesPerRow
                    for _ in 0..<image.width {
                        let gray = source[index]
                        pixels[out] = gray
                        pixels[out + 1] = gray
                        pixels[out + 2] = gray
                        if hasAlpha { pixels[out + 3] = source[index + 1] }
                        out += outBytes
                        index += inBytes
                    }
                }
            }
        }
    }
}
