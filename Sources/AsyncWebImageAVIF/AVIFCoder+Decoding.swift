import CAvif
import Foundation
import AsyncWebImage

extension AVIFCoder {
    /// Decodes AVIF bytes: parse, pixel limit, AV1 decode, YUV to 8-bit RGB(A)
    /// straight into the image's storage, resampling, orientation.
    ///
    /// The order matters for hostile input: `avifDecoderParse` reads only
    /// boxes, and the size it reports (`ispe`) is checked before
    /// `avifDecoderNextImage` lets the AV1 decoder allocate frames. The AV1
    /// sequence header may then disagree with `ispe`; the decoded size is
    /// checked again before the RGB buffer is allocated. (libavif 0.11 scales
    /// a frame smaller than `ispe` up to the `ispe` size, within the limit
    /// ``AVIFDecoderHandle/limit(toPixels:)`` set; it refuses a larger one.)
    ///
    /// A thumbnail is converted and resampled in bands of rows
    /// (``convertResampling(_:region:target:hasAlpha:bandRows:)``): the
    /// full-size RGB image never exists. `bandRows` overrides the band
    /// height (even, at least 2), for the tests of band boundaries.
    static func decodeImage(
        _ avif: UnsafeRawBufferPointer, options: ImageDecodingOptions, maxThreads: Int, strictness: Strictness = .lenient,
        bandRows: Int? = nil
    ) throws(ImageError) -> Image {
        let decoder = try AVIFDecoderHandle(decoding: avif, maxThreads: maxThreads, strictness: strictness)
        do {
            try decoder.parse()
        } catch {
            // libavif's parse refuses a primary `ispe` past its own limits
            // (16384² pixels, 32768 a side) with a parse error; past ours
            // too, it is the typed too-large every coder gives (a 413 in a
            // server, not a 415), read by the package's own box reader.
            if let declared = Self.declaredPrimarySize(avif), declared.width > 0, declared.height > 0 {
                try options.checkPixelLimit(declared)
            }
            throw error
        }
        let parsed = try decoder.image
        try options.checkPixelLimit(PixelSize(width: Int(parsed.pointee.width), height: Int(parsed.pointee.height)))
        let orientation = orientation(of: parsed.pointee)
        let hasAlpha = decoder.raw.pointee.alphaPresent != AVIF_FALSE
        decoder.limit(toPixels: options.maxPixelCount)

        try decoder.decodeFirstImage()
        let decoded = try decoder.image
        let size = PixelSize(width: Int(decoded.pointee.width), height: Int(decoded.pointee.height))
        try options.checkPixelLimit(size)
        let hasAlphaPlane = hasAlpha || decoded.pointee.alphaPlane != nil
        let region = cleanAperture(of: decoded) ?? PixelRect(x: 0, y: 0, width: size.width, height: size.height)
        if let target = options.targetSize(forStored: PixelSize(width: region.width, height: region.height), orientation: orientation),
           let reduced = try convertResampling(
               decoded, region: region, target: target, options: options, hasAlpha: hasAlphaPlane, bandRows: bandRows ?? Self.bandRows(width: size.width)
           ) {
            let image = reduced.with(orientation: orientation)
            return options.applyOrientation ? image.applyingOrientation() : image
        }
        var image = try convertToRGB(decoded, size: size, hasAlpha: hasAlphaPlane)
        // MIAF applies the clean aperture to the stored image, before irot and imir.
        if let aperture = cleanAperture(of: decoded) { image = image.cropped(to: aperture) }
        image = image.with(orientation: orientation)
        if let target = options.targetSize(forStored: image.size, orientation: orientation) {
            image = options.resampleThumbnail(image, to: target)
        }
        return options.applyOrientation ? image.applyingOrientation() : image
    }

    /// The primary item's `ispe` size by ``HEIFItemTable`` (AVIF is a HEIF
    /// container), without libavif; `nil` when the boxes do not say.
    static func declaredPrimarySize(_ avif: UnsafeRawBufferPointer) -> PixelSize? {
        guard let table = try? HEIFItemTable(reading: avif), let primary = table.primaryID else { return nil }
        return table.items[primary]?.declaredSize
    }

    /// Converts the decoded YUV (and alpha) planes into a new 8-bit image
    /// with libavif's `avifImageYUVToRGB`, which scales deeper samples to 8
    /// bits with rounding and leaves alpha straight.
    static func convertToRGB(_ image: UnsafeMutablePointer<avifImage>, size: PixelSize, hasAlpha: Bool) throws(ImageError) -> Image {
        let pixelFormat: PixelFormat = hasAlpha ? .rgba8 : .rgb8
        var outcome = AVIF_RESULT_OK
        let result = Image.make(width: size.width, height: size.height, pixelFormat: pixelFormat, format: .avif) { destination in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.depth = 8
            rgb.format = hasAlpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
            rgb.alphaPremultiplied = AVIF_FALSE
            rgb.pixels = destination.baseAddress?.assumingMemoryBound(to: UInt8.self)
            rgb.rowBytes = UInt32(size.width * pixelFormat.bytesPerPixel)
            outcome = avifImageYUVToRGB(image, &rgb)
        }
        guard outcome == AVIF_RESULT_OK else {
            throw .undecodable(.avif, "YUV to RGB: " + AVIFCoder.message(outcome, diagnostics: nil))
        }
        return result
    }

    /// The rectangle a `clap` property keeps, or `nil` when there is none,
    /// it keeps the whole image, or it breaks MIAF's rules (a crop rect
    /// libavif refuses to derive: then the whole image is shown, as the
    /// property cannot be trusted and the pixels can).
    static func cleanAperture(of image: UnsafeMutablePointer<avifImage>) -> PixelRect? {
        guard image.pointee.transformFlags & UInt32(AVIF_TRANSFORM_CLAP.rawValue) != 0 else { return nil }
        var rect = avifCropRect()
        var clap = image.pointee.clap
        var diagnostics = avifDiagnostics()
        guard avifCropRectConvertCleanApertureBox(
            &rect, &clap, image.pointee.width, image.pointee.height, image.pointee.yuvFormat, &diagnostics
        ) != AVIF_FALSE, rect.width > 0, rect.height > 0,
            UInt64(rect.x) + UInt64(rect.width) <= UInt64(image.pointee.width),
            UInt64(rect.y) + UInt64(rect.height) <= UInt64(image.pointee.height)
        else { return nil }
        guard rect.width != image.pointee.width || rect.height != image.pointee.height else { return nil }
        return PixelRect(x: Int(rect.x), y: Int(rect.y), width: Int(rect.width), height: Int(rect.height))
    }

    /// The orientation that `irot`/`imir` in `image.transformFlags` ask for.
    static func orientation(of image: avifImage) -> Image.Orientation {
        let flags = image.transformFlags
        let rotation = flags & UInt32(AVIF_TRANSFORM_IROT.rawValue) != 0 ? Int(image.irot.angle) : 0
        let mirror = flags & UInt32(AVIF_TRANSFORM_IMIR.rawValue) != 0 ? Int(image.imir.mode) : nil
        return Image.Orientation(heifRotation: rotation, mirror: mirror)
    }

    /// The ICC profile in the primary image's `colr` box, or `nil` when it
    /// has none (or the data is not an AVIF libavif can parse).
    ///
    /// Reads boxes only; no AV1 data is decoded. For the colour management
    /// that converts decoded pixels to sRGB.
    static func iccProfile(in data: Data, strictness: Strictness = .lenient) -> Data? {
        data.withUnsafeBytes { bytes -> Data? in
            guard let decoder = try? AVIFDecoderHandle(decoding: bytes, maxThreads: 1, strictness: strictness),
                  (try? decoder.parse()) != nil,
                  let image = try? decoder.image,
                  let icc = image.pointee.icc.data, image.pointee.icc.size > 0
            else { return nil }
            return Data(bytes: icc, count: image.pointee.icc.size)
        }
    }
}
