import CSpng
import Testing
@testable import AsyncWebImage

@Suite("PNGDecodePlan", .timeLimit(.minutes(1)))
struct PNGDecodePlanTests {
    private func plan(colorType: UInt8, depth: UInt8, trns: Bool) throws -> PNGDecodePlan {
        var ihdr = spng_ihdr()
        (ihdr.width, ihdr.height, ihdr.color_type, ihdr.bit_depth) = (10, 4, colorType, depth)
        return try PNGDecodePlan(ihdr: ihdr, hasTransparencyChunk: trns)
    }

    @Test("picks the documented pixel format for every colour type, depth and tRNS", arguments: [
        (UInt8(0), UInt8(1), false, PixelFormat.gray8), (0, 8, false, .gray8), (0, 16, false, .gray8),
        (0, 2, true, .grayAlpha8), (0, 16, true, .grayAlpha8), (4, 8, false, .grayAlpha8), (4, 16, false, .grayAlpha8),
        (2, 8, false, .rgb8), (2, 16, false, .rgb8), (2, 8, true, .rgba8), (2, 16, true, .rgba8),
        (3, 1, false, .rgb8), (3, 8, false, .rgb8), (3, 4, true, .rgba8), (6, 8, false, .rgba8), (6, 16, false, .rgba8),
    ] as [(UInt8, UInt8, Bool, PixelFormat)])
    func formats(colorType: UInt8, depth: UInt8, trns: Bool, expected: PixelFormat) throws {
        let plan = try plan(colorType: colorType, depth: depth, trns: trns)
        #expect(plan.pixelFormat == expected)
        #expect(plan.isSixteenBit == (depth == 16))
        #expect(plan.rowBytes == 10 * expected.bytesPerPixel)
        #expect(plan.spngRowBytes == plan.rowBytes * (depth == 16 ? 2 : 1))
    }

    @Test("refuses an unknown colour type and sizes no allocation could hold")
    func refuses() throws {
        #expect(throws: ImageError.self) { try plan(colorType: 5, depth: 8, trns: false) }
        var ihdr = spng_ihdr()
        (ihdr.width, ihdr.height, ihdr.color_type, ihdr.bit_depth) = (.max, .max, 6, 16)
        #expect(throws: ImageError.self) { try PNGDecodePlan(ihdr: ihdr, hasTransparencyChunk: false) }
    }

    @Test("rounds 16-bit samples to nearest, for every value")
    func reduce() {
        let wide = (0...65535).map { UInt16($0) }
        var narrow = [UInt8](repeating: 0, count: wide.count)
        wide.withUnsafeBufferPointer { source in
            narrow.withUnsafeMutableBufferPointer { PNGDecodePlan.reduce(source.baseAddress!, to: $0.baseAddress!, count: wide.count) }
        }
        #expect(zip(wide, narrow).allSatisfy { Int($1) == Int((Double($0) * 255 / 65535).rounded()) })
    }
}
