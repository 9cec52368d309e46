import CTurboJPEG
import Foundation
import Testing
@testable import AsyncWebImage

@Suite("TurboJPEGHandle", .timeLimit(.minutes(1)))
struct TurboJPEGHandleTests {
    @Test("reads subsampling and colour space from the header", arguments: [
        ("baseline-420.jpg", TJSAMP_420.rawValue, TJCS_YCbCr.rawValue),
        ("baseline-422.jpg", TJSAMP_422.rawValue, TJCS_YCbCr.rawValue),
        ("baseline-444.jpg", TJSAMP_444.rawValue, TJCS_YCbCr.rawValue),
        ("gray.jpg", TJSAMP_GRAY.rawValue, TJCS_GRAY.rawValue),
        ("cmyk.jpg", TJSAMP_444.rawValue, TJCS_CMYK.rawValue),
        ("ycck.jpg", TJSAMP_444.rawValue, TJCS_YCCK.rawValue),
    ])
    func header(name: String, subsampling: UInt32, colorspace: UInt32) throws {
        let data = try JPEGFixtures.data(name)
        let handle = try TurboJPEGHandle(.decompressor)
        let header = try data.withUnsafeBytes { bytes in try handle.readHeader(bytes) }
        #expect(header.size == PixelSize(width: 96, height: 64))
        #expect(header.subsampling == Int32(subsampling))
        #expect(header.colorspace == Int32(colorspace))
        #expect(header.isCMYK == (name.hasPrefix("cmyk") || name.hasPrefix("ycck")))
        #expect(header.isGray == (name == "gray.jpg"))
    }

    @Test("tells warnings (returned) from fatal errors (thrown with libjpeg's message)")
    func check() throws {
        let data = try JPEGFixtures.data("baseline-420.jpg")
        let handle = try TurboJPEGHandle(.decompressor)
        let size = PixelSize(width: 96, height: 64)
        var pixels = [UInt8](repeating: 0, count: 96 * 64 * 3)
        // A complete file: no warning
        let clean = try data.withUnsafeBytes { bytes in
            try pixels.withUnsafeMutableBytes { out in
                try handle.decompress(bytes, into: out, size: size, pitch: 96 * 3, pixelFormat: TJPF_RGB)
            }
        }
        #expect(clean == nil)
        // A truncated one: a warning, returned
        let warning = try data.prefix(data.count - 200).withUnsafeBytes { bytes in
            try pixels.withUnsafeMutableBytes { out in
                try handle.decompress(bytes, into: out, size: size, pitch: 96 * 3, pixelFormat: TJPF_RGB)
            }
        }
        #expect(warning == "Premature end of JPEG file")
        // A CMYK file into RGB: fatal, thrown
        let cmyk = try JPEGFixtures.data("cmyk.jpg")
        #expect(throws: ImageError.undecodable(.jpeg, "Unsupported color conversion request")) {
            try cmyk.withUnsafeBytes { bytes in
                try pixels.withUnsafeMutableBytes { out in
                    try handle.decompress(bytes, into: out, size: size, pitch: 96 * 3, pixelFormat: TJPF_RGB)
                }
            }
        }
        // And the same handle still works afterwards
        #expect(try handle.check(0) == nil)
    }
}
