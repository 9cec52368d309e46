public import Foundation
import CGif
import CImageQuant
public import AsyncWebImage

/// Writes animated GIF with giflib, each frame's palette chosen by
/// libimagequant (pngquant's quantiser: a modified median cut refined by
/// k-means, with Floyd–Steinberg dithering).
///
/// Every frame gets its own palette of up to 256 colours (a local colour
/// table) and covers the whole canvas, with disposal method 2 (restore to
/// background), so a frame's transparent pixels show what viewers put
/// behind the animation, never the frame before, as in the source canvases.
/// GIF has one-bit transparency: pixels under half opaque become the
/// transparent index, the others opaque. Frame times are stored in
/// hundredths of a second (rounded). The loop count is a number of plays,
/// as ``AnimatedImage/Info/loopCount``; the `NETSCAPE2.0` extension stores the
/// repeats after the first play, so it holds `loopCount - 1`, 0 for
/// forever, and is left out for a single play (as ImageMagick writes
/// `-loop N` and as browsers read it).
public struct AnimatedGIFEncoder: AnimatedImageEncoding {
    /// 0...1: libimagequant's target quality (its `max` of 0...100); lower
    /// allows fewer colours. 1 by default.
    public var quality: Double
    /// 0...1: how much Floyd–Steinberg dithering spreads the quantisation
    /// error (0 maps each pixel to its nearest colour). 1 by default.
    public var dithering: Double

    /// Creates the encoder.
    ///
    /// - Parameters:
    ///   - quality: 0...1 (clamped); 1 by default.
    ///   - dithering: 0...1 (clamped); 1 by default.
    public init(quality: Double = 1, dithering: Double = 1) {
        self.quality = min(max(quality, 0), 1)
        self.dithering = min(max(dithering, 0), 1)
    }

    /// `.gif`.
    public var animationFormat: ImageFormat { .gif }

    /// Encodes the frames as one animated GIF.
    ///
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` without frames, for
    ///   frames of different sizes or over 65535 pixels a side, or when
    ///   giflib or libimagequant fails.
    public func encodeAnimation(loopCount: Int, nextFrame: () throws -> (image: Image, duration: Duration)?) throws -> Data {
        guard let first = try nextFrame() else { throw ImageError.encodingFailed(.gif, "an animation needs a frame") }
        let width = first.image.width, height = first.image.height
        guard width <= 65535, height <= 65535 else {
            throw ImageError.encodingFailed(.gif, "\(first.image.size) is over GIF's 65535 pixels a side")
        }
        let writer = try GIFWriter(width: width, height: height, loopCount: loopCount)
        var frame: (image: Image, duration: Duration)? = first
        while let current = frame {
            guard current.image.width == width, current.image.height == height else {
                throw ImageError.encodingFailed(.gif, "a frame of \(current.image.size) in an animation of \(first.image.size)")
            }
            let indexed = try quantize(current.image)
            let hundredths = min((current.duration.roundedMilliseconds + 5) / 10, 65535)
            try writer.addFrame(indexed, delay: hundredths)
            frame = try nextFrame()
        }
        return try writer.finish()
    }

    /// A frame reduced to a palette and one index per pixel.
    struct IndexedFrame {
        var palette: [GifColorType]
        var transparentIndex: Int?
        var indices: [UInt8]
    }

    /// Quantises `image` with libimagequant (RGBA in, up to 256 colours out).
    private func quantize(_ image: Image) throws -> IndexedFrame {
        let rgba = image.pixelFormat == .rgba8 ? image : image.converted(to: .rgba8)
        guard let attr = liq_attr_create() else { throw ImageError.encodingFailed(.gif, "libimagequant: out of memory") }
        defer { liq_attr_destroy(attr) }
        guard liq_set_quality(attr, 0, Int32((quality * 100).rounded())) == LIQ_OK else {
            throw ImageError.encodingFailed(.gif, "libimagequant refused the quality")
        }
        return try rgba.withUnsafeBytes { pixels throws -> IndexedFrame in
            guard let base = pixels.baseAddress else { throw ImageError.encodingFailed(.gif, "no pixels") }
            // libimagequant only reads the rows; its API is not const-correct.
            var rows = (0..<rgba.height).map { UnsafeMutableRawPointer(mutating: base + $0 * rgba.bytesPerRow) as UnsafeMutableRawPointer? }
            let liqImage = rows.withUnsafeMutableBufferPointer {
                liq_image_create_rgba_rows(attr, $0.baseAddress!, Int32(rgba.width), Int32(rgba.height), 0)
            }
            guard let liqImage else { throw ImageError.encodingFailed(.gif, "libimagequant refused the image") }
            defer { liq_image_destroy(liqImage) }
            var result: OpaquePointer?
            guard liq_image_quantize(liqImage, attr, &result) == LIQ_OK, let result else {
                throw ImageError.encodingFailed(.gif, "libimagequant could not quantise a frame")
            }
            defer { liq_result_destroy(result) }
            liq_set_dithering_level(result, Float(dithering))
            var indices = [UInt8](repeating: 0, count: rgba.width * rgba.height)
            let remapped = indices.withUnsafeMutableBytes {
                liq_write_remapped_image(result, liqImage, $0.baseAddress!, $0.count)
            }
            guard remapped == LIQ_OK, let palettePointer = liq_get_palette(result) else {
                throw ImageError.encodingFailed(.gif, "libimagequant could not remap a frame")
            }
            let liqPalette = palettePointer.pointee
            let count = Int(liqPalette.count)
            var palette: [GifColorType] = []
            var transparent: Int?
            var isTransparent = [Bool](repeating: false, count: 256)
            withUnsafeBytes(of: liqPalette.entries) { raw in
                let entries = raw.bindMemory(to: liq_color.self)
                for index in 0..<count {
                    let color = entries[index]
                    palette.append(GifColorType(Red: color.r, Green: color.g, Blue: color.b))
                    if color.a < 128 {
                        isTransparent[index] = true
                        if transparent == nil { transparent = index }
                    }
                }
            }
            // One transparent index: every entry under half opaque maps to it.
            if let transparent, isTransparent.filter({ $0 }).count > 1 {
                for position in indices.indices where isTransparent[Int(indices[position])] {
                    indices[position] = UInt8(transparent)
                }
            }
            return IndexedFrame(palette: palette, transparentIndex: transparent, indices: indices)
        }
    }
}

/// giflib's encoder writing into memory.
private final class GIFWriter {
    private var file: UnsafeMutablePointer<GifFileType>?
    private let output = Output()
    private let width: Int
    private let height: Int

    /// Where giflib's output function appends.
    final class Output {
        var data = Data()
    }

    /// Opens the stream and writes the screen descriptor and loop extension.
    init(width: Int, height: Int, loopCount: Int) throws {
        self.width = width
        self.height = height
        var error: Int32 = 0
        file = EGifOpen(Unmanaged.passUnretained(output).toOpaque(), { file, bytes, count in
            guard let file, let bytes, let user = file.pointee.UserData else { return 0 }
            Unmanaged<Output>.fromOpaque(user).takeUnretainedValue().data.append(bytes, count: Int(count))
            return count
        }, &error)
        guard let file else { throw ImageError.encodingFailed(.gif, "giflib could not start (error \(error))") }
        EGifSetGifVersion(file, true)
        try check(EGifPutScreenDesc(file, Int32(width), Int32(height), 8, 0, nil))
        guard loopCount != 1 else { return }
        let loops = loopCount <= 0 ? 0 : min(loopCount - 1, 65535)
        var netscape = Array("NETSCAPE2.0".utf8)
        var loopBlock: [UInt8] = [1, UInt8(loops & 0xFF), UInt8(loops >> 8)]
        try check(EGifPutExtensionLeader(file, APPLICATION_EXT_FUNC_CODE))
        try check(EGifPutExtensionBlock(file, 11, &netscape))
        try check(EGifPutExtensionBlock(file, 3, &loopBlock))
        try check(EGifPutExtensionTrailer(file))
    }

    deinit {
        if let file {
            var error: Int32 = 0
            EGifCloseFile(file, &error)
        }
    }

    /// Writes a graphic control extension and a full-canvas image with a local colour table.
    func addFrame(_ frame: AnimatedGIFEncoder.IndexedFrame, delay: Int) throws {
        guard let file else { throw ImageError.encodingFailed(.gif, "the GIF is closed") }
        // Disposal 2 (restore to background), transparency flag, delay, index.
        var control: [UInt8] = [
            UInt8(2 << 2) | (frame.transparentIndex == nil ? 0 : 1),
            UInt8(delay & 0xFF), UInt8(delay >> 8), UInt8(frame.transparentIndex ?? 0),
        ]
        try check(EGifPutExtension(file, GRAPHICS_EXT_FUNC_CODE, 4, &control))
        // giflib wants a power-of-two table of at least 2 entries.
        var size = 2
        while size < frame.palette.count { size *= 2 }
        var colors = frame.palette + Array(repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size - frame.palette.count)
        guard let map = GifMakeMapObject(Int32(size), &colors) else { throw ImageError.encodingFailed(.gif, "giflib: out of memory") }
        defer { GifFreeMapObject(map) }
        try check(EGifPutImageDesc(file, 0, 0, Int32(width), Int32(height), false, map))
        var indices = frame.indices
        try indices.withUnsafeMutableBufferPointer { pixels in
            for row in 0..<height {
                try check(EGifPutLine(file, pixels.baseAddress! + row * width, Int32(width)))
            }
        }
    }

    /// Writes the trailer and returns the file.
    func finish() throws -> Data {
        guard let file else { throw ImageError.encodingFailed(.gif, "the GIF is closed") }
        self.file = nil
        var error: Int32 = 0
        guard EGifCloseFile(file, &error) == GIF_OK else { throw ImageError.encodingFailed(.gif, "giflib error \(error)") }
        return output.data
    }

    private func check(_ status: Int32) throws {
        guard status == GIF_OK else {
            throw ImageError.encodingFailed(.gif, "giflib error \(file?.pointee.Error ?? 0)")
        }
    }
}
