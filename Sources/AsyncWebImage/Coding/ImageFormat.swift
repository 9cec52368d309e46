public import Foundation

/// The encoded format of image data, as recognised from its first bytes.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JPEG / JFIF / EXIF (`FF D8 FF`).
    case jpeg
    /// PNG (`89 'PNG' 0D 0A 1A 0A`).
    case png
    /// GIF87a / GIF89a.
    case gif
    /// WebP (`RIFF....WEBP`).
    case webp
    /// HEIF / HEIC (ISO-BMFF `ftyp` with a HEIF brand).
    case heic
    /// AVIF (ISO-BMFF `ftyp` with an `avif`/`avis` brand).
    case avif
    /// TIFF, little or big endian, classic or BigTIFF.
    case tiff
    /// Windows bitmap (`BM`).
    case bmp
    /// JPEG XL, a bare codestream (`FF 0A`) or in its ISO-BMFF container (`JXL `).
    case jxl
    /// Windows icon or cursor (ICO/CUR): a directory of BMP or PNG images.
    case ico
    /// SVG, recognised as text starting with an `<svg` element (after an
    /// optional XML declaration, comment or doctype within the first 64 bytes).
    case svg
    /// Anything else, including empty data and text such as an HTML error page.
    case unknown

    /// Recognises the format from magic bytes; never reads past the first 64 bytes.
    ///
    /// - Complexity: O(1).
    public static func detect(_ data: some DataProtocol) -> ImageFormat {
        var header = [UInt8](repeating: 0, count: 64)
        let count = min(64, data.count)
        _ = header.withUnsafeMutableBytes { data.prefix(count).copyBytes(to: $0) }
        header.removeLast(64 - count)
        return detect(header: header)
    }

    /// Recognises the format from the first bytes of the data (at least 12
    /// for every format to be recognisable).
    public static func detect(header bytes: [UInt8]) -> ImageFormat {
        func starts(with prefix: [UInt8], at offset: Int = 0) -> Bool {
            guard bytes.count >= offset + prefix.count else { return false }
            return bytes[offset..<(offset + prefix.count)].elementsEqual(prefix)
        }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) { return .webp }
        // Classic TIFF (42) and BigTIFF (43, 64-bit offsets), which libtiff reads alike.
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            || starts(with: [0x49, 0x49, 0x2B, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }
        if starts(with: [0xFF, 0x0A]) { return .jxl }
        if starts(with: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if isIconDirectory(bytes) { return .ico }
        if starts(with: Array("ftyp".utf8), at: 4) { return isoBaseMediaFormat(bytes) }
        // "BM" alone is too weak (it starts plenty of text); also require the
        // reserved header words to be zero and a known DIB header size.
        if starts(with: [0x42, 0x4D]) && bytes.count >= 18 && bytes[6...9].allSatisfy({ $0 == 0 }) {
            let dibSize = Int(bytes[14]) | Int(bytes[15]) << 8 | Int(bytes[16]) << 16 | Int(bytes[17]) << 24
            if [12, 16, 40, 52, 56, 64, 108, 124].contains(dibSize) { return .bmp }
        }
        if isSVGText(bytes) { return .svg }
        return .unknown
    }

    /// Whether `bytes` start an ICO or CUR directory: reserved 0, type 1
    /// or 2, 1 to 256 entries, and a first entry whose reserved byte is 0
    /// and whose data starts after the directory (four zero bytes alone
    /// start too many things to be enough).
    private static func isIconDirectory(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 22, bytes[0] == 0, bytes[1] == 0, bytes[2] == 1 || bytes[2] == 2, bytes[3] == 0 else { return false }
        let count = Int(bytes[4]) | Int(bytes[5]) << 8
        guard (1...256).contains(count), bytes[9] == 0 else { return false }
        let size = Int(bytes[14]) | Int(bytes[15]) << 8 | Int(bytes[16]) << 16 | Int(bytes[17]) << 24
        let offset = Int(bytes[18]) | Int(bytes[19]) << 8 | Int(bytes[20]) << 16 | Int(bytes[21]) << 24
        return size > 0 && offset >= 6 + 16 * count
    }

    /// Whether `bytes` (the first 64 or fewer) are the start of an SVG
    /// document: after an optional UTF-8 byte order mark and white space,
    /// `<svg`, or an XML declaration, comment or doctype followed within
    /// these bytes by `<svg` or `<!DOCTYPE svg`.
    private static func isSVGText(_ bytes: [UInt8]) -> Bool {
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        let text = String(decoding: bytes[start...], as: UTF8.self)
        if text.hasPrefix("<svg") { return true }
        guard text.hasPrefix("<?xml") || text.hasPrefix("<!--") || text.hasPrefix("<!DOCTYPE") else { return false }
        return text.contains("<svg") || text.contains("<!DOCTYPE svg")
    }

    /// Reads the major brand and compatible brands of an `ftyp` box.
    private static func isoBaseMediaFormat(_ bytes: [UInt8]) -> ImageFormat {
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(bytes.count, max(boxSize, 12))
        var brands: [String] = []
        // Major brand at 8, minor version at 12, compatible brands from 16.
        for offset in stride(from: 8, to: end - 3, by: 4) where offset != 12 {
            brands.append(String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self))
        }
        if let major = brands.first {
            if ["avif", "avis"].contains(major) { return .avif }
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"].contains(major) { return .heic }
        }
        if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
        if brands.contains(where: { ["heic", "heix", "mif1", "msf1"].contains($0) }) { return .heic }
        return .unknown
    }

    /// The IANA media type, e.g. `image/jpeg`; `application/octet-stream` for `.unknown`.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .avif: "image/avif"
        case .tiff: "image/tiff"
        case .bmp: "image/bmp"
        case .jxl: "image/jxl"
        case .ico: "image/x-icon"
        case .svg: "image/svg+xml"
        case .unknown: "application/octet-stream"
        }
    }

    /// The usual file name extension, without the dot (`nil` for `.unknown`).
    public var fileExtension: String? {
        switch self {
        case .jpeg: "jpg"
        case .unknown: nil
        default: rawValue
        }
    }

    public var description: String { rawValue }

    /// The product of this package whose coder reads the format, and the
    /// coder's name: what a loader that meets the format without it is
    /// missing. `nil` for the core's formats and `.unknown`.
    var readingProduct: (product: String, coder: String)? {
        switch self {
        case .jpeg, .png, .unknown: nil
        case .gif: ("AsyncWebImageGIF", "GIFCoder")
        case .webp: ("AsyncWebImageWebP", "WebPCoder")
        case .heic: ("AsyncWebImageHEIF", "HEIFCoder")
        case .avif: ("AsyncWebImageAVIF", "AVIFCoder")
        case .tiff: ("AsyncWebImageTIFF", "TIFFCoder")
        case .bmp: ("AsyncWebImageBMP", "BMPCoder")
        case .jxl: ("AsyncWebImageJXL", "JXLCoder")
        case .ico: ("AsyncWebImageBMP", "ICOCoder")
        case .svg: ("AsyncWebImageSVG", "SVGCoder")
        }
    }
}
