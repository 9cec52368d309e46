import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.Circle", .timeLimit(.minutes(1)))
struct CircleTransformerTests {
    @Test("keeps the centred square, transparent outside the circle")
    func circle() throws {
        // Given a 30×20 image whose pixels encode their position
        let image = TransformImages.numbered(width: 30, height: 20, format: .rgb8)
        // When cut to a circle
        let out = try ImageTransformers.Circle.circle().transform(image)
        // Then it is the centre 20×20 square, rgba8, clear in the corners, untouched in the middle
        #expect(out.size == PixelSize(width: 20, height: 20) && out.pixelFormat == .rgba8)
        for (x, y) in [(0, 0), (19, 0), (0, 19), (19, 19), (2, 2)] { #expect(out.pixel(x: x, y: y)?[3] == 0) }
        #expect(out.pixel(x: 10, y: 10) == image.pixel(x: 15, y: 10)! + [255])
        // The circle touches each edge's middle: nearly covered there, colour unchanged
        for (x, y) in [(10, 0), (0, 10), (19, 10), (10, 19)] {
            let p = try #require(out.pixel(x: x, y: y))
            #expect(Array(p[0..<3]) == image.pixel(x: x + 5, y: y)! && p[3] >= 245)
        }
    }

    @Test("draws the border along the circle; bad widths fail with its own key")
    func border() throws {
        let image = TransformImages.solid(width: 20, height: 40, format: .gray8, [0])
        let out = try ImageTransformers.Circle(borderWidth: 2, borderColor: .white).transform(image)
        #expect(out.size == PixelSize(width: 20, height: 20))
        // Along the top: two rows of white border, then the black image (a pixel
        // centre there is 7.5 px from the circle's centre, so 2 % of it is border)
        #expect(out.pixel(x: 10, y: 1) == [255, 255, 255, 255] && out.pixel(x: 10, y: 0)![0] >= 250)
        #expect(out.pixel(x: 10, y: 2)![0] <= 6 && out.pixel(x: 10, y: 3) == [0, 0, 0, 255])
        let bad = ImageTransformers.Circle(borderWidth: -1)
        #expect(TransformImages.failureKey { try bad.transform(image) } == bad.key)
        #expect(ImageTransformers.Circle.circle(borderWidth: 1.5, borderColor: .white).key == "circle(border=1.5,color=#ffffffff)")
    }
}
