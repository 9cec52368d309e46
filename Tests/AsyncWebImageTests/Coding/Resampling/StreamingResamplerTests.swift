import CSpng
import Foundation
import Testing
@testable import AsyncWebImage

@Suite("StreamingResampler and the PNG decode budget", .timeLimit(.minutes(2)))
struct StreamingResamplerTests {
    static func noise(width: Int, height: Int, format: PixelFormat, seed: UInt64) -> Image {
        var state = seed
        return Image.make(width: width, height: height, pixelFormat: format) { pixels in
            for index in 0..<pixels.count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                pixels[index] = UInt8(truncatingIfNeeded: state >> 56)
            }
        }
    }

    @Test("row by row, the pixels are ImageResampler's exactly", arguments: [PixelFormat.rgba8, .rgb8, .grayAlpha8, .gray8])
    func equalsImageResampler(format: PixelFormat) throws {
        for (source, target) in [((97, 61), (60, 40)), ((50, 50), (49, 26)), ((40, 30), (73, 45)), ((64, 64), (16, 16))] {
            // Given an image and the resampler's result for a size
            let image = Self.noise(width: source.0, height: source.1, format: format, seed: UInt64(source.0 * 31 + target.0))
            let size = PixelSize(width: target.0, height: target.1)
            let expected = ImageResampler.resample(image, to: size)
            // When its rows are fed one at a time
            var streaming = try #require(StreamingResampler(sourceWidth: image.width, sourceHeight: image.height, to: size, pixelFormat: format))
            let result = Image.make(width: size.width, height: size.height, pixelFormat: format) { output in
                image.withUnsafeBytes { pixels in
                    let base = pixels.bindMemory(to: UInt8.self).baseAddress!
                    for y in 0..<image.height { streaming.add(row: base + y * image.bytesPerRow, output: output) }
                }
            }
            // Then every byte is the same
            #expect(result.pixels == expected.pixels, "\(format) \(source) → \(target)")
        }
    }

    @Test("a thumbnail less than half the size is resampled while decoding, equal to a full decode resampled", arguments: [
        "progressive-plain", "progressive-interlaced", "rgba16", "palette4-trns-interlaced", "gray16-trns",
    ])
    func coderResamplesWhileDecoding(name: String) throws {
        // Given a fixture and its full decode resampled to 70 %
        let data = try PNGFixture.data(name)
        let full = try PNGCoder().decode(data, options: .init())
        let box = PixelSize(width: full.width * 7 / 10, height: full.height * 7 / 10)
        let options = ImageDecodingOptions(thumbnailPixelSize: box)
        let target = try #require(options.targetSize(forStored: full.size, orientation: .up))
        #expect(PNGDecodeRoute(plan: try Self.plan(data), target: target).kind == .resample(target))
        // When the coder decodes it as that thumbnail, then the pixels are the same
        let thumbnail = try PNGCoder().decode(data, options: options)
        #expect(thumbnail.size == target && thumbnail.pixels == ImageResampler.resample(full, to: target).pixels)
    }

    static func plan(_ data: Data) throws -> PNGDecodePlan {
        try data.withUnsafeBytes { buffer in
            let context = try SpngContext(decoding: buffer)
            return try PNGDecodePlan(ihdr: try context.header(), hasTransparencyChunk: try context.hasTransparencyChunk())
        }
    }

    @Test("the memory budget refuses a decode before allocating, counting 16-bit rows at their size")
    func budgetRefuses() throws {
        // Given a 16-bit RGBA fixture and a budget just under what a full decode needs
        let data = try PNGFixture.data("rgba16")
        let plan = try Self.plan(data)
        let route = PNGDecodeRoute(plan: plan, target: nil)
        // Full pixels, an 8-bit row and the 16-bit row (8 bytes a pixel)
        #expect(route.memoryBytes == plan.rowBytes * plan.height + plan.rowBytes + plan.width * 8)
        // When it is decoded with one byte less than that, then it fails as too large
        #expect(throws: ImageError.tooLarge(.decodedBytes, limit: Int64(route.memoryBytes - 1), actual: Int64(route.memoryBytes))) {
            try PNGCoder().decode(data, options: .init(maxDecodeMemoryBytes: route.memoryBytes - 1))
        }
        // And with exactly that, it decodes (libspng's path: no room left for the inflate buffer)
        let image = try PNGCoder().decode(data, options: .init(maxDecodeMemoryBytes: route.memoryBytes))
        #expect(image.pixels == (try PNGCoder().decode(data, options: .init())).pixels)
    }

    @Test("a declared 49 MP RGBA16 image is refused by a small budget at any thumbnail size, and a thumbnail fits a modest one")
    func hostileHeader() throws {
        // Given a PNG declaring 7000 × 7000 RGBA16 (its data all zero, under 400 KB)
        let data = try Self.zeroPNG(width: 7000, height: 7000)
        #expect(data.count < 512 * 1024)
        // When a 4096 px thumbnail is asked with a 32 MiB budget, then it is refused from the header alone
        #expect(throws: ImageError.self) {
            try PNGCoder().decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 4096, height: 4096), maxDecodeMemoryBytes: 32 << 20))
        }
        // And a 256 px thumbnail decodes within 4 MiB of working memory, row by row
        let small = try PNGCoder().decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 256, height: 256), maxDecodeMemoryBytes: 4 << 20))
        #expect(small.size == PixelSize(width: 256, height: 256) && small.pixels.allSatisfy { $0 == 0 })
    }

    /// An all-zero RGBA16 PNG made with zlib (Foundation has no deflate; libspng writes it row by row).
    static func zeroPNG(width: Int, height: Int) throws -> Data {
        guard let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { throw ImageError.encodingFailed(.png, "context") }
        defer { spng_ctx_free(context) }
        func check(_ code: Int32) throws { if code != 0 { throw ImageError.encodingFailed(.png, String(cString: spng_strerror(code))) } }
        try check(spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1))
        try check(spng_set_option(context, SPNG_FILTER_CHOICE, Int32(SPNG_FILTER_CHOICE_NONE.rawValue)))
        var header = spng_ihdr(
            width: UInt32(width), height: UInt32(height), bit_depth: 16, color_type: 6,
            compression_method: 0, filter_method: 0, interlace_method: 0
        )
        try check(spng_set_ihdr(context, &header))
        try check(spng_encode_image(context, nil, 0, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_PROGRESSIVE.rawValue | SPNG_ENCODE_FINALIZE.rawValue)))
        let row = [UInt8](repeating: 0, count: width * 8)
        for _ in 0..<height {
            let code = row.withUnsafeBytes { spng_encode_row(context, $0.baseAddress, $0.count) }
            guard code == 0 || code == SPNG_EOI.rawValue else { try check(code); break }
        }
        var length = 0
        var error: Int32 = 0
        guard let buffer = spng_get_png_buffer(context, &length, &error) else { throw ImageError.encodingFailed(.png, "buffer \(error)") }
        defer { free(buffer) }
        return Data(bytes: buffer, count: length)
    }
}
