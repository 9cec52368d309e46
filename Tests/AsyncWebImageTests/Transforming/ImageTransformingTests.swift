import Testing
@testable import AsyncWebImage

@Suite("Image+Transforming", .timeLimit(.minutes(1)))
struct ImageTransformingTests {
    @Test("converts between every pair of pixel formats")
    func conversions() throws {
        // Given one orange half-transparent pixel and one gray opaque pixel in each format
        let rgba = try Image(width: 2, height: 1, pixelFormat: .rgba8, pixels: [255, 128, 0, 100, 50, 50, 50, 255])
        // Then conversions add opaque alpha, copy gray into colour, take Rec. 709 luma, and drop alpha
        #expect(rgba.converted(to: .rgb8).pixels == [255, 128, 0, 50, 50, 50])
        #expect(rgba.converted(to: .grayAlpha8).pixels == [146, 100, 50, 255])
        #expect(rgba.converted(to: .gray8).pixels == [146, 50])
        #expect(rgba.converted(to: .rgba8).storage === rgba.storage)
        let rgb = rgba.converted(to: .rgb8)
        #expect(rgb.converted(to: .rgba8).pixels == [255, 128, 0, 255, 50, 50, 50, 255])
        let grayAlpha = rgba.converted(to: .grayAlpha8)
        #expect(grayAlpha.converted(to: .rgba8).pixels == [146, 146, 146, 100, 50, 50, 50, 255])
        #expect(grayAlpha.converted(to: .rgb8).pixels == [146, 146, 146, 50, 50, 50])
        let gray = rgba.converted(to: .gray8)
        #expect(gray.converted(to: .rgba8).pixels == [146, 146, 146, 255, 50, 50, 50, 255])
        #expect(gray.converted(to: .grayAlpha8).pixels == [146, 255, 50, 255])
        #expect(gray.converted(to: .rgb8).pixels == [146, 146, 146, 50, 50, 50])
    }

    @Test("respects row padding and keeps metadata")
    func padding() {
        let image = TransformImages.numbered(width: 3, height: 2, format: .rgb8, padding: 5).with(orientation: .down, format: .jpeg)
        let out = image.converted(to: .rgba8)
        #expect(out.orientation == .down && out.format == .jpeg && out.bytesPerRow == 12)
        for y in 0..<2 { for x in 0..<3 { #expect(out.pixel(x: x, y: y) == image.pixel(x: x, y: y)! + [255]) } }
    }

    @Test("clamps rectangles without overflow")
    func rects() {
        #expect(PixelRect(x: -2, y: 3, width: 5, height: 100).clamped(toWidth: 10, height: 8) == PixelRect(x: 0, y: 3, width: 3, height: 5))
        #expect(PixelRect(x: .max, y: 0, width: .max, height: 1).clamped(toWidth: 10, height: 8) == nil)
        #expect(PixelRect(x: .min, y: .min, width: .max, height: .max).clamped(toWidth: 10, height: 8) == nil)
        #expect(PixelRect(x: 1, y: 1, width: .max, height: .max).clamped(toWidth: 10, height: 8) == PixelRect(x: 1, y: 1, width: 9, height: 7))
    }

    @Test("checks output sizes against the cap")
    func sizeCap() {
        #expect(throws: ImageError.self) { try Image.checkTransformSize(width: 0, height: 1, key: "k") }
        #expect(throws: ImageError.self) { try Image.checkTransformSize(width: 20_000, height: 20_000, key: "k") }
        #expect(throws: Never.self) { try Image.checkTransformSize(width: 10_000, height: 10_000, key: "k") }
    }
}
