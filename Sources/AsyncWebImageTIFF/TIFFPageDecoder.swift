import CTiff
import Foundation
import AsyncWebImage

/// Decodes the current directory of a ``TIFFHandle`` a row at a time, top
/// to bottom as stored, into 8-bit rows of ``pixelFormat``.
///
/// Two routes. The direct one reads strips or tiles with
/// `TIFFReadEncodedStrip`/`TIFFReadEncodedTile` and converts the samples
/// itself, so that they come out as ImageMagick reads them: grey, RGB,
/// palette (1–8 bits) and CMYK, 8 or 16 bits a sample, interleaved or in
/// separate planes (interleaved a row at a time), with an optional alpha
/// sample (associated alpha is un-premultiplied at the samples' own depth); 16-bit
/// samples are rounded to 8 bits (`(v + 128 − ((v + 128) >> 8)) >> 8`, as
/// ImageMagick scales RGB samples; its 16-bit grey comes out one lower for
/// some values, as it truncates there). Everything else (bilevel and 2/4-bit grey,
/// YCbCr and JPEG-in-TIFF, LogLuv…) goes through
/// libtiff's `TIFFRGBAImage`, in bands of rows, its premultiplied output
/// un-premultiplied. Either way a strip or a tile row is held at a time,
/// never the whole page, and only the strips or tiles of the rows asked for
/// are read.
struct TIFFPageDecoder {
    /// How a page's samples become pixels.
    enum Route: Equatable {
        case gray(bits: Int, alpha: Alpha, minIsWhite: Bool)
        case rgb(bits: Int, alpha: Alpha)
        case palette(bits: Int)
        case cmyk(bits: Int)
        case rgbaImage
    }

    /// What an extra sample after the colour samples is.
    enum Alpha: Equatable {
        case none
        case straight
        case premultiplied
    }

    let handle: TIFFHandle
    let page: TIFFPage
    let route: Route
    /// How CMYK rows become RGB (the page's profile, or the naive formula).
    let cmyk: ColorManager.CMYKRows
    /// The rows' format (CMYK rows come out as RGB).
    let pixelFormat: PixelFormat

    /// Chooses the route for the current directory.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` for a page neither route reads.
    init(_ handle: TIFFHandle, page: TIFFPage, options: ImageDecodingOptions) throws(ImageError) {
        self.handle = handle
        self.page = page
        cmyk = ColorManager.cmykRows(iccProfile: page.iccProfile, options: options)
        route = Self.route(for: page)
        switch route {
        case .gray(_, let alpha, _): pixelFormat = alpha == .none ? .gray8 : .grayAlpha8
        case .rgb(_, let alpha): pixelFormat = alpha == .none ? .rgb8 : .rgba8
        case .palette, .cmyk: pixelFormat = .rgb8
        case .rgbaImage:
            var message = [CChar](repeating: 0, count: 1024)
            guard TIFFRGBAImageOK(handle.raw, &message) != 0 else {
                throw .undecodable(.tiff, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            pixelFormat = page.extraSample != nil ? .rgba8 : (page.photometric <= 1 && page.samplesPerPixel == 1 ? .gray8 : .rgb8)
        }
    }

    static func route(for page: TIFFPage) -> Route {
        let extras = page.samplesPerPixel
        let alpha: (Int) -> Alpha? = { colour in
            switch extras - colour {
            case 0: return Alpha.none
            case 1...: return page.extraSample == 1 ? .premultiplied : .straight
            default: return nil
            }
        }
        let wide = page.bitsPerSample == 8 || page.bitsPerSample == 16
        // Separate planes are interleaved row by row (whole samples only):
        // libtiff's RGBA interface would hand them over premultiplied in 8
        // bits, losing what associated 16-bit alpha keeps.
        guard page.planarConfiguration == 1 || (page.planarConfiguration == 2 && wide), page.sampleFormat == 1 else { return .rgbaImage }
        switch page.photometric {
        case 0 where wide, 1 where wide:
            guard let alpha = alpha(1) else { return .rgbaImage }
            return .gray(bits: page.bitsPerSample, alpha: alpha, minIsWhite: page.photometric == 0)
        case 2 where wide:
            guard let alpha = alpha(3) else { return .rgbaImage }
            return .rgb(bits: page.bitsPerSample, alpha: alpha)
        case 3 where [1, 2, 4, 8].contains(page.bitsPerSample) && extras == 1:
            return .palette(bits: page.bitsPerSample)
        case 5 where wide && page.inkSet == 1 && extras == 4:
            return .cmyk(bits: page.bitsPerSample)
        default:
            return .rgbaImage
        }
    }

    /// Bytes this decoder allocates besides the output: a strip, or a
    /// tile and a band of tile rows, and one converted row.
    var workingBytes: Int {
        let tiff = handle.raw
        switch route {
        case .rgbaImage:
            return page.width * min(page.blockHeight, 256) * 4 + page.width * 4
        default:
            let block = page.isTiled ? Int(TIFFTileSize64(tiff)) + page.blockHeight * Int(TIFFScanlineSize64(tiff)) : Int(TIFFStripSize64(tiff))
            // Separate planes: a band of each plane, and one interleaved row.
            let planes = page.planarConfiguration == 2 ? page.samplesPerPixel : 1
            return block * planes + page.width * page.samplesPerPixel * 2 + page.width * 8
        }
    }

    /// Calls `body` with each row's index and pixels, top to bottom as stored.
    ///
    /// - Throws: ``ImageError`` with libtiff's message for a strip or tile it
    ///   cannot read; `body`'s errors.
    func forEachRow(_ body: (Int, UnsafePointer<UInt8>) throws -> Void) throws {
        if route == .rgbaImage {
            try forEachRGBARow(body)
            return
        }
        let tiff = handle.raw
        let scanline = Int(TIFFScanlineSize64(tiff))
        guard scanline > 0 else { throw handle.error("no scanline size") }
        var row = [UInt8](repeating: 0, count: page.width * 4)
        var palette: [UInt8] = []
        if case .palette(let bits) = route { palette = try colorMap(bits: bits) }
        try row.withUnsafeMutableBufferPointer { out in
            try forEachStoredRow(scanline: scanline) { y, stored in
                convert(stored, into: out.baseAddress!, palette: palette)
                try body(y, UnsafePointer(out.baseAddress!))
            }
        }
    }

    /// Reads strips, or tile rows, and hands out each stored row, its
    /// samples interleaved (separate planes are interleaved here).
    private func forEachStoredRow(scanline: Int, _ body: (Int, UnsafePointer<UInt8>) throws -> Void) throws {
        let tiff = handle.raw
        let planes = page.planarConfiguration == 2 ? page.samplesPerPixel : 1
        let bandBytes = max(page.isTiled ? 0 : Int(TIFFStripSize64(tiff)), scanline * page.blockHeight)
        var bands = [[UInt8]](repeating: [UInt8](repeating: 0, count: bandBytes), count: planes)
        var tile = [UInt8](repeating: 0, count: page.isTiled ? Int(TIFFTileSize64(tiff)) : 0)
        let sampleBytes = page.bitsPerSample / 8
        var interleaved = [UInt8](repeating: 0, count: planes > 1 ? page.width * planes * sampleBytes : 0)
        for top in stride(from: 0, to: page.height, by: page.blockHeight) {
            for plane in 0..<planes { try readBand(top: top, plane: plane, scanline: scanline, into: &bands[plane], tile: &tile) }
            for r in 0..<min(page.blockHeight, page.height - top) {
                if planes == 1 {
                    try bands[0].withUnsafeBufferPointer { try body(top + r, $0.baseAddress! + r * scanline) }
                    continue
                }
                for plane in 0..<planes {
                    let row = r * scanline
                    for x in 0..<page.width {
                        for byte in 0..<sampleBytes {
                            interleaved[(x * planes + plane) * sampleBytes + byte] = bands[plane][row + x * sampleBytes + byte]
                        }
                    }
                }
                try interleaved.withUnsafeBufferPointer { try body(top + r, $0.baseAddress!) }
            }
        }
    }

    /// Fills `band` with the stored rows of one plane from `top`: one strip,
    /// or one row of tiles copied side by side.
    private func readBand(top: Int, plane: Int, scanline: Int, into band: inout [UInt8], tile: inout [UInt8]) throws {
        let tiff = handle.raw
        if !page.isTiled {
            let index = TIFFComputeStrip(tiff, UInt32(top), UInt16(plane))
            let read = band.withUnsafeMutableBytes { TIFFReadEncodedStrip(tiff, index, $0.baseAddress, tmsize_t($0.count)) }
            guard read >= 0 else { throw handle.error("strip \(index) cannot be read") }
            return
        }
        let tileRowBytes = Int(TIFFTileRowSize64(tiff))
        guard tile.count > 0, tileRowBytes > 0, page.blockWidth > 0 else { throw handle.error("bad tile size") }
        // Bits of one pixel within this band: all samples, or one plane's.
        let bitsPerPixel = page.bitsPerSample * (page.planarConfiguration == 2 ? 1 : page.samplesPerPixel)
        for left in stride(from: 0, to: page.width, by: page.blockWidth) {
            let index = TIFFComputeTile(tiff, UInt32(left), UInt32(top), 0, UInt16(plane))
            let read = tile.withUnsafeMutableBytes { TIFFReadEncodedTile(tiff, index, $0.baseAddress, tmsize_t($0.count)) }
            guard read >= 0 else { throw handle.error("tile \(index) cannot be read") }
            let start = left * bitsPerPixel / 8
            let count = min(tileRowBytes, scanline - start)
            for r in 0..<min(page.blockHeight, page.height - top) {
                band.replaceSubrange((r * scanline + start)..<(r * scanline + start + count), with: tile[(r * tileRowBytes)..<(r * tileRowBytes + count)])
            }
        }
    }

    /// The colour map as RGB bytes: each 16-bit entry `v` as ⌊v / 257⌋, as
    /// ImageMagick reads a TIFF colour map (libtiff's RGBA interface,
    /// libvips and Pillow take the high byte, which is one more for some
    /// entries; ImageMagick itself does so for a strip without
    /// `RowsPerStrip`, which it reads through libtiff's RGBA interface).
    private func colorMap(bits: Int) throws(ImageError) -> [UInt8] {
        var red: UnsafeMutablePointer<UInt16>?, green: UnsafeMutablePointer<UInt16>?, blue: UnsafeMutablePointer<UInt16>?
        guard CTiff_getColorMap(handle.raw, &red, &green, &blue) != 0, let red, let green, let blue else {
            throw .undecodable(.tiff, "a palette image without a colour map")
        }
        var map: [UInt8] = []
        for index in 0..<(1 << bits) {
            map += [UInt8(red[index] / 257), UInt8(green[index] / 257), UInt8(blue[index] / 257)]
        }
        return map
    }

    /// A 16-bit sample as 8 bits, rounded as ImageMagick's `ScaleQuantumToChar`.
    static func narrow(_ value: UInt16) -> UInt8 {
        let v = UInt32(value) + 128
        return UInt8((v - (v >> 8)) >> 8)
    }

    /// One stored row converted into `out` (``pixelFormat``'s layout).
    private func convert(_ stored: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, palette: [UInt8]) {
        let width = page.width
        let samples = page.samplesPerPixel
        func sample(_ index: Int, bits: Int) -> UInt8 {
            if bits == 8 { return stored[index] }
            let raw = UnsafeRawPointer(stored).loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)
            return Self.narrow(raw)
        }
        // Associated alpha is divided out at 16 bits, before narrowing: in 8
        // bits a faint pixel (alpha 1 of 255) would lose its colour entirely.
        func wideSample(_ index: Int) -> UInt16 {
            UnsafeRawPointer(stored).loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)
        }
        func straight(_ index: Int, alphaIndex: Int, bits: Int, inverted: Bool = false) -> UInt8 {
            if bits == 8 { return Self.unpremultiply(inverted ? 255 - stored[index] : stored[index], stored[alphaIndex]) }
            let value = wideSample(index)
            return Self.narrow(Self.unpremultiply(inverted ? 65535 - value : value, wideSample(alphaIndex)))
        }
        switch route {
        case .gray(let bits, let alpha, let minIsWhite):
            let channels = alpha == .none ? 1 : 2
            for x in 0..<width {
                if alpha == .premultiplied {
                    out[x * 2] = straight(x * samples, alphaIndex: x * samples + 1, bits: bits, inverted: minIsWhite)
                    out[x * 2 + 1] = sample(x * samples + 1, bits: bits)
                    continue
                }
                var level = sample(x * samples, bits: bits)
                if minIsWhite { level = 255 - level }
                out[x * channels] = level
                if alpha != .none { out[x * channels + 1] = sample(x * samples + 1, bits: bits) }
            }
        case .rgb(let bits, let alpha):
            let channels = alpha == .none ? 3 : 4
            for x in 0..<width {
                if alpha == .premultiplied {
                    for c in 0..<3 { out[x * 4 + c] = straight(x * samples + c, alphaIndex: x * samples + 3, bits: bits) }
                    out[x * 4 + 3] = sample(x * samples + 3, bits: bits)
                    continue
                }
                for c in 0..<3 { out[x * channels + c] = sample(x * samples + c, bits: bits) }
                if alpha != .none { out[x * channels + 3] = sample(x * samples + 3, bits: bits) }
            }
        case .palette(let bits):
            let mask = (1 << bits) - 1
            let perByte = 8 / bits
            for x in 0..<width {
                let index = (Int(stored[x / perByte]) >> (8 - bits * (x % perByte + 1))) & mask
                out[x * 3] = palette[index * 3]; out[x * 3 + 1] = palette[index * 3 + 1]; out[x * 3 + 2] = palette[index * 3 + 2]
            }
        case .cmyk(let bits):
            var samples = [UInt8](repeating: 0, count: width * 4)
            for x in 0..<width {
                for c in 0..<4 { samples[x * 4 + c] = sample(x * page.samplesPerPixel + c, bits: bits) }
            }
            samples.withUnsafeBufferPointer { cmyk.convert($0.baseAddress!, into: out, width: width) }
        case .rgbaImage:
            break
        }
    }

    /// A premultiplied 8-bit colour sample made straight again: `⌊v · 255 / a⌋`,
    /// truncated as ImageMagick divides (bit-exact with it, and with Pillow),
    /// clamped (a premultiplied sample may exceed its alpha).
    static func unpremultiply(_ value: UInt8, _ alpha: UInt8) -> UInt8 {
        guard alpha != 0 else { return 0 }
        return UInt8(min(255, Int(value) * 255 / Int(alpha)))
    }

    /// A premultiplied 16-bit colour sample made straight again, as the 8-bit one.
    static func unpremultiply(_ value: UInt16, _ alpha: UInt16) -> UInt16 {
        guard alpha != 0 else { return 0 }
        return UInt16(min(65535, Int(value) * 65535 / Int(alpha)))
    }

    /// libtiff's RGBA interface, a band of rows at a time, in stored order.
    private func forEachRGBARow(_ body: (Int, UnsafePointer<UInt8>) throws -> Void) throws {
        var image = TIFFRGBAImage()
        var message = [CChar](repeating: 0, count: 1024)
        guard TIFFRGBAImageBegin(&image, handle.raw, 0, &message) != 0 else {
            throw ImageError.undecodable(.tiff, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { TIFFRGBAImageEnd(&image) }
        // The page's own orientation asked for: libtiff flips nothing, rows come as stored.
        image.req_orientation = UInt16(page.orientation == 0 ? 1 : page.orientation)
        let width = page.width
        let bandRows = max(1, min(page.blockHeight, 256))
        var raster = [UInt32](repeating: 0, count: width * bandRows)
        var row = [UInt8](repeating: 0, count: width * 4)
        let channels = pixelFormat.bytesPerPixel
        let hasAlpha = image.alpha != 0
        for top in stride(from: 0, to: page.height, by: bandRows) {
            let rows = min(bandRows, page.height - top)
            image.row_offset = Int32(top)
            image.col_offset = 0
            let ok = raster.withUnsafeMutableBufferPointer { TIFFRGBAImageGet(&image, $0.baseAddress, UInt32(width), UInt32(rows)) }
            guard ok != 0 else { throw handle.error("rows \(top)–\(top + rows - 1) cannot be read") }
            for r in 0..<rows {
                for x in 0..<width {
                    let abgr = raster[r * width + x]
                    let red = UInt8(abgr & 0xFF), green = UInt8(abgr >> 8 & 0xFF), blue = UInt8(abgr >> 16 & 0xFF), alpha = UInt8(abgr >> 24)
                    switch channels {
                    case 1: row[x] = red
                    case 3: row[x * 3] = red; row[x * 3 + 1] = green; row[x * 3 + 2] = blue
                    default:
                        row[x * 4] = hasAlpha ? Self.unpremultiply(red, alpha) : red
                        row[x * 4 + 1] = hasAlpha ? Self.unpremultiply(green, alpha) : green
                        row[x * 4 + 2] = hasAlpha ? Self.unpremultiply(blue, alpha) : blue
                        row[x * 4 + 3] = hasAlpha ? alpha : 255
                    }
                }
                try row.withUnsafeBufferPointer { buffer in try body(top + r, buffer.baseAddress!) }
            }
        }
    }
}
