import Testing
@testable import AsyncWebImage

@Suite("ImageResampler", .timeLimit(.minutes(1)))
struct ImageResamplerTests {
    @Test("area averaging of 2×2 blocks is the exact mean", arguments: ImageTransformers.Resize.Filter.allCases)
    func exactAreaMean(filter: ImageTransformers.Resize.Filter) throws {
        // Given a 4×2 gray image made of two 2×2 blocks
        let image = try Image(width: 4, height: 2, pixelFormat: .gray8, pixels: [10, 30, 100, 200, 50, 70, 0, 100])
        // When it is halved
        let half = ImageResampler.resample(image, to: PixelSize(width: 2, height: 1), filter: filter)
        // Then each output pixel is its block's mean with .area, close to it otherwise
        #expect(half.size == PixelSize(width: 2, height: 1))
        if filter == .area {
            #expect(half.pixels == [40, 100])
        } else {
            #expect(abs(Int(half.pixels[0]) - 40) <= 25)
            #expect(abs(Int(half.pixels[1]) - 100) <= 25)
        }
    }

    @Test("a uniform colour stays exactly uniform at any size", arguments: ImageTransformers.Resize.Filter.allCases)
    func uniform(filter: ImageTransformers.Resize.Filter) throws {
        let pixels = [UInt8](repeating: 0, count: 37 * 23 * 3).enumerated().map { index, _ in [200, 17, 90][index % 3] as UInt8 }
        let image = try Image(width: 37, height: 23, pixelFormat: .rgb8, pixels: pixels)
        for size in [PixelSize(width: 5, height: 3), PixelSize(width: 100, height: 61), PixelSize(width: 37, height: 7)] {
            let out = ImageResampler.resample(image, to: size, filter: filter)
            #expect(out.size == size)
            #expect(out.pixelFormat == .rgb8)
            #expect(out.pixels.count == size.width * size.height * 3)
            for y in [0, size.height - 1] {
                for x in [0, size.width / 2, size.width - 1] {
                    #expect(out.pixel(x: x, y: y) == [200, 17, 90])
                }
            }
        }
    }

    @Test("transparent pixels do not bleed their colour")
    func premultipliedAlpha() throws {
        // Given a fully transparent red pixel beside an opaque blue one
        let image = try Image(width: 2, height: 1, pixelFormat: .rgba8, pixels: [255, 0, 0, 0, 0, 0, 255, 255])
        // When averaged into one pixel
        let out = ImageResampler.resample(image, to: PixelSize(width: 1, height: 1))
        // Then the colour is pure blue at half opacity, not purple
        #expect(out.pixels == [0, 0, 255, 128])
    }

    @Test("enlarging with .area interpolates between neighbours")
    func upscale() throws {
        let image = try Image(width: 2, height: 1, pixelFormat: .gray8, pixels: [0, 255])
        let out = ImageResampler.resample(image, to: PixelSize(width: 4, height: 1), filter: .area)
        // Bilinear with centre alignment: 0, 64, 191, 255
        #expect(out.pixels == [0, 64, 191, 255])
    }

    @Test("keeps metadata and returns the same image for the same size")
    func metadata() throws {
        let image = try Image(width: 4, height: 4, pixelFormat: .grayAlpha8, pixels: .init(repeating: 9, count: 32), orientation: .left, format: .png)
        #expect(ImageResampler.resample(image, to: image.size).storage === image.storage)
        let out = ImageResampler.resample(image, to: PixelSize(width: 2, height: 3))
        #expect(out.orientation == .left && out.format == .png && out.pixelFormat == .grayAlpha8)
        #expect(out.pixel(x: 1, y: 2) == [9, 9])
    }
}
