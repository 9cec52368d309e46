import Foundation
import Testing
@testable import AsyncWebImage

@Suite("SeparableResampler orders", .timeLimit(.minutes(2)))
struct SeparableResamplerOrderTests {
    /// The 640 × 480 photo fixture in `format`; with alpha, an alpha that
    /// varies over the picture (fully transparent and opaque runs included)
    /// so premultiplication is exercised on real colour.
    static func photo(_ format: PixelFormat) throws -> Image {
        let decoded = try JPEGCoder().decode(try JPEGFixtures.data("large.jpg"), options: .init()).converted(to: format)
        guard format == .rgba8 || format == .grayAlpha8 else { return decoded }
        let channels = format.channelCount
        let (width, height) = (decoded.width, decoded.height)
        return decoded.withUnsafeBytes { source in
            Image.make(width: width, height: height, pixelFormat: format) { pixels in
                for y in 0..<height {
                    for x in 0..<width {
                        let p = (y * width + x) * channels
                        for c in 0..<channels { pixels[p + c] = source[y * decoded.bytesPerRow + x * channels + c] }
                        let ramp = (x * 3 + y * 2) % 320
                        pixels[p + channels - 1] = UInt8(min(255, max(0, ramp - 40)))
                    }
                }
            }
        }
    }

    /// `image` resampled to `size` by a resampler in `order`, fed row by row.
    static func resample(
        _ image: Image, to size: PixelSize, filter: ImageTransformers.Resize.Filter,
        light: ImageTransformers.Resize.Light, order: SeparableResampler.Order, vectorLoops: Bool = SeparableResampler.vectorLoopsAvailable,
        clamps: Bool = false
    ) -> Image {
        var resampler = SeparableResampler(
            sourceWidth: image.width, sourceHeight: image.height, to: size, pixelFormat: image.pixelFormat,
            filter: filter, light: ImageResampler.engineLight(light), clamps: clamps, order: order,
            vectorLoops: vectorLoops
        )
        #expect(resampler.order == order)
        let bytesPerRow = size.width * image.pixelFormat.bytesPerPixel
        let result = Image.make(width: size.width, height: size.height, pixelFormat: image.pixelFormat) { output in
            image.withUnsafeBytes { pixels in
                let base = pixels.bindMemory(to: UInt8.self).baseAddress!
                for y in 0..<image.height { resampler.add(row: base + y * image.bytesPerRow, output: output.baseAddress!, bytesPerRow: bytesPerRow) }
            }
        }
        #expect(resampler.isComplete)
        return result
    }

    @Test("vertical-first and horizontal-first give the same photo within one level", arguments: [PixelFormat.rgb8, .rgba8, .gray8, .grayAlpha8])
    func ordersAgree(format: PixelFormat) throws {
        // Given a decoded photo in the format
        let image = try Self.photo(format)
        for (size, filter, light) in [
            (PixelSize(width: 160, height: 120), ImageTransformers.Resize.Filter.lanczos3, ImageTransformers.Resize.Light.linear),
            (PixelSize(width: 97, height: 61), .mitchell, .encoded),
            (PixelSize(width: 213, height: 160), .area, .encoded),
            (PixelSize(width: 700, height: 90), .triangle, .linear),
        ] {
            // When it is resampled in both orders (without anti-ringing,
            // whose per-pass clamps depend on the order)
            let vertical = Self.resample(image, to: size, filter: filter, light: light, order: .verticalFirst)
            let horizontal = Self.resample(image, to: size, filter: filter, light: light, order: .horizontalFirst)
            // Then no sample differs by more than one level, on a picture with real contrast
            let differences = zip(vertical.pixels, horizontal.pixels).map { abs(Int($0) - Int($1)) }
            #expect(differences.max() ?? 0 <= 1, "\(format) \(size) \(filter) \(light)")
            let values = vertical.pixels
            #expect((values.max() ?? 0) - (values.min() ?? 0) > 100, "\(format) \(size): a flat picture would prove nothing")
            // And the entry point, which chooses the order itself (and clamps), gives that order's pixels exactly
            let chosen = ImageResampler.resample(image, to: size, filter: filter, light: light)
            let clamps = ImageResampler.clamps(filter)
            let order = SeparableResampler.order(sourceWidth: image.width, sourceHeight: image.height, to: size, channels: format.channelCount)
            #expect(chosen.pixels == Self.resample(image, to: size, filter: filter, light: light, order: order, clamps: clamps).pixels)
        }
    }

    @Test("the order follows the work: vertical-first for a thumbnail, horizontal-first when rows grow or the ring would be large")
    func orderChoice() {
        // A thumbnail of a wide picture combines first, in every format
        for channels in 1...4 {
            #expect(SeparableResampler.order(sourceWidth: 1000, sourceHeight: 750, to: PixelSize(width: 256, height: 192), channels: channels) == .verticalFirst)
        }
        // A short strip narrowed a lot but hardly shortened filters first: few source rows to filter
        #expect(SeparableResampler.order(sourceWidth: 1000, sourceHeight: 100, to: PixelSize(width: 100, height: 90), channels: 3) == .horizontalFirst)
        // An enlargement in height filters the fewer source rows first
        #expect(SeparableResampler.order(sourceWidth: 400, sourceHeight: 100, to: PixelSize(width: 300, height: 400), channels: 4) == .horizontalFirst)
        // A 12 MP source straight to a thumbnail would need a ring of 96 rows of 4000 pixels (over 1 MiB): filtered first
        #expect(SeparableResampler.order(sourceWidth: 4000, sourceHeight: 3000, to: PixelSize(width: 256, height: 192), channels: 3) == .horizontalFirst)
        // And the resampler built for a geometry takes that order
        let resampler = SeparableResampler(sourceWidth: 1000, sourceHeight: 100, to: PixelSize(width: 100, height: 90), pixelFormat: .rgb8, filter: .lanczos3)
        #expect(resampler.order == .horizontalFirst)
    }

    @Test("the working memory estimate known from headers bounds the real figure, in either order", arguments: [PixelFormat.rgb8, .rgba8, .gray8, .grayAlpha8])
    func estimateBounds(format: PixelFormat) {
        var orders: Set<SeparableResampler.Order> = []
        for (source, target) in [
            ((1000, 750), (256, 192)), ((1000, 100), (100, 90)), ((400, 100), (300, 400)), ((4000, 3000), (256, 192)),
            ((97, 61), (60, 40)), ((3, 2000), (1, 7)), ((2000, 3), (9, 1)), ((50, 50), (49, 26)),
        ] {
            let size = PixelSize(width: target.0, height: target.1)
            let estimate = SeparableResampler.workingBytesEstimate(
                sourceWidth: source.0, sourceHeight: source.1, to: size, channels: format.channelCount
            )
            for filter in ImageTransformers.Resize.Filter.allCases {
                let resampler = SeparableResampler(sourceWidth: source.0, sourceHeight: source.1, to: size, pixelFormat: format, filter: filter)
                orders.insert(resampler.order)
                #expect(resampler.workingBytes <= estimate, "\(format) \(source) → \(target) \(filter) \(resampler.order)")
            }
        }
        // Both orders were measured
        #expect(orders.count == 2)
    }
}
