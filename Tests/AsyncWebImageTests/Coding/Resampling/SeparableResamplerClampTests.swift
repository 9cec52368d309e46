import Foundation
import Testing
@testable import AsyncWebImage

@Suite("SeparableResampler anti-ringing and vector loops", .timeLimit(.minutes(2)))
struct SeparableResamplerClampTests {
    /// A 300 × 200 grey picture with a bright square (light on a dark
    /// ground, the edge a negative lobe rings at), in `format`.
    static func edge(_ format: PixelFormat, dark: UInt8 = 40, bright: UInt8 = 220) -> Image {
        let channels = format.channelCount
        return Image.make(width: 300, height: 200, pixelFormat: format) { pixels in
            for y in 0..<200 {
                for x in 0..<300 {
                    let inside = (90..<210).contains(x) && (50..<150).contains(y)
                    for c in 0..<channels { pixels[(y * 300 + x) * channels + c] = inside ? bright : dark }
                    if format.hasAlpha { pixels[(y * 300 + x) * channels + channels - 1] = 255 }
                }
            }
        }
    }

    /// `image` through a resampler to `size` with `clamps` and `light`.
    static func resample(_ image: Image, to size: PixelSize, light: SeparableResampler.Light, clamps: Bool, vectorLoops: Bool = true) -> Image {
        var resampler = SeparableResampler(
            sourceWidth: image.width, sourceHeight: image.height, to: size, pixelFormat: image.pixelFormat,
            filter: .lanczos3, light: light, clamps: clamps, vectorLoops: vectorLoops
        )
        let bytesPerRow = size.width * image.pixelFormat.bytesPerPixel
        return Image.make(width: size.width, height: size.height, pixelFormat: image.pixelFormat) { output in
            image.withUnsafeBytes { pixels in
                let base = pixels.bindMemory(to: UInt8.self).baseAddress!
                for y in 0..<image.height { resampler.add(row: base + y * image.bytesPerRow, output: output.baseAddress!, bytesPerRow: bytesPerRow) }
            }
        }
    }

    @Test("clamped Lanczos-3 draws no value outside the source's range; unclamped it rings past both sides", arguments: [
        (PixelFormat.rgb8, SeparableResampler.Light.linear), (.rgb8, .gamma), (.rgba8, .linear), (.gray8, .gamma),
    ])
    func clampsRinging(format: PixelFormat, light: SeparableResampler.Light) {
        // Given a bright square on a dark ground (40 and 220 in every channel)
        let image = Self.edge(format)
        let channels = format.channelCount
        let colour = { (pixels: [UInt8]) in pixels.enumerated().filter { !format.hasAlpha || $0.offset % channels != channels - 1 }.map(\.element) }
        for size in [PixelSize(width: 97, height: 65), PixelSize(width: 140, height: 90)] {
            // When it is shrunk with and without anti-ringing
            let ringing = colour(Self.resample(image, to: size, light: light, clamps: false).pixels)
            let clamped = colour(Self.resample(image, to: size, light: light, clamps: true).pixels)
            // Then the unclamped filter undershoots the ground and overshoots the square
            #expect(ringing.min()! < 38 && ringing.max()! > 222, "\(format) \(light) \(size): \(ringing.min()!)–\(ringing.max()!)")
            // And the clamped one stays within them, with the edge still there
            #expect(clamped.min()! >= 40 && clamped.max()! <= 220, "\(format) \(light) \(size): \(clamped.min()!)–\(clamped.max()!)")
            #expect(clamped.max()! == 220 && clamped.min()! == 40)
        }
    }

    @Test("a grey picture comes out as the same picture in RGB does: each pixel clamped to its own window", arguments: [
        (PixelFormat.gray8, PixelFormat.rgb8), (.grayAlpha8, .rgba8),
    ])
    func greyAsColour(grey: PixelFormat, colour: PixelFormat) throws {
        // Given a photo in grey, and the same grey pixels in three channels
        let image = try SeparableResamplerOrderTests.photo(grey)
        let widened = image.converted(to: colour)
        let (greyChannels, colourChannels) = (grey.channelCount, colour.channelCount)
        for (size, order) in [(PixelSize(width: 160, height: 120), SeparableResampler.Order.verticalFirst),
                              (PixelSize(width: 161, height: 479), .horizontalFirst)] {
            for light in ImageTransformers.Resize.Light.allCases {
                // When both are shrunk with anti-ringing
                let narrow = SeparableResamplerOrderTests.resample(image, to: size, filter: .lanczos3, light: light, order: order, clamps: true)
                let wide = SeparableResamplerOrderTests.resample(widened, to: size, filter: .lanczos3, light: light, order: order, clamps: true)
                // Then every grey sample (and alpha) is the colour image's red (and alpha) within a level
                var worst = 0
                for pixel in 0..<(size.width * size.height) {
                    let g = narrow.pixels[pixel * greyChannels], r = wide.pixels[pixel * colourChannels]
                    worst = max(worst, abs(Int(g) - Int(r)))
                    if grey.hasAlpha {
                        worst = max(worst, abs(Int(narrow.pixels[pixel * 2 + 1]) - Int(wide.pixels[pixel * 4 + 3])))
                    }
                }
                #expect(worst <= 1, "\(grey) \(size) \(order) \(light): \(worst) levels")
            }
        }
    }

    @Test("the AVX2/FMA loops give the Swift loops' pixels within one level, every layout and both orders", arguments: [
        PixelFormat.rgb8, .rgba8, .gray8, .grayAlpha8,
    ])
    func vectorLoopsAgree(format: PixelFormat) throws {
        guard SeparableResampler.vectorLoopsAvailable else { return }
        // Given a photo in the format
        let image = try SeparableResamplerOrderTests.photo(format)
        for (size, order) in [(PixelSize(width: 160, height: 120), SeparableResampler.Order.verticalFirst),
                              (PixelSize(width: 161, height: 479), .horizontalFirst)] {
            for light in ImageTransformers.Resize.Light.allCases {
                // When it is resampled with the vector loops and without them
                let vector = SeparableResamplerOrderTests.resample(image, to: size, filter: .lanczos3, light: light, order: order, vectorLoops: true, clamps: true)
                let scalar = SeparableResamplerOrderTests.resample(image, to: size, filter: .lanczos3, light: light, order: order, vectorLoops: false, clamps: true)
                // Then no sample differs by more than a level, and the picture is not flat
                let differences = zip(vector.pixels, scalar.pixels).map { abs(Int($0) - Int($1)) }
                #expect(differences.max() ?? 0 <= 1, "\(format) \(size) \(order) \(light)")
                #expect((vector.pixels.max() ?? 0) - (vector.pixels.min() ?? 0) > 100)
            }
        }
    }
}
