import Foundation
import Testing
@testable import AsyncWebImage

@Suite("JPEGCoder", .timeLimit(.minutes(2)))
struct JPEGCoderTests {
    let coder = JPEGCoder()

    // MARK: Pixels against djpeg

    @Test("decodes every colour layout exactly as djpeg does", arguments: [
        "baseline-420", "baseline-422", "baseline-444", "baseline-restart", "baseline-arithmetic", "progressive",
    ])
    func matchesDjpeg(name: String) throws {
        // Given a JPEG and djpeg's decode of it (same islow IDCT, same fancy upsampling)
        let data = try JPEGFixtures.data("\(name).jpg")
        let reference = try JPEGFixtures.reference("\(name).ppm")
        // When it is decoded
        let image = try coder.decode(data, options: .init())
        // Then the pixels are identical
        #expect(image.pixelFormat == .rgb8)
        #expect(image.format == .jpeg)
        #expect(image.orientation == .up)
        #expect(!image.isPreview)
        #expect(image.size == PixelSize(width: 96, height: 64))
        #expect(image.maximumChannelDifference(from: reference) == 0)
    }

    @Test("decodes grayscale to gray8, exactly as djpeg does")
    func gray() throws {
        let image = try coder.decode(try JPEGFixtures.data("gray.jpg"), options: .init())
        #expect(image.pixelFormat == .gray8)
        #expect(image.bytesPerRow == 96)
        #expect(image.maximumChannelDifference(from: try JPEGFixtures.reference("gray.pgm")) == 0)
    }

    @Test("converts Adobe CMYK and YCCK to RGB (inverted samples)", arguments: ["cmyk", "ycck"])
    func cmyk(name: String) throws {
        // Given a Photoshop-style CMYK or YCCK JPEG (made by ImageMagick / libjpeg)
        let image = try coder.decode(try JPEGFixtures.data("\(name).jpg"), options: .init())
        // Then it is RGB, equal to djpeg's R = C·K/255 conversion (which
        // ImageMagick agrees with to ±1, checked by the fixture script)
        #expect(image.pixelFormat == .rgb8)
        #expect(image.maximumChannelDifference(from: try JPEGFixtures.reference("\(name).ppm")) == 0)
        // And the corner blocks have their colours: red, green, blue, yellow
        // (JPEG quality 90, so within a small tolerance)
        let corners: [((Int, Int), [Int])] = [((4, 4), [255, 0, 0]), ((91, 4), [0, 255, 0]), ((4, 59), [0, 0, 255]), ((91, 59), [255, 255, 0])]
        for ((x, y), expected) in corners {
            let pixel = try #require(image.pixel(x: x, y: y)).map(Int.init)
            #expect(zip(pixel, expected).allSatisfy { abs($0 - $1) <= 24 }, "\(name) (\(x),\(y)) is \(pixel), expected \(expected)")
        }
    }

    // MARK: Orientation

    /// Colour of each corner of the upright 64×40 orientation picture.
    static let uprightCorners: [((Int, Int), [Int])] = [
        ((3, 3), [255, 0, 0]), ((60, 3), [0, 255, 0]), ((3, 36), [0, 0, 255]), ((60, 36), [255, 255, 0]),
    ]

    @Test("reads every EXIF orientation, in both byte orders", arguments: 1...8)
    func readsOrientation(value: Int) throws {
        // Given a file stored for orientation `value` (odd: II EXIF, even: MM)
        let data = try JPEGFixtures.data("orientation-\(value).jpg")
        // When decoded without applying it
        let image = try coder.decode(data, options: .init())
        // Then the orientation is reported and the pixels stay as stored
        #expect(image.orientation.rawValue == UInt8(value))
        #expect(image.size == (value >= 5 ? PixelSize(width: 40, height: 64) : PixelSize(width: 64, height: 40)))
        #expect(image.orientedSize == PixelSize(width: 64, height: 40))
    }

    @Test("applies every EXIF orientation: each corner lands where it belongs", arguments: 1...8)
    func appliesOrientation(value: Int) throws {
        let data = try JPEGFixtures.data("orientation-\(value).jpg")
        // When decoded with applyOrientation
        let image = try coder.decode(data, options: .init(applyOrientation: true))
        // Then the picture is upright: 64×40, red top-left, green top-right, blue bottom-left, yellow bottom-right
        #expect(image.orientation == .up)
        #expect(image.size == PixelSize(width: 64, height: 40))
        for ((x, y), expected) in Self.uprightCorners {
            let pixel = try #require(image.pixel(x: x, y: y)).map(Int.init)
            #expect(zip(pixel, expected).allSatisfy { abs($0 - $1) <= 24 }, "orientation \(value): (\(x),\(y)) is \(pixel), expected \(expected)")
        }
    }

    // MARK: Thumbnails and scale-down

    @Test("with .area, a thumbnail at exactly 1/4 scale is djpeg -scale 1/4, untouched by the resampler")
    func dctScaledDecode() throws {
        // Given the 640×480 image and djpeg's DCT-domain 1/4 decode
        let data = try JPEGFixtures.data("large.jpg")
        let reference = try JPEGFixtures.reference("large-quarter.ppm")
        // When a 160×120 thumbnail is asked for with the .area speed option
        // (which decodes at the smallest covering DCT scale)
        var options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 160, height: 120))
        options.thumbnailFilter = .area
        let image = try coder.decode(data, options: options)
        // Then it is the DCT-scaled decode itself
        #expect(image.size == PixelSize(width: 160, height: 120))
        #expect(image.maximumChannelDifference(from: reference) == 0)
    }

    @Test("thumbnails have the exact size and aspect, and look like the full image resized")
    func thumbnail() throws {
        let data = try JPEGFixtures.data("large.jpg")
        // When a thumbnail fitting 100×100 is asked for
        let thumbnail = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
        // Then it is 100×75 (4:3 kept)
        #expect(thumbnail.size == PixelSize(width: 100, height: 75))
        #expect(thumbnail.pixelFormat == .rgb8)
        // And close to a full decode resampled to the same size (DCT scaling
        // then area averaging differs from area averaging alone only slightly)
        let full = try coder.decode(data, options: .init())
        let resized = ImageResampler.resample(full, to: thumbnail.size)
        let mean = try #require(JPEGFixtures.meanDifference(thumbnail, resized, rows: 0..<75))
        #expect(mean < 2.5, "mean difference \(mean)")

        // Without preserving the aspect ratio, exactly the size asked for
        let stretched = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 50, height: 50), preserveAspectRatio: false))
        #expect(stretched.size == PixelSize(width: 50, height: 50))

        // Never enlarged
        let small = try coder.decode(try JPEGFixtures.data("baseline-420.jpg"), options: .init(thumbnailPixelSize: PixelSize(width: 500, height: 500)))
        #expect(small.size == PixelSize(width: 96, height: 64))
    }

    @Test("CMYK and gray thumbnails scale in the DCT domain too", arguments: ["cmyk.jpg", "ycck.jpg", "gray.jpg"])
    func otherLayoutThumbnails(name: String) throws {
        let image = try coder.decode(try JPEGFixtures.data(name), options: .init(thumbnailPixelSize: PixelSize(width: 30, height: 30)))
        #expect(image.size == PixelSize(width: 30, height: 20))
        #expect(image.pixelFormat == (name == "gray.jpg" ? .gray8 : .rgb8))
        if name != "gray.jpg" {
            // the red top-left block survives the 96→48 (1/2 DCT) → 30 path
            let red = try #require(image.pixel(x: 1, y: 1)).map(Int.init)
            #expect(red[0] > 200 && red[1] < 60 && red[2] < 60, "\(red)")
        }
    }

    @Test("thumbnail sizes are in displayed pixels for rotated images")
    func orientedThumbnail() throws {
        // Given a file stored 40×64 that displays 64×40 (EXIF 6)
        let data = try JPEGFixtures.data("orientation-6.jpg")
        // When a 32×32 thumbnail is asked for
        let stored = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 32, height: 32)))
        let upright = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 32, height: 32), applyOrientation: true))
        // Then it displays 32×20
        #expect(stored.size == PixelSize(width: 20, height: 32))
        #expect(stored.orientation == .right)
        #expect(upright.size == PixelSize(width: 32, height: 20))
        #expect(upright.orientation == .up)
        // And the red corner is still top-left once upright
        let red = try #require(upright.pixel(x: 1, y: 1)).map(Int.init)
        #expect(red[0] > 180 && red[1] < 80 && red[2] < 80, "\(red)")
    }

    @Test("scaleDownLargeImages keeps the decoded bytes under the limit")
    func scaleDown() throws {
        let data = try JPEGFixtures.data("large.jpg")
        // When the limit is 100 000 bytes (640×480×4 is 1 228 800)
        let image = try coder.decode(data, options: .init(scaleDownLargeImages: true, scaleDownLimitBytes: 100_000))
        // Then the image is scaled down, aspect kept, to fit 4 bytes per pixel under the limit
        #expect(image.width * image.height * 4 <= 100_000)
        #expect(image.width >= 170 && image.height >= 125)
        #expect(abs(Double(image.width) / Double(image.height) - 4.0 / 3.0) < 0.02)
        // And an image under the limit is left alone
        let untouched = try coder.decode(data, options: .init(scaleDownLargeImages: true))
        #expect(untouched.size == PixelSize(width: 640, height: 480))
    }

    // MARK: Limits and bad input

    @Test("a header declaring 65500×65500 fails with tooLarge before any allocation")
    func hugeHeader() throws {
        // Given a 30 KB file whose SOF claims 65500×65500 (libjpeg's largest;
        // 100000×100000 does not fit the header's 16-bit fields)
        for (width, height) in [(65_500, 65_500), (64_250, 64_250)] {
            let data = try JPEGFixtures.withDeclaredSize(try JPEGFixtures.data("large.jpg"), width: width, height: height)
            // When decoded, then it fails on the pixel limit, naming the declared count
            #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: Int64(width * height))) {
                try coder.decode(data, options: .init())
            }
        }
        // And sides libjpeg refuses (65501...65535) are undecodable
        let widest = try JPEGFixtures.withDeclaredSize(try JPEGFixtures.data("large.jpg"), width: 65_535, height: 65_535)
        #expect(throws: ImageError.undecodable(.jpeg, "Maximum supported image dimension is 65500 pixels")) {
            try coder.decode(widest, options: .init())
        }
        // And a lowered limit applies to ordinary files too
        #expect(throws: ImageError.tooLarge(.pixels, limit: 1000, actual: 640 * 480)) {
            try coder.decode(try JPEGFixtures.data("large.jpg"), options: .init(maxPixelCount: 1000))
        }
    }

    @Test("rejects data that is not JPEG with a typed error")
    func notJPEG() throws {
        var generator = SeededGenerator(seed: 0x4A50_4547) // seeded: a failure reproduces
        let random = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let inputs: [Data] = [
            Data(), Data([0xFF]), Data([0xFF, 0xD8]), Data([0xFF, 0xD8, 0xFF]), random,
            Data("<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>nope</body></html>".utf8),
            Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]), // impossible segment length
        ]
        for input in inputs {
            #expect(throws: ImageError.self) { try coder.decode(input, options: .init()) }
            do {
                _ = try coder.decode(input, options: .init())
            } catch let error as ImageError {
                guard case .undecodable(.jpeg, let message) = error else {
                    Issue.record("\(input.count) bytes: \(error)")
                    continue
                }
                #expect(!message.isEmpty)
            }
        }
    }

    @Test("truncated data is an error in a full decode, never a half-grey image", arguments: [0.1, 0.3, 0.5, 0.8, 0.95])
    func truncated(fraction: Double) throws {
        for name in ["large.jpg", "large-progressive.jpg", "cmyk.jpg"] {
            let data = try JPEGFixtures.data(name)
            let cut = data.prefix(Int(Double(data.count) * fraction))
            // A plain truncation fails: by the EOI check, before any pixel
            // allocation, or (a sequential file cut inside its one scan, which
            // may lack only its EOI) by libjpeg's warning once an EOI is appended
            do {
                let image = try coder.decode(cut, options: .init())
                Issue.record("\(name) cut to \(cut.count) bytes decoded to \(image)")
            } catch let ImageError.undecodable(format, message) {
                #expect(format == .jpeg && message.hasPrefix("truncated"), "\(message)")
            }
            // With an EOI stuck on the end, libjpeg's own warning rejects it
            do {
                let image = try coder.decode(cut + [0xFF, 0xD9], options: .init())
                Issue.record("\(name) cut to \(cut.count) bytes decoded to \(image)")
            } catch let error as ImageError {
                guard case .undecodable(.jpeg, let message) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(message.hasPrefix("truncated or corrupt data: "), "\(message)")
            }
        }
    }

    @Test("mutated files yield a typed error or a whole image, never a crash", arguments: ["baseline-420.jpg", "progressive.jpg", "ycck.jpg", "orientation-5.jpg", "large-progressive.jpg"])
    func mutations(name: String) throws {
        // Given 150 copies of a file, each with a few random bytes changed
        // (seeded, so a failure reproduces)
        let original = [UInt8](try JPEGFixtures.data(name))
        var random = SeededGenerator(seed: UInt64(name.utf8.count) &* 0x9E37_79B9)
        for round in 0..<150 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                bytes[Int.random(in: 2..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            // When decoded fully and as a preview
            do {
                // (every third round a thumbnail; for the large progressive file a
                // 1/8-scale one, which goes through the scan pruner)
                let thumbnail = name.hasPrefix("large") ? PixelSize(width: 64, height: 64) : PixelSize(width: 20, height: 20)
                let image = try coder.decode(Data(bytes), options: .init(thumbnailPixelSize: round.isMultiple(of: 3) ? thumbnail : nil))
                // Then a successful decode is a whole, consistent image
                #expect(image.width > 0 && image.height > 0 && image.cost >= image.bytesPerRow * image.height)
            } catch is ImageError {
                // a typed error is fine
            }
            var decoder = JPEGProgressiveDecoder()
            _ = try? decoder.preview(for: Data(bytes.dropLast(bytes.count / 3)))
        }
    }

    @Test("a sequential file lacking only its EOI marker decodes to the whole file's pixels; a progressive one fails")
    func missingEOI() throws {
        let data = try JPEGFixtures.data("baseline-420.jpg")
        #expect(data.suffix(2) == Data([0xFF, 0xD9]))
        let whole = try coder.decode(data, options: .init())
        #expect(try coder.decode(data.dropLast(2), options: .init()).hasSamePixels(as: whole))
        let progressive = try JPEGFixtures.data("progressive.jpg")
        #expect(throws: ImageError.undecodable(.jpeg, "truncated data: no EOI marker")) {
            try coder.decode(progressive.dropLast(2), options: .init())
        }
    }

    @Test("decodes from a Data slice that does not start at index 0")
    func slice() throws {
        let data = Data("padding".utf8) + (try JPEGFixtures.data("baseline-444.jpg"))
        let image = try coder.decode(data[7...], options: .init())
        #expect(image.maximumChannelDifference(from: try JPEGFixtures.reference("baseline-444.ppm")) == 0)
    }

    @Test("harmless libjpeg warnings do not reject valid files")
    func harmlessWarnings() throws {
        // Given a valid file with junk bytes before its SOS marker (libjpeg
        // warns "extraneous bytes before marker") and trailing garbage after EOI
        let data = try JPEGFixtures.data("baseline-444.jpg")
        let bytes = [UInt8](data)
        let sos = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let damaged = Data(bytes[..<sos] + [0x11, 0x22, 0x33] + bytes[sos...] + Array("trailing junk".utf8))
        // When decoded, then it decodes to the same pixels
        let image = try coder.decode(damaged, options: .init())
        #expect(image.maximumChannelDifference(from: try JPEGFixtures.reference("baseline-444.ppm")) == 0)

        // But the same junk plus a truncation is still caught (libjpeg only
        // reports its first warning, the extraneous bytes)
        let truncated = Data(bytes[..<sos] + [0x11, 0x22, 0x33] + bytes[sos..<(bytes.count - 600)])
        #expect(throws: ImageError.self) { try coder.decode(truncated, options: .init()) }
    }

    @Test("bytes left over inside a scan, before a restart marker, are an error; the same warning before EOI is not")
    func extraneousBytesInsideScan() throws {
        // Given a file with restart markers, garbage (no FF byte) inserted in
        // its second restart interval: libjpeg warns "N extraneous bytes
        // before marker 0xd2" and would return the interval's garbage as pixels
        let bytes = [UInt8](try JPEGFixtures.data("baseline-restart.jpg"))
        let restarts = (0..<(bytes.count - 1)).filter { bytes[$0] == 0xFF && (0xD0...0xD7).contains(bytes[$0 + 1]) }
        #expect(restarts.count == 3)
        let at = restarts[1] + 2 + 100
        let damaged = Data(bytes[..<at] + [UInt8](repeating: 0x55, count: 3) + bytes[at...])
        // Then a final decode fails with libjpeg's message
        #expect(throws: ImageError.undecodable(.jpeg, "truncated or corrupt data: Corrupt JPEG data: 84 extraneous bytes before marker 0xd2")) {
            try coder.decode(damaged, options: .init())
        }
        // While a decode that allows partial data still shows what libjpeg made of it
        let partial = try damaged.withUnsafeBytes { bytes in
            try JPEGCoder.decodeImage(bytes, options: .init(), completeness: .partialAllowed)
        }
        #expect(partial.size == PixelSize(width: 96, height: 64) && partial.isPreview)

        // And two junk bytes before EOI (as many phones write them; libjpeg
        // warns "1 extraneous bytes before marker 0xd9") decode to djpeg's pixels
        let padded = try JPEGFixtures.data("baseline-444.jpg")
        let image = try coder.decode(padded.dropLast(2) + Data([0x11, 0x22, 0xFF, 0xD9]), options: .init())
        #expect(image.maximumChannelDifference(from: try JPEGFixtures.reference("baseline-444.ppm")) == 0)
    }

    @Test("corrupt entropy data is an error", arguments: [(12_000, 400, false), (12_000, 10, true), (2_000, 64, false)])
    func corrupt(start: Int, count: Int, markers: Bool) throws {
        // Given a file whose entropy-coded data has a run of bytes overwritten,
        // with garbage or with bogus FF xx markers (TurboJPEG then reports a
        // fatal error with a *warning* code, after libjpeg's first warning)
        var bytes = [UInt8](try JPEGFixtures.data("large.jpg"))
        for index in start..<(start + count) {
            bytes[index] = markers ? (index.isMultiple(of: 2) ? 0xFF : 0x12) : UInt8(truncatingIfNeeded: index &* 37) | 0x80
        }
        // Then the full decode fails with libjpeg's message
        do {
            let image = try coder.decode(Data(bytes), options: .init())
            Issue.record("corrupt data decoded to \(image)")
        } catch let error as ImageError {
            guard case .undecodable(.jpeg, let message) = error else { throw error }
            #expect(message.hasPrefix("truncated or corrupt data: "), "\(message)")
        }
        // While a preview of the same bytes is allowed to show what libjpeg made of them
        var decoder = JPEGProgressiveDecoder()
        _ = try? decoder.preview(for: Data(bytes[..<(start + count + 9000)]))
    }

    // MARK: Data too short for the declared size

    @Test("a 2 KB file declaring 10000×10000 fails at once on the length check, libjpeg never decoding", arguments: [
        ("progressive.jpg", "progressive", 292_968, "1 bit"), ("baseline-420.jpg", "sequential", 585_937, "2 bits"),
    ])
    func tooShortForDeclaredSize(name: String, kind: String, minimum: Int, perBlock: String) throws {
        // Given a real 96×64 4:2:0 file whose frame header now says 10000×10000
        // (within the pixel limit; libjpeg would allocate ~300 MB of
        // progressive coefficients and 300 MB of pixels before running dry)
        let data = try JPEGFixtures.withDeclaredSize(try JPEGFixtures.data(name), width: 10_000, height: 10_000)
        #expect((2000..<3000).contains(data.count))
        let expected = ImageError.undecodable(.jpeg, "truncated data: too short for the declared 10000×10000: \(data.count) bytes, "
            + "where a complete \(kind) JPEG of that size has at least \(minimum) (\(perBlock) per 8×8 block)")
        // When decoded, it fails with the length check's error (libjpeg's would be
        // "truncated or corrupt data: Corrupt JPEG data: premature end of data segment"),
        // in far less time than a decode of the declared size takes
        expectFastFailure(coder, data, expected)
    }

    @Test("the length check lets data at the bound through to libjpeg")
    func lengthCheckBoundary() throws {
        // Given a one-colour progressive 2049×2047 grey file, a single DC scan:
        // 257 × 256 blocks at 1 bit each need 8224 bytes
        let data = try JPEGFixtures.data("solid-gray-progressive.jpg")
        let minimum = 8224
        // When its data is cut to one byte under the bound, EOI included
        let under = data.prefix(minimum - 3) + [0xFF, 0xD9]
        #expect(under.count == minimum - 1)
        // Then the length check refuses it
        func expectFailure(_ data: Data, startingWith prefix: String) {
            #expect {
                _ = try coder.decode(data, options: .init())
            } throws: { error in
                guard case .undecodable(.jpeg, let message) = error as? ImageError else { return false }
                return message.hasPrefix(prefix)
            }
        }
        expectFailure(under, startingWith: "truncated data: too short for the declared 2049×2047: 8223 bytes")
        // While at the bound it passes, and libjpeg finds the data missing
        let atBound = data.prefix(minimum - 2) + [0xFF, 0xD9]
        expectFailure(atBound, startingWith: "truncated or corrupt data: ")
    }

    @Test("arithmetic-coded frames have no length floor")
    func arithmeticHasNoFloor() throws {
        let data = try JPEGFixtures.data("baseline-arithmetic.jpg")
        var scanner = JPEGMarkerScanner()
        try data.withUnsafeBytes { try scanner.advance($0, stopAtFirstScan: true) }
        #expect(scanner.frame?.marker == 0xC9)
        #expect(scanner.frame?.minimumByteCount == nil)
        #expect(try coder.decode(data, options: .init()).size == PixelSize(width: 96, height: 64))
    }

    @Test("a frame header libjpeg reads past a segment the scanner cannot is refused, not unchecked")
    func frameBehindBadSegmentLength() throws {
        // Given a valid file with an APP0 segment of length 0 after SOI:
        // libjpeg skips the two length bytes and reads on; the scanner stops
        let bytes = [UInt8](try JPEGFixtures.data("progressive.jpg"))
        let data = Data(bytes[..<2] + [0xFF, 0xE0, 0x00, 0x00] + bytes[2...])
        // Then a full decode refuses it, since the length check cannot run
        #expect(throws: ImageError.undecodable(.jpeg, "corrupt marker segments before the frame header")) {
            try coder.decode(data, options: .init())
        }
    }

    @Test("one-colour files, the fewest bits per block a Huffman-coded JPEG can have, pass the length check", arguments: [
        "solid-420-optimized", "solid-420-progressive", "solid-444-optimized",
        "solid-444-progressive", "solid-gray-optimized", "solid-gray-progressive",
    ])
    func oneColourExtremes(name: String) throws {
        // Given a file whose entropy data is 1 bit (progressive, one DC scan)
        // or 2 bits (baseline, optimized tables) per block: within a few
        // hundred bytes of headers of the bound
        let data = try JPEGFixtures.data("\(name).jpg")
        var scanner = JPEGMarkerScanner()
        try data.withUnsafeBytes { try scanner.advance($0, stopAtFirstScan: true) }
        let frame = try #require(scanner.frame)
        let minimum = try #require(frame.minimumByteCount)
        #expect(frame.isProgressive == name.hasSuffix("progressive"))
        #expect(data.count >= minimum && data.count - minimum < 400, "\(data.count) bytes, bound \(minimum)")
        // When decoded, then it is the whole image, every pixel the colour
        let image = try coder.decode(data, options: .init())
        #expect(image.size == frame.size)
        let first = try #require(image.pixel(x: 0, y: 0))
        let colour: [Int] = name.contains("gray") ? [108] : [0x33, 0x77, 0xCC]
        #expect(zip(first, colour).allSatisfy { abs(Int($0) - $1) <= 2 }, "\(first)")
        let rowBytes = image.width * image.pixelFormat.bytesPerPixel
        let uniform = image.withUnsafeBytes { pixels in
            (0..<rowBytes).allSatisfy { pixels[$0] == first[$0 % first.count] }
                && (1..<image.height).allSatisfy { memcmp(pixels.baseAddress! + $0 * image.bytesPerRow, pixels.baseAddress!, rowBytes) == 0 }
        }
        #expect(uniform)
    }

    // MARK: Encoding

    @Test("encode then decode round-trips within JPEG's error")
    func roundTrip() throws {
        // Given a decoded photo-like image
        let original = try coder.decode(try JPEGFixtures.data("large.jpg"), options: .init())
        // When encoded at 0.9 and decoded again
        let data = try coder.encode(original, as: .jpeg, quality: 0.9)
        let decoded = try coder.decode(data, options: .init())
        // Then it is a 4:2:0 JPEG of the same size and nearly the same pixels
        #expect(ImageFormat.detect(data) == .jpeg)
        #expect(decoded.size == original.size)
        let mean = try #require(JPEGFixtures.meanDifference(decoded, original, rows: 0..<480))
        #expect(mean < 2.0, "mean difference \(mean)")
        // And lower quality means fewer bytes
        let small = try coder.encode(original, as: .jpeg, quality: 0.2)
        #expect(small.count < data.count)
        #expect(JPEGCoder.libjpegQuality(0) == 1 && JPEGCoder.libjpegQuality(1) == 100 && JPEGCoder.libjpegQuality(0.9) == 90)
        #expect(JPEGCoder.libjpegQuality(7) == 100 && JPEGCoder.libjpegQuality(-1) == 1)
    }

    @Test("gray images encode as single-channel JPEGs")
    func grayRoundTrip() throws {
        let original = try coder.decode(try JPEGFixtures.data("gray.jpg"), options: .init())
        let decoded = try coder.decode(try coder.encode(original, as: .jpeg, quality: 0.95), options: .init())
        #expect(decoded.pixelFormat == .gray8)
        let mean = try #require(JPEGFixtures.meanDifference(decoded, original, rows: 0..<64))
        #expect(mean < 2.0, "mean difference \(mean)")
    }

    @Test("alpha is flattened over white", arguments: [PixelFormat.rgba8, .grayAlpha8])
    func alpha(format: PixelFormat) throws {
        // Given a 16×16 image: left half opaque black, right half fully transparent black,
        // with padded rows
        let channels = format.channelCount
        let bytesPerRow = 16 * channels + 5
        var pixels = [UInt8](repeating: 0, count: bytesPerRow * 16)
        for y in 0..<16 { for x in 0..<8 { pixels[y * bytesPerRow + x * channels + channels - 1] = 255 } }
        let image = try Image(width: 16, height: 16, pixelFormat: format, bytesPerRow: bytesPerRow, pixels: pixels)
        // When encoded and decoded
        let decoded = try coder.decode(try coder.encode(image, as: .jpeg, quality: 1), options: .init())
        // Then opaque black stays black and transparent becomes white
        #expect(decoded.pixelFormat == (format == .rgba8 ? .rgb8 : .gray8))
        #expect(try #require(decoded.pixel(x: 2, y: 8)).allSatisfy { $0 < 12 })
        #expect(try #require(decoded.pixel(x: 13, y: 8)).allSatisfy { $0 > 243 })
    }

    @Test("the orientation survives encoding as an EXIF segment")
    func orientationRoundTrip() throws {
        let original = try coder.decode(try JPEGFixtures.data("orientation-6.jpg"), options: .init())
        let decoded = try coder.decode(try coder.encode(original, as: .jpeg, quality: 0.9), options: .init(applyOrientation: true))
        #expect(decoded.size == PixelSize(width: 64, height: 40))
        let red = try #require(decoded.pixel(x: 3, y: 3)).map(Int.init)
        #expect(red[0] > 200 && red[1] < 60 && red[2] < 60, "\(red)")
    }

    @Test("refuses formats other than JPEG")
    func encodeOtherFormat() throws {
        let image = try Image(width: 1, height: 1, pixelFormat: .rgb8, pixels: [1, 2, 3])
        #expect(!coder.canEncode(.png))
        #expect(throws: ImageError.encodingFailed(.png, "JPEGCoder writes only JPEG")) {
            try coder.encode(image, as: .png, quality: 0.9)
        }
    }

    // MARK: Concurrency

    @Test("decodes and encodes concurrently from many tasks with identical results")
    func concurrent() async throws {
        // Given one coder shared by 12 tasks, half decoding, half encoding
        let data = try JPEGFixtures.data("large-progressive.jpg")
        let expected = try coder.decode(data, options: .init())
        let expectedEncoding = try coder.encode(expected, as: .jpeg, quality: 0.8)
        let coder = self.coder
        let (decoded, encoded) = try await withThrowingTaskGroup(of: (Image?, Data?).self) { group in
            for index in 0..<12 {
                group.addTask { () throws -> (Image?, Data?) in
                    if index.isMultiple(of: 2) {
                        return (try coder.decode(data, options: .init()), nil)
                    }
                    return (nil, try coder.encode(expected, as: .jpeg, quality: 0.8))
                }
            }
            var decoded: [Image] = [], encoded: [Data] = []
            for try await (image, data) in group {
                if let image { decoded.append(image) }
                if let data { encoded.append(data) }
            }
            return (decoded, encoded)
        }
        // Then every result is what a lone call produces
        #expect(decoded.count == 6 && decoded.allSatisfy { $0 == expected })
        #expect(encoded.count == 6 && encoded.allSatisfy { $0 == expectedEncoding })
    }
}

/// A small deterministic generator (SplitMix64), so randomised tests reproduce.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
