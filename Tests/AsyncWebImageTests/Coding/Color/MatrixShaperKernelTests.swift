import Foundation
import Testing
@testable import AsyncWebImageWebP
@testable import AsyncWebImage

/// The matrix/TRC fast path against lcms2's own 8-bit transform, on real
/// profiles (icc-profiles-free's Adobe RGB, the fixtures' Display P3 v4) and
/// profiles lcms2 builds from primaries and curves (ProPhoto, odd gammas).
@Suite("Matrix/TRC fast path", .timeLimit(.minutes(3)))
struct MatrixShaperKernelTests {
    /// A profile's bytes, by name.
    static func profile(_ name: String) throws -> Data {
        switch name {
        case "Adobe RGB (icc-profiles-free)":
            return try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"))
        case "Display P3 v4 (fixture)":
            return try fixture("icc", "display-p3.icc")
        case "ProPhoto (D50, gamma 1.8)":
            return try built(gamma: 1 / 1.8, white: (0.3457, 0.3585), red: (0.7347, 0.2653), green: (0.1596, 0.8404), blue: (0.0366, 0.0001))
        case "sRGB primaries, gamma 2.6":
            return try built(gamma: 1 / 2.6)
        case "sRGB primaries, linear":
            return try built(gamma: 1)
        default:
            throw ImageError.invalidImage("no profile \(name)")
        }
    }

    static let names = [
        "Adobe RGB (icc-profiles-free)", "Display P3 v4 (fixture)", "ProPhoto (D50, gamma 1.8)",
        "sRGB primaries, gamma 2.6", "sRGB primaries, linear",
    ]

    /// A matrix/TRC profile serialised by lcms2 from PNG-style values.
    static func built(
        gamma: Double,
        white: (x: Double, y: Double) = (0.3127, 0.3290), red: (x: Double, y: Double) = (0.64, 0.33),
        green: (x: Double, y: Double) = (0.30, 0.60), blue: (x: Double, y: Double) = (0.15, 0.06)
    ) throws -> Data {
        let calibration = PNGCalibration(gamma: gamma, chromaticities: .init(white: white, red: red, green: green, blue: blue))
        return try #require(LcmsProfile.calibrated(calibration)?.serialized())
    }

    static func transform(_ bytes: Data, layout: ColorPixelLayout) throws -> ColorTransform {
        let parsed = try #require(bytes.withUnsafeBytes { LcmsProfile(bytes: $0) })
        return try #require(ColorTransform(from: parsed, layout: layout))
    }

    /// Every `step`-th value of each channel, as RGB (or RGBA with alpha
    /// counting down) pixels.
    static func grid(step: Int, bytesPerPixel: Int) -> [UInt8] {
        var pixels: [UInt8] = []
        var alpha: UInt8 = 255
        for r in stride(from: 0, through: 255, by: step) {
            for g in stride(from: 0, through: 255, by: step) {
                for b in stride(from: 0, through: 255, by: step) {
                    pixels += [UInt8(r), UInt8(g), UInt8(b)]
                    if bytesPerPixel == 4 { pixels.append(alpha); alpha &-= 7 }
                }
            }
        }
        return pixels
    }

    static func convert(_ pixels: [UInt8], _ transform: ColorTransform, fast: Bool) -> [UInt8] {
        let count = pixels.count / transform.layout.bytesPerPixel
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in
                transform.apply(
                    source.baseAddress!, sourceStride: pixels.count, into: destination.baseAddress!,
                    destinationStride: pixels.count, width: count, height: 1, usingFastPath: fast
                )
            }
        }
        return output
    }

    @Test("matrix/TRC profiles take the fast path, within 1 level of lcms2 on a 52³ grid of colours", arguments: names)
    func matchesLcms(name: String) throws {
        // Given a matrix/TRC profile
        let transform = try Self.transform(Self.profile(name), layout: .rgb)
        // Then it has a fast path, checked within 1 level at creation
        #expect(transform.fastPath != nil)
        #expect(try #require(transform.fastPathDifference) <= 1)
        // And on every fifth value of each channel the fast path is within 1 of lcms2
        let grid = Self.grid(step: 5, bytesPerPixel: 3)
        let fast = Self.convert(grid, transform, fast: true), lcms = Self.convert(grid, transform, fast: false)
        let worst = zip(fast, lcms).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
        #expect(worst <= 1, "\(name): \(worst)")
        // and the conversion changes colours (it is not the identity)
        #expect(zip(fast, grid).contains { abs(Int($0) - Int($1)) > 10 } || name.contains("gamma 2.6"))
    }

    @Test("RGBA: colours as lcms2 makes them, alpha copied unchanged; converting in place gives the same bytes")
    func alphaAndInPlace() throws {
        let transform = try Self.transform(Self.profile("Display P3 v4 (fixture)"), layout: .rgba)
        #expect(transform.fastPath != nil)
        let grid = Self.grid(step: 15, bytesPerPixel: 4)
        let fast = Self.convert(grid, transform, fast: true), lcms = Self.convert(grid, transform, fast: false)
        var worst = 0
        for index in grid.indices {
            if index % 4 == 3 {
                #expect(fast[index] == grid[index])
            } else {
                worst = max(worst, abs(Int(fast[index]) - Int(lcms[index])))
            }
        }
        #expect(worst <= 1)
        // In place: the same buffer as source and destination
        var inPlace = grid
        inPlace.withUnsafeMutableBytes { buffer in
            transform.apply(
                buffer.baseAddress!, sourceStride: buffer.count, into: buffer.baseAddress!, destinationStride: buffer.count,
                width: buffer.count / 4, height: 1
            )
        }
        #expect(inPlace == fast)
    }

    @Test("every colour fixture decodes through the fast path within 1 level of lcms2's conversion", arguments: [
        "adobe-rgb.jpg", "display-p3.jpg", "adobe-rgb.png", "display-p3.png", "display-p3-alpha.png", "display-p3.webp",
    ])
    func fixtures(name: String) throws {
        let data = try fixture("icc", name)
        let coder: any ImageDecoding = if name.hasSuffix(".png") { PNGCoder() } else if name.hasSuffix(".webp") { WebPCoder() } else { JPEGCoder() }
        let image = try coder.decode(data, options: .init())
        let kept = try coder.decode(data, options: .init(keepsColorProfile: true))
        let lcms = kept.convertedToSRGB(usingFastPath: false)
        #expect(image.colorConversion == .converted && lcms.colorConversion == .converted)
        #expect(try #require(image.maximumChannelDifference(from: lcms)) <= 1)
        let profile = try #require(kept.iccProfile)
        let transform = try Self.transform(profile, layout: ColorPixelLayout(kept.pixelFormat))
        #expect(transform.fastPath != nil)
    }

    @Test("rows of every width mod 4 (the pixels after the last group of four) and padded strides match lcms2")
    func tailsAndStrides() throws {
        let transform = try Self.transform(Self.profile("Adobe RGB (icc-profiles-free)"), layout: .rgb)
        #expect(transform.fastPath != nil)
        for width in 1...9 {
            // Given 3 rows of `width` pixels, 5 bytes of padding after each
            let height = 3, stride = width * 3 + 5
            let source = (0..<(stride * height)).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ width) }
            var fast = [UInt8](repeating: 0xAA, count: source.count), lcms = fast
            // When both paths convert them
            for fastPath in [true, false] {
                var result = [UInt8](repeating: 0xAA, count: source.count)
                source.withUnsafeBytes { input in
                    result.withUnsafeMutableBytes { out in
                        transform.apply(
                            input.baseAddress!, sourceStride: stride, into: out.baseAddress!, destinationStride: stride,
                            width: width, height: height, usingFastPath: fastPath
                        )
                    }
                }
                if fastPath { fast = result } else { lcms = result }
            }
            // Then every pixel is within 1 and the padding is untouched
            for row in 0..<height {
                for offset in 0..<stride {
                    let index = row * stride + offset
                    if offset < width * 3 {
                        #expect(abs(Int(fast[index]) - Int(lcms[index])) <= 1, "width \(width), byte \(index)")
                    } else {
                        #expect(fast[index] == 0xAA, "width \(width): padding written at \(index)")
                    }
                }
            }
        }
    }

    @Test("grey and CMYK profiles have no fast path: lcms2 converts them")
    func otherSpaces() throws {
        let gray = try JPEGCoder().decode(fixture("icc", "gray-profile.jpg"), options: .init(keepsColorProfile: true))
        let grayTransform = try Self.transform(try #require(gray.iccProfile), layout: .gray)
        #expect(grayTransform.fastPath == nil && grayTransform.fastPathDifference == nil)
        let jpeg = try fixture("icc", "cmyk.jpg")
        let cmyk = try #require(jpeg.withUnsafeBytes { JPEGICCProfileReader.profile(in: $0, limit: 1 << 24) })
        guard case .icc(let bytes) = cmyk else { Issue.record("no CMYK profile read"); return }
        let cmykTransform = try Self.transform(bytes, layout: .invertedCMYK)
        #expect(cmykTransform.fastPath == nil)
    }
}
