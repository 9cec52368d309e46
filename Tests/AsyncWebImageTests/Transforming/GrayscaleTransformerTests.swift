import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.Grayscale", .timeLimit(.minutes(1)))
struct GrayscaleTransformerTests {
    @Test("weights red, green and blue by Rec. 709 or Rec. 601")
    func weights() throws {
        // Given pure red, green, blue, white and black
        let image = try Image(width: 5, height: 1, pixelFormat: .rgb8, pixels: [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0])
        // When converted, Then each is its luma weight × 255, white stays 255, black 0
        let rec709 = try ImageTransformers.Grayscale.grayscale().transform(image)
        #expect(rec709.pixelFormat == .gray8 && rec709.pixels == [54, 182, 18, 255, 0])
        let rec601 = try ImageTransformers.Grayscale(luma: .rec601).transform(image)
        #expect(rec601.pixels == [76, 150, 29, 255, 0])
    }

    @Test("keeps alpha, in rows with padding")
    func alpha() throws {
        let image = TransformImages.numbered(width: 5, height: 3, format: .rgba8, padding: 7)
        let out = try ImageTransformers.Grayscale().transform(image)
        #expect(out.pixelFormat == .grayAlpha8 && out.size == image.size)
        for y in 0..<3 {
            for x in 0..<5 {
                let p = image.pixel(x: x, y: y)!
                let expected = (0.2126 * Double(p[0]) + 0.7152 * Double(p[1]) + 0.0722 * Double(p[2])).rounded()
                #expect(abs(Double(out.pixel(x: x, y: y)![0]) - expected) <= 1)
                #expect(out.pixel(x: x, y: y)![1] == p[3])
            }
        }
    }

    @Test("gray images are returned as they are")
    func gray() throws {
        let image = TransformImages.numbered(width: 4, height: 4, format: .grayAlpha8)
        #expect(try ImageTransformers.Grayscale().transform(image).storage === image.storage)
        #expect(ImageTransformers.Grayscale.grayscale(.rec601).key == "grayscale(luma=rec601)")
        #expect(ImageTransformers.Grayscale().key == "grayscale(luma=rec709)")
    }
}
