import CTiff
import Foundation
import AsyncWebImage

/// What one TIFF directory (a page, or a reduced-resolution image) declares.
struct TIFFPage: Equatable {
    var width: Int
    var height: Int
    var bitsPerSample: Int
    var samplesPerPixel: Int
    var photometric: Int
    var planarConfiguration: Int
    var sampleFormat: Int
    var inkSet: Int
    /// `NewSubfileType`: bit 0 set for a reduced-resolution image.
    var subfileType: Int
    /// The first extra sample's kind (0 unspecified, 1 associated alpha, 2 unassociated), if any.
    var extraSample: Int?
    var orientation: Int
    var isTiled: Bool
    /// Rows a strip or tile holds; columns of a tile (the width for strips).
    var blockHeight: Int
    var blockWidth: Int
    var iccProfile: Data?
    /// SubIFD offsets (reduced-resolution images of this page, usually).
    var subdirectories: [UInt64]

    /// Whether the directory is a reduced-resolution copy of a page, not a page.
    var isReducedResolution: Bool { subfileType & 1 != 0 }
    var size: PixelSize { PixelSize(width: width, height: height) }

    /// Reads the current directory of `handle`.
    init(_ handle: TIFFHandle) throws(ImageError) {
        try handle.checkDirectoryComplete()
        let tiff = handle.raw
        func u32(_ tag: Int32) -> Int { var value: UInt32 = 0; return CTiff_getUInt32Defaulted(tiff, UInt32(tag), &value) != 0 ? Int(value) : 0 }
        func u16(_ tag: Int32) -> Int { var value: UInt16 = 0; return CTiff_getUInt16Defaulted(tiff, UInt32(tag), &value) != 0 ? Int(value) : 0 }
        width = u32(TIFFTAG_IMAGEWIDTH)
        height = u32(TIFFTAG_IMAGELENGTH)
        bitsPerSample = u16(TIFFTAG_BITSPERSAMPLE)
        samplesPerPixel = u16(TIFFTAG_SAMPLESPERPIXEL)
        var photometricValue: UInt16 = 0
        guard CTiff_getUInt16(tiff, UInt32(TIFFTAG_PHOTOMETRIC), &photometricValue) != 0 else {
            throw .undecodable(.tiff, "no PhotometricInterpretation")
        }
        photometric = Int(photometricValue)
        planarConfiguration = u16(TIFFTAG_PLANARCONFIG)
        sampleFormat = u16(TIFFTAG_SAMPLEFORMAT)
        inkSet = u16(TIFFTAG_INKSET)
        var subfile: UInt32 = 0
        subfileType = CTiff_getUInt32(tiff, UInt32(TIFFTAG_SUBFILETYPE), &subfile) != 0 ? Int(subfile) : 0
        orientation = u16(TIFFTAG_ORIENTATION)
        var extraCount: UInt16 = 0
        var kinds: UnsafeMutablePointer<UInt16>?
        extraSample = CTiff_getExtraSamples(tiff, &extraCount, &kinds) != 0 && extraCount > 0 ? kinds.map { Int($0[0]) } : nil
        isTiled = TIFFIsTiled(tiff) != 0
        if isTiled {
            blockWidth = u32(TIFFTAG_TILEWIDTH)
            blockHeight = u32(TIFFTAG_TILELENGTH)
        } else {
            blockWidth = width
            blockHeight = min(max(1, u32(TIFFTAG_ROWSPERSTRIP)), max(1, height))
        }
        var length: UInt32 = 0
        var profile: UnsafeMutableRawPointer?
        iccProfile = CTiff_getICCProfile(tiff, &length, &profile) != 0 && length > 0 ? profile.map { Data(bytes: $0, count: Int(length)) } : nil
        var subCount: UInt16 = 0
        var offsets: UnsafeMutablePointer<UInt64>?
        subdirectories = CTiff_getSubIFDs(tiff, &subCount, &offsets) != 0 ? (0..<Int(subCount)).compactMap { offsets?[$0] } : []
        guard width > 0, height > 0 else { throw .invalidImage("a TIFF page of \(width)×\(height) pixels") }
    }
}
