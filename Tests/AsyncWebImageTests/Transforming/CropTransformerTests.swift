import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.Crop", .timeLimit(.minutes(1)))
struct CropTransformerTests {
    @Test("copies exactly the pixels of the rectangle", arguments: [PixelFormat.rgba8, .rgb8, .grayAlpha8, .gray8])
    func exact(format: PixelFormat) throws {
        // Given a 10×8 image with padded rows
        let image = TransformImages.numbered(width: 10, height: 8, format: format, padding: 5)
        // When a 4×3 rectangle at (5, 2) is cut out
        let out = try ImageTransformers.Crop.crop(x: 5, y: 2, width: 4, height: 3).transform(image)
        // Then each pixel is the source pixel offset by the origin
        #expect(out.size == PixelSize(width: 4, height: 3) && out.pixelFormat == format)
        for y in 0..<3 {
            for x in 0..<4 { #expect(out.pixel(x: x, y: y) == image.pixel(x: x + 5, y: y + 2)) }
        }
    }

    @Test("clamps a rectangle that reaches outside, or refuses it when strict")
    func clamping() throws {
        let image = TransformImages.numbered(width: 10, height: 8)
        // Given a rectangle hanging over the bottom-right corner
        let rect = PixelRect(x: 7, y: 6, width: 10, height: 10)
        // When clamping, Then only the inside 3×2 remains
        let out = try ImageTransformers.Crop(rect: rect).transform(image)
        #expect(out.size == PixelSize(width: 3, height: 2))
        #expect(out.pixel(x: 0, y: 0) == image.pixel(x: 7, y: 6))
        #expect(out.pixel(x: 2, y: 1) == image.pixel(x: 9, y: 7))
        // Negative origins clamp too
        let corner = try ImageTransformers.Crop.crop(x: -3, y: -3, width: 5, height: 4).transform(image)
        #expect(corner.size == PixelSize(width: 2, height: 1) && corner.pixel(x: 1, y: 0) == image.pixel(x: 1, y: 0))
        // When strict, Then it fails with its own key
        let strict = ImageTransformers.Crop(rect: rect, clampsToImage: false)
        #expect(TransformImages.failureKey { try strict.transform(image) } == strict.key)
        // A strict rectangle fully inside is fine
        #expect(try ImageTransformers.Crop(rect: PixelRect(x: 0, y: 0, width: 10, height: 8), clampsToImage: false).transform(image).storage === image.storage)
    }

    @Test("fails for empty, negative, disjoint and overflowing rectangles, never traps")
    func badRectangles() {
        let image = TransformImages.numbered(width: 10, height: 8)
        for rect in [
            PixelRect(x: 0, y: 0, width: 0, height: 5),
            PixelRect(x: 0, y: 0, width: -4, height: 5),
            PixelRect(x: 10, y: 0, width: 5, height: 5),
            PixelRect(x: -20, y: 0, width: 5, height: 5),
            PixelRect(x: 0, y: .min, width: 5, height: 5),
        ] {
            let crop = ImageTransformers.Crop(rect: rect)
            #expect(TransformImages.failureKey { try crop.transform(image) } == crop.key)
        }
        // Huge sizes clamp without overflow
        let out = try? ImageTransformers.Crop(rect: PixelRect(x: 2, y: 2, width: .max, height: .max)).transform(image)
        #expect(out?.size == PixelSize(width: 8, height: 6))
    }

    @Test("the rectangle is in display coordinates")
    func orientation() throws {
        // Given 4×2 stored pixels displayed rotated 90° clockwise (2×4 upright)
        let image = TransformImages.numbered(width: 4, height: 2, format: .gray8).with(orientation: .right)
        let upright = image.applyingOrientation()
        // When cropping the bottom half of what is displayed
        let out = try ImageTransformers.Crop.crop(x: 0, y: 2, width: 2, height: 2).transform(image)
        // Then the pixels are those of the upright image
        #expect(out.orientation == .up)
        for y in 0..<2 {
            for x in 0..<2 { #expect(out.pixel(x: x, y: y) == upright.pixel(x: x, y: y + 2)) }
        }
    }

    @Test("key encodes the rectangle and the clamping")
    func key() {
        #expect(ImageTransformers.Crop.crop(x: 1, y: 2, width: 3, height: 4).key == "crop(x=1,y=2,w=3,h=4,clamp=true)")
        #expect(ImageTransformers.Crop(rect: PixelRect(x: 0, y: 0, width: 1, height: 1), clampsToImage: false).key == "crop(x=0,y=0,w=1,h=1,clamp=false)")
    }
}
