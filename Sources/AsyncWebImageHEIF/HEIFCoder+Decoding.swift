import CHeif
import Foundation
import AsyncWebImage

extension HEIFCoder {
    /// Decodes HEIF bytes: boxes, pixel limit, the image to decode (the
    /// primary one, or an embedded thumbnail that can stand in for it),
    /// decode to interleaved RGB(A), resampling to the size asked for.
    static func decodeImage(_ heif: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws(ImageError) -> Image {
        try decodeImageAndProfile(heif, options: options).image
    }

    /// ``decodeImage(_:options:)`` and the primary image's ICC profile
    /// (``iccProfile(of:)``), read through the one libheif context the
    /// decode parsed (parsing the boxes again for the profile is what this saves).
    static func decodeImageAndProfile(
        _ heif: UnsafeRawBufferPointer, options: ImageDecodingOptions
    ) throws(ImageError) -> (image: Image, iccProfile: Data?) {
        let context = try HEIFContext(reading: heif, maxPixelCount: options.maxPixelCount)
        let handle = try context.primaryImage()
        let profile = iccProfile(of: handle)
        // The displayed size (after irot) and the coded one (ispe) have the
        // same pixel count for a valid file; a hostile one may differ, and
        // the decoder allocates by the coded size.
        let size = PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
        try options.checkPixelLimit(size)
        let ispe = PixelSize(width: Int(heif_image_handle_get_ispe_width(handle)), height: Int(heif_image_handle_get_ispe_height(handle)))
        if ispe.width > 0 || ispe.height > 0 {
            try options.checkPixelLimit(ispe)
        }
        // libheif builds a grid's or an overlay's canvas from a descriptor it
        // does not check against the tiles; this package reads it first.
        let items = try HEIFItemTable(reading: heif)
        if options.usesEmbeddedThumbnails, let target = options.targetSize(forStored: size, orientation: .up),
           let thumbnail = context.thumbnail(standingInFor: size, at: target, maxPixelCount: options.maxPixelCount),
           (try? items.checkDerivedImage(item: thumbnail.id, maxPixelCount: options.maxPixelCount)) != nil,
           let small = try? decodePixels(of: thumbnail.handle, options: options) {
            // A thumbnail libheif cannot decode is passed over: the primary
            // image still answers.
            return (small.size == target ? small : options.resampleThumbnail(small, to: target), profile)
        }
        try items.checkDerivedImage(maxPixelCount: options.maxPixelCount)
        return (try decodePixels(of: handle, options: options, resamplingToThumbnail: true), profile)
    }

    /// Decodes the image of `handle` to ``PixelFormat/rgb8`` or
    /// ``PixelFormat/rgba8`` (16-bit for deeper images from libheif, rounded
    /// to 8 bits in the copy; premultiplied colours divided by alpha).
    ///
    /// With `resamplingToThumbnail`, when the options ask for a smaller
    /// size, libheif's rows go straight into a ``StreamingResampler`` as they
    /// are copied out of its plane: the only full-size frame is libheif's own
    /// (HEVC has no reduced decode), released as soon as the thumbnail is
    /// made, never a second, 8-bit copy of it beside.
    private static func decodePixels(
        of handle: OpaquePointer, options: ImageDecodingOptions, resamplingToThumbnail: Bool = false
    ) throws(ImageError) -> Image {
        let hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        let lumaBits = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        let deep = lumaBits > 8
        let chroma: heif_chroma = switch (hasAlpha, deep) {
        case (false, false): heif_chroma_interleaved_RGB
        case (true, false): heif_chroma_interleaved_RGBA
        case (false, true): heif_chroma_interleaved_RRGGBB_LE
        case (true, true): heif_chroma_interleaved_RRGGBBAA_LE
        }
        var decoded: OpaquePointer?
        try HEIFContext.check(heif_decode_image(handle, &decoded, heif_colorspace_RGB, chroma, nil))
        guard let decoded else { throw .undecodable(.heic, "libheif returned no image") }
        defer { heif_image_release(decoded) }
        let outSize = PixelSize(
            width: Int(heif_image_get_width(decoded, heif_channel_interleaved)),
            height: Int(heif_image_get_height(decoded, heif_channel_interleaved))
        )
        // A bitstream may disagree with the boxes; the copy allocates by what was decoded.
        try options.checkPixelLimit(outSize)
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride) else {
            throw .undecodable(.heic, "libheif returned no interleaved plane")
        }
        let pixelFormat: PixelFormat = hasAlpha ? .rgba8 : .rgb8
        let channels = pixelFormat.channelCount
        let bits = Int(heif_image_get_bits_per_pixel_range(decoded, heif_channel_interleaved))
        let sourceRowBytes = outSize.width * channels * (deep ? 2 : 1)
        guard Int(stride) >= sourceRowBytes else {
            throw .undecodable(.heic, "libheif's plane has \(stride) bytes per row for \(outSize.width) pixels")
        }
        if deep, !(9...16).contains(bits) {
            throw .undecodable(.heic, "unexpected \(bits)-bit samples")
        }
        // libheif 1.15 leaves a premultiplied alpha plane's colours as coded; `Image` is straight.
        let premultiplied = hasAlpha && heif_image_is_premultiplied_alpha(decoded) != 0
        let rowBytes = outSize.width * channels
        if resamplingToThumbnail, let target = options.targetSize(forStored: outSize, orientation: .up) {
            guard var resampler = options.thumbnailResampler(
                sourceWidth: outSize.width, sourceHeight: outSize.height, to: target, pixelFormat: pixelFormat
            ) else {
                let full = copy(plane, stride: Int(stride), size: outSize, pixelFormat: pixelFormat, deep: deep, bits: bits, premultiplied: premultiplied)
                return options.resampleThumbnail(full, to: target)
            }
            // An 8-bit plane without premultiplied alpha is read in place;
            // otherwise each row is converted into one scratch row first.
            let converts = deep || premultiplied
            var scratch = [UInt8](repeating: 0, count: converts ? rowBytes : 1)
            return Image.make(width: target.width, height: target.height, pixelFormat: pixelFormat, format: .heic) { output in
                scratch.withUnsafeMutableBufferPointer { scratch in
                    let row = scratch.baseAddress!
                    for y in 0..<outSize.height {
                        let source = plane + y * Int(stride)
                        if converts {
                            convertRow(source, into: row, rowBytes: rowBytes, pixels: outSize.width, deep: deep, bits: bits, premultiplied: premultiplied)
                        }
                        resampler.add(row: converts ? UnsafePointer(row) : source, output: output)
                    }
                }
            }
        }
        return copy(plane, stride: Int(stride), size: outSize, pixelFormat: pixelFormat, deep: deep, bits: bits, premultiplied: premultiplied)
    }

    /// libheif's interleaved plane as a new image, row by row through ``convertRow``.
    private static func copy(
        _ plane: UnsafePointer<UInt8>, stride: Int, size: PixelSize, pixelFormat: PixelFormat, deep: Bool, bits: Int, premultiplied: Bool
    ) -> Image {
        let rowBytes = size.width * pixelFormat.channelCount
        return Image.make(width: size.width, height: size.height, pixelFormat: pixelFormat, format: .heic) { destination in
            guard let out = destination.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for y in 0..<size.height {
                convertRow(plane + y * stride, into: out + y * rowBytes, rowBytes: rowBytes, pixels: size.width, deep: deep, bits: bits, premultiplied: premultiplied)
            }
        }
    }

    /// One row of libheif's plane as 8-bit straight-alpha samples.
    private static func convertRow(
        _ source: UnsafePointer<UInt8>, into row: UnsafeMutablePointer<UInt8>, rowBytes: Int, pixels: Int,
        deep: Bool, bits: Int, premultiplied: Bool
    ) {
        if deep {
            reduceTo8Bits(UnsafeRawPointer(source), into: row, count: rowBytes, bits: bits)
        } else {
            row.update(from: source, count: rowBytes)
        }
        if premultiplied {
            unpremultiply(row, pixels: pixels)
        }
    }

    /// Rounds `count` little-endian samples of `bits` significant bits to 8
    /// bits: `(v × 255 + max / 2) / max` with `max = 2^bits − 1`, so 1023
    /// maps to 255 and 0 to 0 exactly.
    static func reduceTo8Bits(_ source: UnsafeRawPointer, into destination: UnsafeMutablePointer<UInt8>, count: Int, bits: Int) {
        let maximum = UInt32(1) << UInt32(bits) - 1
        let half = maximum / 2
        for i in 0..<count {
            let value = min(UInt32(UInt16(littleEndian: source.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self))), maximum)
            destination[i] = UInt8((value * 255 + half) / maximum)
        }
    }

    /// Divides the colour of `pixels` RGBA pixels by their alpha, rounded
    /// and clamped to 255 (a transparent pixel stays black).
    static func unpremultiply(_ row: UnsafeMutablePointer<UInt8>, pixels: Int) {
        for x in 0..<pixels {
            let p = row + x * 4
            let alpha = UInt32(p[3])
            guard alpha != 255 else { continue }
            guard alpha != 0 else {
                p[0] = 0; p[1] = 0; p[2] = 0
                continue
            }
            for c in 0..<3 {
                p[c] = UInt8(min(255, (UInt32(p[c]) * 255 + alpha / 2) / alpha))
            }
        }
    }

    /// The raw ICC profile of the primary image (`colr` of type `prof` or
    /// `rICC`), or `nil` when it has none (or only an `nclx` colour
    /// description, or the data is not HEIF libheif can read).
    ///
    /// Reads boxes only; no image data is decoded. For the colour
    /// management that converts decoded pixels to sRGB.
    static func iccProfile(in data: Data) -> Data? {
        data.withUnsafeBytes { bytes -> Data? in
            guard let context = try? HEIFContext(reading: bytes, maxPixelCount: Int.max),
                  let handle = try? context.primaryImage()
            else { return nil }
            return iccProfile(of: handle)
        }
    }

    /// The raw ICC profile of the image of `handle`, or `nil` when it has
    /// none (or only an `nclx` colour description).
    static func iccProfile(of handle: OpaquePointer) -> Data? {
        let type = heif_image_handle_get_color_profile_type(handle)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0 else { return nil }
        var profile = Data(count: size)
        let error = profile.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
        return error.code == heif_error_Ok ? profile : nil
    }
}
