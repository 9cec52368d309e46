import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageWebP
import AsyncWebImageAllFormats

/// The WebP encoder, checked by decoding its output with libwebp (through
/// the coder, whose decodes the other suite checks against dwebp).
@Suite("WebPCoder: encoding", .timeLimit(.minutes(1)))
struct WebPCoderEncodingTests {
    /// The 61×47 RGBA source the fixtures were made from.
    func source() throws -> Image {
        let reference = try PAMReference("webp", "source-rgba")
        return try Image(width: reference.width, height: reference.height, pixelFormat: .rgba8, pixels: reference.rgba)
    }

    @Test("lossless round trip is exact, alpha and the colour under transparent pixels included")
    func lossless() throws {
        let image = try source()
        let data = try WebPCoder(lossless: true).encode(image, as: .webp, quality: 0.5)
        #expect(ImageFormat.detect(data) == .webp)
        let decoded = try WebPCoder().decode(data, options: .init())
        #expect(decoded.pixelFormat == .rgba8)
        #expect(decoded.hasSamePixels(as: image))
    }

    @Test("lossy keeps the image within a tolerance, and quality buys fidelity with bytes")
    func lossy() throws {
        // Given the opaque RGB part of the source
        let rgba = try source()
        let rgb = try Image(width: rgba.width, height: rgba.height, pixelFormat: .rgb8,
                            pixels: stride(from: 0, to: rgba.pixels.count, by: 4).flatMap { rgba.pixels[$0..<($0 + 3)] })

        // When encoded at two qualities
        let high = try WebPCoder().encode(rgb, as: .webp, quality: 0.95)
        let low = try WebPCoder().encode(rgb, as: .webp, quality: 0.2)
        let highImage = try WebPCoder().decode(high, options: .init())
        let lowImage = try WebPCoder().decode(low, options: .init())

        // Then both decode as RGB close to the source; the better one is larger and closer
        // (4:2:0 chroma blurs the hard red/green edges, so the worst single
        // channel is far off; the tolerance is on the mean and the 99th percentile.)
        #expect(highImage.pixelFormat == .rgb8)
        let (highMean, highP99) = errors(highImage, rgb)
        let (lowMean, _) = errors(lowImage, rgb)
        #expect(highMean < 5.0, "q95 mean error \(highMean)")
        #expect(highP99 <= 64, "q95 99th percentile error \(highP99)")
        #expect(lowMean > highMean)
        #expect(high.count > low.count)
    }

    @Test("lossy at quality 0.8 writes what cwebp -q 80 writes for the same pixels")
    func sameAsCwebp() throws {
        // Given the pixels cwebp encoded (lossless.webp holds them exactly)
        let pixels = try WebPCoder().decode(try fixture("webp", "lossless.webp"), options: .init())

        // When encoded at 0.8 with the default method (4, as cwebp)
        let data = try WebPCoder().encode(pixels, as: .webp, quality: 0.8)

        // Then the bytes are cwebp's
        #expect(data == (try fixture("webp", "lossy.webp")))
    }

    @Test("lossy with alpha keeps the alpha channel (lossless alpha by default)")
    func lossyAlpha() throws {
        let image = try source()
        let decoded = try WebPCoder().decode(try WebPCoder().encode(image, as: .webp, quality: 0.9), options: .init())
        #expect(decoded.pixelFormat == .rgba8)
        let alpha = { (image: Image) in stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] } }
        #expect(alpha(decoded) == alpha(image))
    }

    @Test("grey images are written as RGB; an orientation survives as an EXIF chunk")
    func grayAndOrientation() throws {
        let gray = try Image(width: 3, height: 2, pixelFormat: .gray8, pixels: [0, 50, 100, 150, 200, 250], orientation: .left)
        let data = try WebPCoder(lossless: true).encode(gray, as: .webp, quality: 1)
        let decoded = try WebPCoder().decode(data, options: .init())
        #expect(decoded.pixelFormat == .rgb8)
        #expect(decoded.orientation == .left)
        #expect(decoded.pixels == [0, 0, 0, 50, 50, 50, 100, 100, 100, 150, 150, 150, 200, 200, 200, 250, 250, 250])
    }

    @Test("refuses other formats and sides over 16383 pixels")
    func refusals() throws {
        let image = try Image(width: 1, height: 1, pixelFormat: .rgb8, pixels: [1, 2, 3])
        #expect(throws: ImageError.encodingFailed(.png, "WebPCoder only writes WebP")) {
            try WebPCoder().encode(image, as: .png, quality: 1)
        }
        let wide = try Image(width: 16384, height: 1, pixelFormat: .gray8, pixels: [UInt8](repeating: 0, count: 16384))
        #expect(throws: ImageError.self) { try WebPCoder().encode(wide, as: .webp, quality: 1) }
        #expect(ImageCoderRegistry.allFormats.encoder(for: .webp) is WebPCoder)
    }

    /// The mean and 99th-percentile absolute channel differences.
    private func errors(_ a: Image, _ b: Image) -> (mean: Double, p99: Int) {
        let differences = zip(a.pixels, b.pixels).map { abs(Int($0.0) - Int($0.1)) }.sorted()
        let mean = Double(differences.reduce(0, +)) / Double(differences.count)
        return (mean, differences[differences.count * 99 / 100])
    }
}
