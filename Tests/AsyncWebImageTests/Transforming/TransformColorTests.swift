import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.Color", .timeLimit(.minutes(1)))
struct TransformColorTests {
    @Test("parses and prints hex")
    func hex() {
        #expect(ImageTransformers.Color(hex: "#ff8000") == ImageTransformers.Color(red: 255, green: 128, blue: 0))
        #expect(ImageTransformers.Color(hex: "FF800040") == ImageTransformers.Color(red: 255, green: 128, blue: 0, alpha: 64))
        #expect(ImageTransformers.Color(hex: "#f80") == ImageTransformers.Color(red: 255, green: 136, blue: 0))
        for bad in ["", "#", "#12345", "zz0000", "#+12345", "#1234567890"] { #expect(ImageTransformers.Color(hex: bad) == nil) }
        #expect(ImageTransformers.Color(red: 1, green: 2, blue: 171, alpha: 0).hex == "#0102ab00")
        #expect(ImageTransformers.Color.clear.hex == "#00000000" && ImageTransformers.Color.white.description == "#ffffffff")
        #expect(ImageTransformers.Color(hex: ImageTransformers.Color(red: 9, green: 99, blue: 199, alpha: 254).hex) == ImageTransformers.Color(red: 9, green: 99, blue: 199, alpha: 254))
    }

    @Test("gives its channels in each pixel format")
    func components() {
        let color = ImageTransformers.Color(red: 255, green: 255, blue: 255, alpha: 10)
        #expect(color.components(in: .rgba8) == [255, 255, 255, 10])
        #expect(color.components(in: .rgb8) == [255, 255, 255])
        #expect(color.components(in: .grayAlpha8) == [255, 10])
        #expect(ImageTransformers.Color(red: 255, green: 0, blue: 0).components(in: .gray8) == [54])
        #expect(ImageTransformers.Color(white: 3).isGray && !ImageTransformers.Color(red: 3, green: 3, blue: 4).isGray)
    }
}
