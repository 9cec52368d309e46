import CTiff
public import Foundation
public import AsyncWebImage

/// TIFF decoding on libtiff: the first page as a still image, every page
/// as the frames of an ``AnimatedImage``.
///
/// Strips and tiles, interleaved or in separate planes, 8 and 16 bits a
/// sample (16 rounded to 8 as ImageMagick rounds RGB samples), grey, RGB,
/// palette and CMYK with or without an alpha sample are converted by the
/// coder itself, bit-exact with ImageMagick except within ±1 for 16-bit
/// grey (which ImageMagick truncates) and 16-bit associated alpha (divided
/// out at 16 bits, before narrowing); CMYK as a CMYK JPEG is (the page's
/// profile, else the naive formula). Classic TIFF and BigTIFF alike. Every
/// other layout libtiff reads (bilevel, YCbCr and JPEG-in-TIFF, LogLuv…)
/// goes through libtiff's RGBA interface. The result is ``PixelFormat/gray8``, ``PixelFormat/grayAlpha8``,
/// ``PixelFormat/rgb8`` or ``PixelFormat/rgba8`` (straight alpha; associated
/// alpha is un-premultiplied). The `Orientation` tag becomes
/// ``Image/orientation``, as a JPEG's EXIF does; an embedded ICC profile
/// is converted to sRGB like every coder's (a CMYK page's converts its
/// samples to RGB, as for CMYK JPEGs).
///
/// ## Thumbnails
/// A TIFF may carry reduced-resolution copies of a page (`NewSubfileType`
/// bit 0, in the main chain after the page or in its SubIFDs, as pyramid
/// and camera files do). A thumbnail or scaled-down decode reads the
/// smallest copy that still covers the target and resamples it; without
/// one, the page itself. Either way the rows are read a strip (or a row of
/// tiles) at a time and resampled as they come, so only the strips or
/// tiles of the image read are decoded and no full-size image is held.
///
/// Safety on hostile input: the first page's declared size is checked
/// against ``ImageDecodingOptions/maxPixelCount``, and what the decode
/// allocates (output, one strip or tile row, resampling buffers) against
/// ``ImageDecodingOptions/maxDecodeMemoryBytes``, before any pixel buffer;
/// libtiff itself refuses any single allocation over that budget
/// (`TIFFOpenOptionsSetMaxSingleMemAlloc`), so a strip that claims to
/// inflate past it fails instead of allocating. libtiff's errors are
/// ``ImageError/undecodable(_:_:)`` with its message (starting "truncated"
/// when it read past the data); its warnings are ignored and it prints nothing.
public struct TIFFCoder: ImageDecoding, AnimatedImageDecoding {
    /// Creates the coder.
    public init() {}

    /// Whether `data` starts with a TIFF or BigTIFF header (`II*\0`, `MM\0*`, `II+\0`, `MM\0+`).
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .tiff }

    /// Decodes the first page, or for a thumbnail its smallest
    /// reduced-resolution copy that covers the target.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` over the limits;
    ///   ``ImageError/undecodable(_:_:)`` with libtiff's message.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        let handle = try TIFFHandle(data, maxSingleAllocation: options.maxDecodeMemoryBytes)
        let first = try TIFFPage(handle)
        try options.checkPixelLimit(first.size)
        let orientation = Image.Orientation(exifValue: first.orientation)
        let target = options.targetSize(forStored: first.size, orientation: orientation)
        let page = try target.map { try Self.selectSource(handle, page: first, covering: $0) } ?? first
        var image = try Self.decodePage(handle, page: page, target: target, options: options)
        image = image.with(orientation: orientation)
        return options.applyOrientation ? image.applyingOrientation() : image
    }

    /// The first page's declared size, or `nil`.
    public func declaredSize(of data: Data) -> PixelSize? {
        guard let handle = try? TIFFHandle(data, maxSingleAllocation: 1 << 20), let page = try? TIFFPage(handle) else { return nil }
        return page.size
    }

    /// A frame decoder over the pages of a multi-page TIFF (reduced-resolution
    /// copies are not pages); `nil` for a single page.
    ///
    /// Pages have no timing: every stored duration is 0, which
    /// ``AnimatedImage`` plays as 100 ms. The canvas is the first page's
    /// size; a page of another size is drawn at its top-left corner, cut
    /// to the canvas. ``ImageDecodingOptions/maxPixelCount`` (the canvas)
    /// and ``ImageDecodingOptions/maxAnimationPixelCount`` (pages × canvas)
    /// are checked before any page is decoded.
    ///
    /// - Throws: ``ImageError`` for data libtiff cannot open or over the limits.
    package func makeAnimatedFrameDecoder(_ data: Data, options: ImageDecodingOptions) throws -> (any AnimatedFrameDecoder)? {
        try TIFFPageSequenceDecoder(data, options: options)
    }

    /// Makes the reduced-resolution copy of `page` (the current directory)
    /// that best covers `target` current, and returns it; `page` itself
    /// (re-selected) when none covers it.
    static func selectSource(_ handle: TIFFHandle, page: TIFFPage, covering target: PixelSize) throws(ImageError) -> TIFFPage {
        let current = Int(TIFFCurrentDirectory(handle.raw))
        var candidates: [(source: Source, page: TIFFPage)] = []
        for offset in page.subdirectories.prefix(64) {
            if (try? handle.select(subdirectoryAt: offset)) != nil, let reduced = try? TIFFPage(handle) {
                candidates.append((.subdirectory(offset), reduced))
            }
        }
        var index = current + 1
        while index < min(handle.directoryCount, current + 65), (try? handle.select(directory: index)) != nil,
              let next = try? TIFFPage(handle), next.isReducedResolution {
            candidates.append((.directory(index), next))
            index += 1
        }
        let covering = candidates.filter {
            $0.page.width >= target.width && $0.page.height >= target.height && $0.page.width < page.width
        }
        guard let best = covering.min(by: { $0.page.size.pixelCount < $1.page.size.pixelCount }) else {
            try handle.select(directory: current)
            return page
        }
        switch best.source {
        case .directory(let index): try handle.select(directory: index)
        case .subdirectory(let offset): try handle.select(subdirectoryAt: offset)
        }
        return best.page
    }

    /// Where a reduced-resolution copy lives.
    enum Source {
        case directory(Int)
        case subdirectory(UInt64)
    }

    /// Decodes the current directory, resampled to `target` (in the first
    /// page's stored pixels) while its rows are read, colour managed.
    static func decodePage(_ handle: TIFFHandle, page: TIFFPage, target: PixelSize?, options: ImageDecodingOptions) throws(ImageError) -> Image {
        try options.checkPixelLimit(page.size)
        let decoder = try TIFFPageDecoder(handle, page: page, options: options)
        let format = decoder.pixelFormat
        let output = target.map { $0 == page.size ? nil : $0 } ?? nil
        let size = output ?? page.size
        try options.checkDecodeMemory(bytes: size.pixelCount * format.bytesPerPixel + decoder.workingBytes
            + (output.map { $0.width * format.bytesPerPixel * 4 * 8 } ?? 0))
        var failure: ImageError?
        var image: Image
        if let output, var resampler = StreamingResampler(sourceWidth: page.width, sourceHeight: page.height, to: output, pixelFormat: format) {
            image = Image.make(width: output.width, height: output.height, pixelFormat: format, format: .tiff) { out in
                do {
                    try decoder.forEachRow { _, row in resampler.add(row: row, output: out) }
                } catch {
                    failure = error as? ImageError ?? .undecodable(.tiff, "\(error)")
                }
            }
        } else {
            let stride = page.width * format.bytesPerPixel
            image = Image.make(width: page.width, height: page.height, pixelFormat: format, format: .tiff) { out in
                do {
                    try decoder.forEachRow { y, row in (out.baseAddress! + y * stride).copyMemory(from: row, byteCount: stride) }
                } catch {
                    failure = error as? ImageError ?? .undecodable(.tiff, "\(error)")
                }
            }
            if let output { image = ImageResampler.resample(image, to: output) }
        }
        if let failure { throw failure }
        if case .cmyk = decoder.route { return image.with(colorProfile: nil, conversion: decoder.cmyk.conversion) }
        image = ColorManager.manage(consume image, iccProfile: page.iccProfile, options: options)
        return image
    }
}
