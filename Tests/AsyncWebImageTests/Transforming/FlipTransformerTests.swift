import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.Flip", .timeLimit(.minutes(1)))
struct FlipTransformerTests {
    static let formats: [PixelFormat] = [.rgba8, .rgb8, .grayAlpha8, .gray8]

    @Test("mirrors pixels exactly in every format, padded rows included", arguments: formats)
    func mirrors(format: PixelFormat) throws {
        // Given a 7×5 image whose pixels encode their position, with padded rows
        let image = TransformImages.numbered(width: 7, height: 5, format: format, padding: 3)
        for (h, v) in [(true, false), (false, true), (true, true)] {
            // When flipped
            let out = try ImageTransformers.Flip(horizontal: h, vertical: v).transform(image)
            // Then every pixel comes from the mirrored position, and nothing else changes
            #expect(out.size == image.size && out.pixelFormat == format)
            #expect(out.bytesPerRow == 7 * format.bytesPerPixel)
            for y in 0..<5 {
                for x in 0..<7 {
                    #expect(out.pixel(x: x, y: y) == image.pixel(x: h ? 6 - x : x, y: v ? 4 - y : y))
                }
            }
        }
    }

    @Test("flipping twice gives the original; no direction is the identity")
    func involution() throws {
        let image = TransformImages.numbered(width: 9, height: 4)
        let flip = ImageTransformers.Flip.flip(horizontal: true, vertical: true)
        #expect(try flip.transform(flip.transform(image)).hasSamePixels(as: image))
        #expect(try ImageTransformers.Flip.flip().transform(image).storage === image.storage)
    }

    @Test("works in display coordinates: the EXIF orientation is applied first")
    func orientation() throws {
        // Given stored pixels that display rotated (EXIF 6: turn 90° clockwise)
        let stored = TransformImages.numbered(width: 4, height: 2, format: .gray8)
        let rotated = stored.with(orientation: .right)
        // When flipped horizontally
        let out = try ImageTransformers.Flip(horizontal: true, vertical: false).transform(rotated)
        // Then the result is the upright image mirrored: 2×4 and `.up`
        let upright = rotated.applyingOrientation()
        #expect(out.orientation == .up && out.size == PixelSize(width: 2, height: 4))
        for y in 0..<4 {
            for x in 0..<2 { #expect(out.pixel(x: x, y: y) == upright.pixel(x: 1 - x, y: y)) }
        }
    }

    @Test("key names both directions")
    func key() {
        #expect(ImageTransformers.Flip.flip(horizontal: true).key == "flip(h=true,v=false)")
        #expect(ImageTransformers.Flip(horizontal: false, vertical: true).key == "flip(h=false,v=true)")
    }
}
