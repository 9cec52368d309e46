import Foundation
import Testing
@testable import AsyncWebImage
import AsyncWebImageAllFormats

/// The PNG fixtures made by `Fixtures/make-png-fixtures.sh`, and their
/// reference pixels decoded by ImageMagick.
enum PNGFixture {
    static func data(_ name: String, extension ext: String = "png") throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures/png"))
        return try Data(contentsOf: url)
    }

    /// The reference as 8-bit RGBA: ImageMagick's 8-bit output, or its
    /// 16-bit output rounded to 8 bits (`round(v × 255 / 65535)`).
    static func referenceRGBA(_ name: String) throws -> [UInt8] {
        if name.contains("16") {
            let wide = try [UInt8](data(name, extension: "rgba16"))
            return stride(from: 0, to: wide.count, by: 2).map { index in
                let value = Double(Int(wide[index]) << 8 | Int(wide[index + 1]))
                return UInt8((value * 255 / 65535).rounded())
            }
        }
        return try [UInt8](data(name, extension: "rgba"))
    }

    /// `image`'s pixels widened to RGBA (grey repeated, opaque when there is no alpha).
    static func rgba(_ image: Image) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(image.width * image.height * 4)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y) ?? []
                switch image.pixelFormat {
                case .gray8: out += [p[0], p[0], p[0], 255]
                case .grayAlpha8: out += [p[0], p[0], p[0], p[1]]
                case .rgb8: out += [p[0], p[1], p[2], 255]
                case .rgba8: out += p
                }
            }
        }
        return out
    }
}

@Suite("PNGCoder", .timeLimit(.minutes(2)))
struct PNGCoderTests {
    let coder = PNGCoder()

    static let fixtures: [(String, PixelFormat)] = [
        ("gray1", .gray8), ("gray2", .gray8), ("gray4", .gray8), ("gray8", .gray8), ("gray16", .gray8),
        ("gray2-trns", .grayAlpha8), ("gray8-trns", .grayAlpha8), ("gray16-trns", .grayAlpha8),
        ("grayalpha8", .grayAlpha8), ("grayalpha16", .grayAlpha8),
        ("rgb8", .rgb8), ("rgb16", .rgb8), ("rgb8-trns", .rgba8), ("rgb16-trns", .rgba8),
        ("palette1", .rgb8), ("palette2", .rgb8), ("palette4", .rgb8), ("palette8", .rgb8),
        ("palette1-trns", .rgba8), ("palette2-trns", .rgba8), ("palette4-trns", .rgba8), ("palette8-trns", .rgba8),
        ("rgba8", .rgba8), ("rgba16", .rgba8), ("rgba16-smooth", .rgba8),
        ("gray1-interlaced", .gray8), ("palette4-trns-interlaced", .rgba8),
        ("rgb8-interlaced", .rgb8), ("rgba16-interlaced", .rgba8),
        ("progressive-interlaced", .rgb8), ("progressive-plain", .rgb8),
        ("exif-orientation6", .rgb8), ("exif-after-idat-orientation8", .rgb8),
    ]

    @Test("decodes every colour type and bit depth to the reference pixels", arguments: fixtures)
    func decodesFixture(name: String, format: PixelFormat) throws {
        // Given a PNG and ImageMagick's decode of it
        let data = try PNGFixture.data(name)
        let reference = try PNGFixture.referenceRGBA(name)
        // When it is decoded
        let image = try coder.decode(data, options: .init())
        // Then the format is the documented one and every channel matches exactly
        #expect(image.pixelFormat == format)
        #expect(image.format == .png)
        let orientations: [String: Image.Orientation] = ["exif-orientation6": .right, "exif-after-idat-orientation8": .left]
        #expect(image.orientation == orientations[name] ?? .up)
        #expect(!image.isPreview)
        #expect(image.width * image.height * 4 == reference.count)
        let pixels = PNGFixture.rgba(image)
        let mismatches = zip(pixels, reference).filter { $0 != $1 }.count
        #expect(mismatches == 0, "\(name): \(mismatches) channels differ")
    }

    @Test("tRNS makes exactly the key colour transparent")
    func transparencyKey() throws {
        // Given grey 8-bit with tRNS grey 21, and RGB 8-bit with tRNS (80, 100, 50)
        let gray = try coder.decode(PNGFixture.data("gray8-trns"), options: .init())
        let rgb = try coder.decode(PNGFixture.data("rgb8-trns"), options: .init())
        // Then alpha is 0 exactly where the generator wrote the key, 255 elsewhere
        for y in 0..<23 {
            for x in 0..<37 {
                let key = (x * 7 + y) % 64 == 21
                #expect(gray.pixel(x: x, y: y) == [UInt8((x * 7 + y) % 64), key ? 0 : 255])
                let rgbKey = x % 4 == 1 && y % 3 == 1
                #expect(rgb.pixel(x: x, y: y)?[3] == (rgbKey ? 0 : 255))
            }
        }
    }

    @Test("rounds 16-bit samples to the nearest 8-bit value")
    func sixteenBitRounding() throws {
        // Given grey 16-bit samples (x·1777 + y·4099 + 31xy) mod 65536
        let image = try coder.decode(PNGFixture.data("gray16"), options: .init())
        // Then 1777 → 7 (1777 / 257 = 6.91; truncation would give 6) and 21324 → 83
        #expect(image.pixel(x: 1, y: 0) == [7])
        #expect(image.pixel(x: 12, y: 0) == [83])
        for y in 0..<23 {
            for x in 0..<37 {
                let value = Double((x * 1777 + y * 4099 + x * y * 31) % 65536)
                #expect(image.pixel(x: x, y: y) == [UInt8((value / 257).rounded())])
            }
        }
    }

    @Test("Adam7 interlaced PNGs decode to the same pixels as their plain twins", arguments: [
        ("gray1-interlaced", "gray1"), ("palette4-trns-interlaced", "palette4-trns"),
        ("rgb8-interlaced", "rgb8"), ("rgba16-interlaced", "rgba16"),
        ("progressive-interlaced", "progressive-plain"), ("progressive-interlaced-one-idat", "progressive-plain"),
    ])
    func interlacedEqualsPlain(interlaced: String, plain: String) throws {
        let a = try coder.decode(PNGFixture.data(interlaced), options: .init())
        let b = try coder.decode(PNGFixture.data(plain), options: .init())
        #expect(a.hasSamePixels(as: b))
    }

    @Test("reads the orientation from eXIf and applies it on request")
    func exifOrientation() throws {
        // Given a 37×23 PNG whose eXIf says orientation 6 (rotate 90° clockwise)
        let data = try PNGFixture.data("exif-orientation6")
        let stored = try coder.decode(data, options: .init())
        #expect(stored.orientation == .right)
        #expect(stored.size == PixelSize(width: 37, height: 23))
        // When the orientation is applied
        let upright = try coder.decode(data, options: .init(applyOrientation: true))
        // Then the image is 23×37, upright, and its top-left is the stored bottom-left
        #expect(upright.orientation == .up)
        #expect(upright.size == PixelSize(width: 23, height: 37))
        for (x, y) in [(0, 0), (5, 9), (22, 36), (22, 0)] {
            #expect(upright.pixel(x: x, y: y) == stored.pixel(x: y, y: 22 - x))
        }
    }

    @Test("reads an eXIf chunk placed after the image data too", arguments: [
        ImageDecodingOptions(), ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10)),
        ImageDecodingOptions(applyOrientation: true),
    ])
    func exifAfterImageData(options: ImageDecodingOptions) throws {
        // Given a 37×23 PNG whose little-endian eXIf (orientation 8) follows the IDATs
        let image = try coder.decode(PNGFixture.data("exif-after-idat-orientation8"), options: options)
        // Then the orientation is found and applied to the size as asked
        if options.applyOrientation {
            #expect(image.orientation == .up && image.size == PixelSize(width: 23, height: 37))
        } else {
            #expect(image.orientation == .left)
            #expect(image.orientedSize == (options.thumbnailPixelSize == nil ? PixelSize(width: 23, height: 37) : PixelSize(width: 6, height: 10)))
        }
    }

    @Test("thumbnails keep the aspect ratio, never enlarge, and resample with area averaging")
    func thumbnails() throws {
        let data = try PNGFixture.data("progressive-plain") // 160×120
        let full = try coder.decode(data, options: .init())
        // Given a 64×64 box: 64×48
        let fit = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 64, height: 64)))
        #expect(fit.size == PixelSize(width: 64, height: 48))
        #expect(fit.pixelFormat == .rgb8)
        // Without aspect: exactly the box
        let stretched = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 50, height: 50), preserveAspectRatio: false))
        #expect(stretched.size == PixelSize(width: 50, height: 50))
        // Larger than the image: the image itself
        let same = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 1000, height: 1000)))
        #expect(same.hasSamePixels(as: full))
        // Area averaging of the 2.5×2.5 block at the top-left of a smooth red/green ramp stays close to it
        let corner = try #require(fit.pixel(x: 0, y: 0))
        let source = try #require(full.pixel(x: 1, y: 1))
        #expect(abs(Int(corner[0]) - Int(source[0])) <= 3 && abs(Int(corner[1]) - Int(source[1])) <= 3)
        // The box is in displayed pixels: orientation 6 swaps it
        let oriented = try coder.decode(PNGFixture.data("exif-orientation6"), options: .init(thumbnailPixelSize: PixelSize(width: 10, height: 10)))
        #expect(oriented.size == PixelSize(width: 10, height: 6))
        #expect(oriented.orientedSize == PixelSize(width: 6, height: 10))
    }

    @Test("scales down images over the decoded-bytes limit")
    func scaleDown() throws {
        // Given a 160×120 image (76 800 bytes as RGBA) and a 20 000-byte limit
        let options = ImageDecodingOptions(scaleDownLargeImages: true, scaleDownLimitBytes: 20_000)
        let image = try coder.decode(PNGFixture.data("progressive-plain"), options: options)
        // Then it fits the limit with the same aspect ratio
        #expect(image.width * image.height * 4 <= 20_000)
        #expect(abs(Double(image.width) / Double(image.height) - 4.0 / 3.0) < 0.05)
    }

    @Test("recognises PNG data and is reached through the built-in registry")
    func registry() throws {
        let data = try PNGFixture.data("rgb8")
        #expect(coder.canDecode(data))
        #expect(!coder.canDecode(Data("<html>".utf8)))
        let image = try ImageCoderRegistry.allFormats.decode(data)
        #expect(image.size == PixelSize(width: 37, height: 23))
        let decoder = try #require(ImageCoderRegistry.allFormats.decoder(for: data) as? any ProgressiveDecoderProviding)
        #expect(decoder.makeProgressiveDecoder(options: .init()) is PNGProgressiveDecoder)
    }

    @Test("decodes concurrently from many tasks with identical results")
    func concurrentDecodes() async throws {
        // Given three different PNGs decoded once, one after the other
        let names = ["rgba16-interlaced", "progressive-plain", "palette8-trns"]
        let inputs = try names.map { try PNGFixture.data($0) }
        let expected = try inputs.map { try coder.decode($0, options: .init()) }
        // When each is decoded 4 times at once, full size and as a thumbnail
        let results = try await withThrowingTaskGroup(of: (Int, Image, Image).self) { group in
            for round in 0..<12 {
                let index = round % inputs.count
                let (coder, data) = (coder, inputs[index])
                group.addTask {
                    let full = try coder.decode(data, options: .init())
                    let thumbnail = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
                    return (index, full, thumbnail)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Then every result equals the sequential one
        #expect(results.count == 12)
        for (index, full, thumbnail) in results {
            #expect(full.hasSamePixels(as: expected[index]))
            #expect(thumbnail.width <= 16 && thumbnail.height <= 16)
        }
    }

    // MARK: - Bad input

    /// The message of an `.undecodable(.png, _)` error, or a failure.
    private func undecodableMessage(_ data: Data, options: ImageDecodingOptions = .init()) -> String? {
        do {
            let image = try coder.decode(data, options: options)
            Issue.record("decoded \(image) from bad data")
            return nil
        } catch let ImageError.undecodable(format, message) {
            #expect(format == .png)
            return message
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test("empty, one-byte, random, text and HTML data are undecodable")
    func garbage() throws {
        var generator = SystemRandomNumberGenerator()
        let random = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let html = Data("<!DOCTYPE html><html><head><title>404</title></head><body>Not Found</body></html>".utf8)
        for data in [Data(), Data([0x89]), random, html, Data(PNGChunkScan.signature)] {
            #expect(undecodableMessage(data) != nil)
        }
    }

    @Test("a PNG truncated before its image data ends is undecodable, \"truncated\"")
    func truncated() throws {
        let data = try PNGFixture.data("rgb8")
        let idatEnd = data.count - 12 // the IEND chunk
        for cut in [1, 8, 16, 33, 40, 100, 300, 500, idatEnd - 20] {
            let message = undecodableMessage(data.prefix(cut))
            #expect(message?.hasPrefix("truncated") == true || cut < 33, "cut at \(cut): \(message ?? "-")")
        }
        // Thumbnails decode row by row: same contract
        let thumbnailOptions = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 8, height: 8))
        #expect(undecodableMessage(data.prefix(300), options: thumbnailOptions)?.hasPrefix("truncated") == true)
        // A 16-bit one goes through the row decoder: same contract
        let wide = try PNGFixture.data("rgba16")
        #expect(undecodableMessage(wide.prefix(wide.count / 2))?.hasPrefix("truncated") == true)
        // Cut after all image data (inside the last IDAT's CRC, or IEND): the image decodes
        #expect((try? coder.decode(data.prefix(idatEnd - 2), options: .init())) != nil)
        let image = try coder.decode(data.prefix(data.count - 2), options: .init())
        #expect(image.hasSamePixels(as: try coder.decode(data, options: .init())))
    }

    @Test("a bad chunk CRC is undecodable")
    func badCRC() throws {
        let message = undecodableMessage(try PNGFixture.data("bad-crc"))
        #expect(message?.contains("checksum") == true)
    }

    @Test("a header declaring 100000×100000 fails before any allocation")
    func hugeHeader() throws {
        let data = try PNGFixture.data("huge-header")
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 10_000_000_000)) {
            try coder.decode(data, options: .init())
        }
        // With the pixel limit lifted, an absolute ceiling still refuses it before allocating
        #expect(throws: ImageError.tooLarge(.decodedBytes, limit: 1 << 34, actual: 80_000_000_000)) {
            try coder.decode(data, options: .init(maxPixelCount: .max))
        }
        // A tighter limit applies to ordinary images too
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100, actual: 851)) {
            try coder.decode(try PNGFixture.data("rgb8"), options: .init(maxPixelCount: 100))
        }
    }

    // MARK: Image data too short for the declared size

    /// `png` with its IHDR's width and height replaced (and its CRC redone).
    static func withDeclaredSize(_ png: Data, width: Int, height: Int) -> Data {
        var bytes = [UInt8](png)
        for (offset, value) in [(16, width), (20, height)] {
            for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
        }
        let crc = bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[12..<29])) }
        for index in 0..<4 { bytes[29 + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
        return Data(bytes)
    }

    /// The IDAT payload bytes of `png`.
    static func imageDataBytes(_ png: Data) throws -> Int {
        try png.withUnsafeBytes { try PNGChunkScan($0).imageDataBytes }
    }

    @Test("a small PNG declaring 10000×10000 fails at once on the image-data length check", arguments: [
        ("gray8", 10_000 * (1 + 10_000)), ("rgba8", 10_000 * (1 + 40_000)), ("rgb8-interlaced", 10_000 * (1 + 30_000)),
    ])
    func imageDataTooShort(name: String, filteredBytes: Int) throws {
        // Given a real PNG (an Adam7 one too) whose IHDR now says 10000×10000:
        // within the pixel limit, but its few hundred bytes of IDAT cannot
        // inflate to the 100–400 MB of rows
        let data = Self.withDeclaredSize(try PNGFixture.data(name), width: 10_000, height: 10_000)
        let idat = try Self.imageDataBytes(data)
        #expect(data.count < 2000 && idat > 0)
        let expected = ImageError.undecodable(.png, "truncated: the image data is too short for the declared 10000×10000: "
            + "\(idat) bytes, where deflate needs at least \(filteredBytes / 1032) for its \(filteredBytes) bytes of rows (1032:1 at most)")
        // When decoded in full, and as a thumbnail (the row-by-row path), the
        // length check refuses it before libspng inflates anything
        expectFastFailure(coder, data, expected)
    }

    @Test("all-zero images, deflate's best case, pass the image-data length check")
    func maximallyCompressible() throws {
        // Given a 4000×4000 1-bit image of zeros made by zlib at level 9:
        // 1965 bytes of IDAT for 2,004,000 bytes of rows, 24 over the bound
        let data = try PNGFixture.data("zero-gray1-4000")
        #expect(try Self.imageDataBytes(data) == 1965)
        #expect(2_004_000 / 1032 == 1941)
        // When decoded, then it is the whole image, all zeros
        let image = try coder.decode(data, options: .init())
        #expect(image.size == PixelSize(width: 4000, height: 4000) && image.pixelFormat == .gray8)
        #expect(image.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
        // And declared 1.3 % taller, the same image data falls under the bound
        let taller = Self.withDeclaredSize(data, width: 4000, height: 4051)
        #expect(undecodableMessage(taller)?.hasPrefix("truncated: the image data is too short for the declared 4000×4051: 1965 bytes") == true)

        // Given all-zero grey and RGBA images encoded in-process by libspng at level 9
        for (format, side) in [(PixelFormat.gray8, 3000), (.rgba8, 1500)] {
            let zeros = try Image(width: side, height: side, pixelFormat: format, pixels: [UInt8](repeating: 0, count: side * side * format.bytesPerPixel))
            let png = try PNGCoder(compressionLevel: 9).encode(zeros, as: .png, quality: 1)
            let idat = try Self.imageDataBytes(png)
            let minimum = side * (1 + side * format.bytesPerPixel) / 1032
            #expect(idat >= minimum && idat < minimum * 11 / 10, "\(format): \(idat) bytes of IDAT, bound \(minimum)")
            // Then they decode to the same zeros
            #expect(try coder.decode(png, options: .init()).hasSamePixels(as: zeros))
        }
    }

    @Test("deflate bombs: a compressed-text bomb hits the chunk limit; an IDAT bomb inflates only one pixel")
    func deflateBombs() throws {
        // Given a zTXt chunk inflating to 16 MiB (limit 4 MiB)
        let message = undecodableMessage(try PNGFixture.data("bomb-ztxt"))
        #expect(message?.contains("limits") == true, "\(message ?? "-")")
        // Given a 1×1 image whose IDAT inflates to 16 MiB: only the pixel is used
        let image = try coder.decode(try PNGFixture.data("bomb-idat"), options: .init())
        #expect(image.size == PixelSize(width: 1, height: 1))
        #expect(image.pixel(x: 0, y: 0) == [0])
    }

    @Test("flipped bytes anywhere give an image or a typed error, never a crash", arguments: [
        "palette4-trns-interlaced", "rgba16", "gray2-trns", "exif-orientation6",
    ])
    func corruptedBytes(name: String) throws {
        let data = try PNGFixture.data(name)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var bytes = [UInt8](data)
            for _ in 0..<3 {
                bytes[Int.random(in: 8..<bytes.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
            }
            do {
                let image = try coder.decode(Data(bytes), options: .init(maxPixelCount: 1_000_000))
                #expect(image.width * image.height <= 1_000_000)
            } catch is ImageError {
                // expected for most corruptions
            }
        }
    }
}
