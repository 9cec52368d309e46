import CSpng
import Foundation
import Testing
@testable import AsyncWebImage

/// The libdeflate path against libspng's own `spng_decode_image`, byte for
/// byte: every PNG fixture, and noise images libspng encodes with each of
/// the five filters forced.
@Suite("PNGInflatedImage", .timeLimit(.minutes(2)))
struct PNGInflatedImageTests {
    /// libspng's decode box-averaged by `factor`: what a shrinking decode must give.
    static func boxAverage(_ reference: (plan: PNGDecodePlan, pixels: [UInt8]), factor: Int) -> Image {
        let plan = reference.plan
        var reducer = BoxReducer(sourceWidth: plan.width, sourceHeight: plan.height, factor: factor, pixelFormat: plan.pixelFormat)
        return Image.make(width: reducer.size.width, height: reducer.size.height, pixelFormat: plan.pixelFormat) { output in
            reference.pixels.withUnsafeBufferPointer { pixels in
                for y in 0..<plan.height { reducer.add(row: pixels.baseAddress! + y * plan.rowBytes, output: output) }
            }
        }
    }

    /// What libspng decodes for `png` with the plan's format and flags (16-bit
    /// rounded as the coder does), or `nil` when libspng refuses the file.
    static func spngReference(_ png: Data) -> (plan: PNGDecodePlan, pixels: [UInt8])? {
        png.withUnsafeBytes { buffer -> (PNGDecodePlan, [UInt8])? in
            guard let context = try? SpngContext(decoding: buffer), let header = try? context.header(),
                  let trns = try? context.hasTransparencyChunk(),
                  let plan = try? PNGDecodePlan(ihdr: header, hasTransparencyChunk: trns),
                  plan.width * plan.height <= 100_000_000 else { return nil }
            var size = 0
            guard spng_decoded_image_size(context.raw, plan.spngFormat, &size) == 0 else { return nil }
            var decoded = [UInt8](repeating: 0, count: size)
            let code = decoded.withUnsafeMutableBytes {
                spng_decode_image(context.raw, $0.baseAddress, size, plan.spngFormat, plan.spngFlags)
            }
            guard code == 0 else { return nil }
            guard plan.isSixteenBit else { return (plan, decoded) }
            var narrow = [UInt8](repeating: 0, count: size / 2)
            decoded.withUnsafeBytes { wide in
                narrow.withUnsafeMutableBufferPointer { out in
                    PNGDecodePlan.reduce(wide.bindMemory(to: UInt16.self).baseAddress!, to: out.baseAddress!, count: size / 2)
                }
            }
            return (plan, narrow)
        }
    }

    /// The libdeflate path's full decode of `png`, or `nil` when it does not apply.
    static func inflatedDecode(_ png: Data) throws -> [UInt8]? {
        try png.withUnsafeBytes { buffer -> [UInt8]? in
            let context = try SpngContext(decoding: buffer)
            let plan = try PNGDecodePlan(ihdr: try context.header(), hasTransparencyChunk: try context.hasTransparencyChunk())
            guard var image = PNGInflatedImage(png: buffer, context: context, plan: plan, maximumInflatedBytes: .max) else { return nil }
            var pixels = [UInt8](repeating: 0xA5, count: plan.rowBytes * plan.height)
            let complete = pixels.withUnsafeMutableBytes { image.decode(into: $0, plan: plan) }
            return complete ? pixels : nil
        }
    }

    static let fixtureNames: [String] = {
        let directory = Bundle.module.url(forResource: "Fixtures/png", withExtension: nil)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory?.path ?? "")) ?? []
        return names.filter { $0.hasSuffix(".png") }.map { String($0.dropLast(4)) }.sorted()
    }()

    /// Fixtures libspng decodes that the libdeflate path leaves to it: an
    /// IDAT stream that inflates to more than the image (libspng stops
    /// reading at the last row; libdeflate stops at the exact-size buffer),
    /// and an eXIf chunk after the image data (libspng reads it only while
    /// decoding the image itself).
    static let expectedFallbacks: Set<String> = ["bomb-idat", "exif-after-idat-orientation8"]

    @Test("every fixture libspng decodes, the libdeflate path decodes to the same bytes")
    func everyFixture() throws {
        #expect(Self.fixtureNames.count >= 35)
        var compared = 0
        for name in Self.fixtureNames {
            // Given a fixture and libspng's own decode of it
            let data = try PNGFixture.data(name)
            guard let reference = Self.spngReference(data) else {
                // A file libspng refuses: the coder refuses it too, whichever path runs.
                #expect(throws: ImageError.self, "\(name)") { try PNGCoder().decode(data, options: .init(maxPixelCount: 100_000_000)) }
                continue
            }
            // When the libdeflate path decodes it
            let pixels = try Self.inflatedDecode(data)
            if Self.expectedFallbacks.contains(name) {
                // Then the file is left to libspng
                #expect(pixels == nil, "\(name)")
            } else {
                // Then it applies and gives libspng's bytes exactly
                let decoded = try #require(pixels, "\(name): the libdeflate path did not apply")
                #expect(decoded == reference.pixels, "\(name) \(reference.plan.pixelFormat)")
            }
            // And the coder's full decode is the same
            #expect(try PNGCoder().decode(data, options: .init()).pixels == reference.pixels, "\(name)")
            compared += 1
        }
        #expect(compared >= 35)
    }

    @Test("each filter type forced by libspng's encoder", arguments: [
        SPNG_FILTER_CHOICE_NONE, SPNG_FILTER_CHOICE_SUB, SPNG_FILTER_CHOICE_UP, SPNG_FILTER_CHOICE_AVG, SPNG_FILTER_CHOICE_PAETH,
    ])
    func forcedFilter(filter: spng_filter_choice) throws {
        // Color type, bit depth, interlaced: every filter stride (1, 2, 3, 4, 6, 8 bytes, and sub-byte).
        let kinds: [(UInt8, UInt8, Bool)] = [
            (0, 1, false), (0, 4, true), (0, 8, false), (0, 16, false), (2, 8, false), (2, 8, true),
            (2, 16, false), (3, 4, false), (4, 8, false), (4, 16, true), (6, 8, false), (6, 16, true),
        ]
        for (colorType, depth, interlaced) in kinds {
            // Given noise with smooth parts, encoded by libspng with only this filter
            let png = try Self.encodeNoise(width: 37, height: 29, colorType: colorType, depth: depth, interlaced: interlaced, filter: filter)
            let reference = try #require(Self.spngReference(png), "libspng cannot decode its own file")
            // When the libdeflate path decodes it, then the bytes are libspng's
            let decoded = try #require(try Self.inflatedDecode(png))
            #expect(decoded == reference.pixels, "colour type \(colorType), depth \(depth), interlaced \(interlaced)")
        }
    }

    @Test("RGB and RGBA rows of 1 to 6 pixels, each filter: the 4-lane unfilter's edges match libspng", arguments: [
        SPNG_FILTER_CHOICE_SUB, SPNG_FILTER_CHOICE_AVG, SPNG_FILTER_CHOICE_PAETH,
    ])
    func narrowRows(filter: spng_filter_choice) throws {
        // Rows of 3 to 24 bytes: a lone RGB pixel takes no 4-byte load, the last RGB pixel of a row is done byte by byte.
        for colorType: UInt8 in [2, 6] {
            for width in 1...6 {
                let png = try Self.encodeNoise(width: width, height: 5, colorType: colorType, depth: 8, interlaced: false, filter: filter)
                let reference = try #require(Self.spngReference(png), "libspng cannot decode its own file")
                let decoded = try #require(try Self.inflatedDecode(png))
                #expect(decoded == reference.pixels, "colour type \(colorType), width \(width)")
            }
        }
    }

    @Test("the Paeth choice from the row above equals the scalar predictor on every input", arguments: Array(stride(from: 0, to: 256, by: 32)))
    func paethChoiceLanes(firstC: Int) {
        // Every (a, b, c): c in 32 values per case, b four per call, a in each lane's left sample.
        for c in firstC..<(firstC + 32) {
            for b0 in stride(from: 0, to: 256, by: 4) {
                let choice = PNGPaethChoice(
                    above: SIMD4<Int16>(Int16(b0), Int16(b0 + 1), Int16(b0 + 2), Int16(b0 + 3)), aboveLeft: SIMD4<Int16>(repeating: Int16(c))
                )
                for a in 0...255 {
                    let lanes = choice.predict(left: SIMD4<Int16>(repeating: Int16(a)))
                    for lane in 0..<4 where Int(lanes[lane]) != PNGUnfilter.predictor(a, b0 + lane, c) {
                        Issue.record("paeth choice(\(a), \(b0 + lane), \(c)) = \(lanes[lane])")
                        return
                    }
                }
            }
        }
    }

    @Test("the Paeth predictor follows the specification's tie order on every input", arguments: [0, 64, 128, 192, 255])
    func paethPredictor(c: Int) {
        for a in 0...255 {
            for b in 0...255 {
                // The specification's text: p = a + b − c; nearest of a, b, c; ties a, then b, then c.
                let p = a + b - c
                let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
                let expected = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                if PNGUnfilter.predictor(a, b, c) != expected {
                    Issue.record("paeth(\(a), \(b), \(c))")
                    return
                }
            }
        }
    }

    @Test("a thumbnail through the libdeflate path equals the box average of libspng's full decode", arguments: [
        "progressive-plain", "progressive-interlaced", "rgba16", "rgba16-interlaced", "palette4-trns-interlaced", "gray2-trns", "rgb8",
    ])
    func shrinking(name: String) throws {
        // Given libspng's full decode, box-averaged by 3
        let data = try PNGFixture.data(name)
        let reference = try #require(Self.spngReference(data))
        let plan = reference.plan
        let expected = Self.boxAverage(reference, factor: 3)
        // When the coder shrinks it while decoding (libdeflate, then the reducer)
        let shrunk = try data.withUnsafeBytes { buffer in
            let context = try SpngContext(decoding: buffer)
            _ = try context.hasTransparencyChunk()
            #expect(PNGInflatedImage(png: buffer, context: context, plan: plan, maximumInflatedBytes: .max) != nil)
            return try PNGCoder.decodeShrinking(context, png: buffer, plan: plan, factor: 3)
        }
        // Then the pixels are the same
        #expect(shrunk.size == expected.size && shrunk.pixels == expected.pixels)
    }

    @Test("a thumbnail of image data over 4 MiB inflates row by row and equals the box average of libspng's decode", arguments: [
        (UInt8(6), UInt8(8), false), (2, 8, false), (2, 8, true), (6, 16, false), (0, 8, false), (3, 8, true), (4, 8, false),
    ])
    func streamedShrinking(colorType: UInt8, depth: UInt8, interlaced: Bool) throws {
        // Given a noise image whose inflated data is just over 4 MiB, every filter chosen by libspng
        let samples = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)]!
        let width = 1031
        let rowBytes = width * samples * Int(depth) / 8
        let height = PNGInflatedImage.maximumWholeInflateBytesForReduction / rowBytes + 7
        let data = try Self.encodeNoise(width: width, height: height, colorType: colorType, depth: depth, interlaced: interlaced, filter: SPNG_FILTER_CHOICE_ALL)
        let reference = try #require(Self.spngReference(data))
        let plan = reference.plan
        let expected = Self.boxAverage(reference, factor: 5)
        // When the coder shrinks it by 5 while decoding
        let shrunk = try data.withUnsafeBytes { buffer in
            let context = try SpngContext(decoding: buffer)
            _ = try context.hasTransparencyChunk()
            var streamed = PNGInflatedImage(png: buffer, context: context, plan: plan, maximumInflatedBytes: .max, reduced: true)
            #expect(streamed?.isStreaming == true)
            // Every row streams and the Adler-32 matches: no silent fall-back to libspng
            var rows = 0
            #expect(streamed?.forEachRow { _, _, _ in rows += 1; return true } == true)
            #expect(rows == (streamed?.layout.passes.reduce(0) { $0 + ($1.isEmpty ? 0 : $1.height) } ?? -1))
            return try PNGCoder.decodeShrinking(context, png: buffer, plan: plan, factor: 5)
        }
        // Then the pixels are the same as libspng's, reduced
        #expect(shrunk.size == expected.size)
        #expect(shrunk.pixels == expected.pixels)
        // And the coder's thumbnail (a shrink, then an exact resample) is that image resampled
        let thumbnail = try PNGCoder().decode(data, options: ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
        #expect(max(thumbnail.width, thumbnail.height) == 100)
    }

    @Test("a streamed thumbnail of damaged or cut image data, or a wrong Adler-32, falls back to libspng and its error", arguments: [0, 1, 2])
    func streamedDamage(damage: Int) throws {
        let truncate = damage == 1
        // Given a large noise PNG whose image data is damaged in its middle or in its Adler-32 trailer (CRC made right), or cut short
        let good = try Self.encodeNoise(width: 1031, height: 1100, colorType: 6, depth: 8, interlaced: false, filter: SPNG_FILTER_CHOICE_ALL)
        var png = [UInt8](good)
        let offset = try #require(Self.chunkOffset(png, "IDAT"))
        let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
        if truncate {
            // Cut the stream short inside the first IDAT, keeping the chunk whole.
            let cut = length / 2
            png.removeSubrange((offset + 8 + cut)..<(offset + 8 + length))
            png[offset] = UInt8(truncatingIfNeeded: cut >> 24); png[offset + 1] = UInt8(truncatingIfNeeded: cut >> 16)
            png[offset + 2] = UInt8(truncatingIfNeeded: cut >> 8); png[offset + 3] = UInt8(truncatingIfNeeded: cut)
            let crc = png.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[(offset + 4)..<(offset + 8 + cut)])) }
            for index in 0..<4 { png[offset + 8 + cut + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
        } else {
            // A flipped byte of deflate data, or of the Adler-32 trailer (the last 4 bytes of the last IDAT).
            var chunk = offset
            if damage == 2 {
                while let next = Self.chunkOffset(png, "IDAT", after: chunk) { chunk = next }
            }
            let size = Int(png[chunk]) << 24 | Int(png[chunk + 1]) << 16 | Int(png[chunk + 2]) << 8 | Int(png[chunk + 3])
            try #require(size >= 4)
            png[chunk + 8 + (damage == 2 ? size - 2 : size / 2)] ^= 0x55
            let crc = png.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[(chunk + 4)..<(chunk + 8 + size)])) }
            for index in 0..<4 { png[chunk + 8 + size + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
        }
        let data = Data(png)
        // When the coder makes a thumbnail of it
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 128, height: 128))
        // Then it fails with a typed error, as libspng does (a damaged deflate stream is not decodable)
        #expect(Self.spngReference(data)?.pixels == nil)
        #expect(throws: ImageError.self) { try PNGCoder().decode(data, options: options) }
    }

    @Test("damaged image data falls back to libspng and its error")
    func damaged() throws {
        // Given a good file with one byte of its image data flipped and its CRC made right again
        var png = [UInt8](try PNGFixture.data("rgb8"))
        let offset = try #require(Self.chunkOffset(png, "IDAT"))
        let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
        png[offset + 8 + length / 2] ^= 0x55
        let crc = png.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[(offset + 4)..<(offset + 8 + length)])) }
        for index in 0..<4 { png[offset + 8 + length + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
        let data = Data(png)
        // When libspng and the coder decode it
        let reference = Self.spngReference(data)
        // Then the libdeflate path does not apply, and the coder agrees with libspng
        #expect(try Self.inflatedDecode(data) == nil)
        if let reference {
            #expect(try PNGCoder().decode(data, options: .init()).pixels == reference.pixels)
        } else {
            #expect(throws: ImageError.self) { try PNGCoder().decode(data, options: .init()) }
        }
    }

    static func chunkOffset(_ png: [UInt8], _ type: String, after start: Int? = nil) -> Int? {
        var offset = 8
        if let start {
            offset = start + 12 + (Int(png[start]) << 24 | Int(png[start + 1]) << 16 | Int(png[start + 2]) << 8 | Int(png[start + 3]))
        }
        while offset + 12 <= png.count {
            let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
            if String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self) == type { return offset }
            offset += 12 + length
        }
        return nil
    }

    /// A PNG of noise (with flat and ramp regions, so filters see every
    /// kind of neighbour) encoded by libspng with one filter only.
    static func encodeNoise(width: Int, height: Int, colorType: UInt8, depth: UInt8, interlaced: Bool, filter: spng_filter_choice) throws -> Data {
        let samples = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)]!
        let rowBytes = (width * samples * Int(depth) + 7) / 8
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(depth) &+ UInt64(colorType)
        var raw = [UInt8](repeating: 0, count: rowBytes * height)
        for y in 0..<height {
            for x in 0..<rowBytes {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = UInt8(truncatingIfNeeded: state >> 56)
                raw[y * rowBytes + x] = switch y % 3 { case 0: noise; case 1: UInt8(truncatingIfNeeded: x &* 7 &+ y); default: y > 20 ? 0xFF : noise & 0x0F }
            }
        }
        if colorType == 3 {
            // Indices within the 16-entry palette below.
            raw = raw.map { depth == 8 ? $0 & 0x0F : $0 }
        }
        guard let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { throw ImageError.encodingFailed(.png, "context") }
        defer { spng_ctx_free(context) }
        func check(_ code: Int32) throws { if code != 0 { throw ImageError.encodingFailed(.png, String(cString: spng_strerror(code))) } }
        try check(spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1))
        try check(spng_set_option(context, SPNG_FILTER_CHOICE, Int32(filter.rawValue)))
        var header = spng_ihdr(
            width: UInt32(width), height: UInt32(height), bit_depth: depth, color_type: colorType,
            compression_method: 0, filter_method: 0, interlace_method: interlaced ? 1 : 0
        )
        try check(spng_set_ihdr(context, &header))
        if colorType == 3 {
            var palette = spng_plte()
            palette.n_entries = 16
            withUnsafeMutableBytes(of: &palette.entries) { entries in
                for index in 0..<16 {
                    entries[index * 4] = UInt8(index * 16)
                    entries[index * 4 + 1] = UInt8(255 - index * 16)
                    entries[index * 4 + 2] = UInt8(index * 5)
                }
            }
            try check(spng_set_plte(context, &palette))
        }
        // libspng encodes PNG-format rows in host order for 16-bit samples.
        if depth == 16 {
            for index in stride(from: 0, to: raw.count, by: 2) { raw.swapAt(index, index + 1) }
        }
        try raw.withUnsafeBytes {
            try check(spng_encode_image(context, $0.baseAddress, $0.count, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue)))
        }
        var length = 0
        var error: Int32 = 0
        guard let buffer = spng_get_png_buffer(context, &length, &error) else { throw ImageError.encodingFailed(.png, "buffer") }
        defer { free(buffer) }
        return Data(bytes: buffer, count: length)
    }
}
