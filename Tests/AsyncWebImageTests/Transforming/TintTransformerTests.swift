import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.Tint", .timeLimit(.minutes(1)))
struct TintTransformerTests {
    @Test("blends the colour by its alpha and keeps the image's alpha")
    func blend() throws {
        // Given white, black and a half-transparent gray pixel
        let image = try Image(width: 3, height: 1, pixelFormat: .rgba8, pixels: [255, 255, 255, 255, 0, 0, 0, 255, 100, 100, 100, 64])
        // When tinted with red at half strength
        let out = try ImageTransformers.Tint.tint(ImageTransformers.Color(red: 255, green: 0, blue: 0, alpha: 128)).transform(image)
        // Then c × 127/255 + 255 × 128/255 per channel, alpha untouched
        #expect(out.pixel(x: 0, y: 0) == [255, 127, 127, 255])
        #expect(out.pixel(x: 1, y: 0) == [128, 0, 0, 255])
        #expect(out.pixel(x: 2, y: 0) == [178, 50, 50, 64])
    }

    @Test("an opaque tint replaces the colour; a clear one changes nothing")
    func extremes() throws {
        let image = TransformImages.numbered(width: 6, height: 4, format: .rgb8, padding: 2)
        let opaque = try ImageTransformers.Tint(color: ImageTransformers.Color(red: 1, green: 2, blue: 3)).transform(image)
        #expect(opaque.pixelFormat == .rgb8)
        for y in 0..<4 { for x in 0..<6 { #expect(opaque.pixel(x: x, y: y) == [1, 2, 3]) } }
        #expect(try ImageTransformers.Tint(color: .clear).transform(image).storage === image.storage)
    }

    @Test("a gray tint keeps gray images gray; a coloured one adds colour")
    func formats() throws {
        let gray = TransformImages.solid(width: 2, height: 2, format: .grayAlpha8, [0, 77])
        let grayTint = try ImageTransformers.Tint(color: ImageTransformers.Color(white: 255, alpha: 255)).transform(gray)
        #expect(grayTint.pixelFormat == .grayAlpha8 && grayTint.pixel(x: 1, y: 1) == [255, 77])
        let blue = try ImageTransformers.Tint(color: ImageTransformers.Color(red: 0, green: 0, blue: 255, alpha: 255)).transform(gray)
        #expect(blue.pixelFormat == .rgba8 && blue.pixel(x: 1, y: 1) == [0, 0, 255, 77])
        let opaqueGray = TransformImages.solid(width: 2, height: 2, format: .gray8, [200])
        let green = try ImageTransformers.Tint(color: ImageTransformers.Color(red: 0, green: 255, blue: 0, alpha: 51)).transform(opaqueGray)
        #expect(green.pixelFormat == .rgb8 && green.pixel(x: 0, y: 0) == [160, 211, 160])
    }

    @Test("key is the colour in hex")
    func key() {
        #expect(ImageTransformers.Tint.tint(ImageTransformers.Color(red: 255, green: 0, blue: 16, alpha: 128)).key == "tint(color=#ff001080)")
    }
}
