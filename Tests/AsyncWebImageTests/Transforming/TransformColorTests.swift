import Testing
@testable import AsyncWebImage

@Suite("TransformColor", .timeLimit(.minutes(1)))
struct TransformColorTests {
    @Test("parses and prints hex")
    func hex() {
        #expect(TransformColor(hex: "#ff8000") == TransformColor(red: 255, green: 128, blue: 0))
        #expect(TransformColor(hex: "FF800040") == TransformColor(red: 255, green: 128, blue: 0, alpha: 64))
        #expect(TransformColor(hex: "#f80") == TransformColor(red: 255, green: 136, blue: 0))
        for bad in ["", "#", "#12345", "zz0000", "#+12345", "#1234567890"] { #expect(TransformColor(hex: bad) == nil) }
        #expect(TransformColor(red: 1, green: 2, blue: 171, alpha: 0).hex == "#0102ab00")
        #expect(TransformColor.clear.hex == "#00000000" && TransformColor.white.description == "#ffffffff")
        #expect(TransformColor(hex: TransformColor(red: 9, green: 99, blue: 199, alpha: 254).hex) == TransformColor(red: 9, green: 99, blue: 199, alpha: 254))
    }

    @Test("gives its channels in each pixel format")
    func components() {
        let color = TransformColor(red: 255, green: 255, blue: 255, alpha: 10)
        #expect(color.components(in: .rgba8) == [255, 255, 255, 10])
        #expect(color.components(in: .rgb8) == [255, 255, 255])
        #expect(color.components(in: .grayAlpha8) == [255, 10])
        #expect(TransformColor(red: 255, green: 0, blue: 0).components(in: .gray8) == [54])
        #expect(TransformColor(white: 3).isGray && !TransformColor(red: 3, green: 3, blue: 4).isGray)
    }
}
