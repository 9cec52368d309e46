import Testing
@testable import AsyncWebImage

@Suite("Image orientation", .timeLimit(.minutes(1)))
struct ImageOrientationTests {
    /// The upright image: 3 wide, 2 tall, every pixel distinct.
    static let upright: [[UInt8]] = [[1, 2, 3], [4, 5, 6]]

    /// How a camera would have stored `upright` for each EXIF orientation:
    /// the inverse of the transform that displays it.
    static let stored: [Image.Orientation: [[UInt8]]] = [
        .up: [[1, 2, 3], [4, 5, 6]],
        .upMirrored: [[3, 2, 1], [6, 5, 4]],
        .down: [[6, 5, 4], [3, 2, 1]],
        .downMirrored: [[4, 5, 6], [1, 2, 3]],
        .leftMirrored: [[1, 4], [2, 5], [3, 6]],
        .right: [[3, 6], [2, 5], [1, 4]],
        .rightMirrored: [[6, 3], [5, 2], [4, 1]],
        .left: [[4, 1], [5, 2], [6, 3]],
    ]

    @Test("applying each EXIF orientation turns the stored pixels upright", arguments: Image.Orientation.allCases)
    func applies(orientation: Image.Orientation) throws {
        let rows = try #require(Self.stored[orientation])
        let image = try Image(width: rows[0].count, height: rows.count, pixelFormat: .gray8, pixels: rows.flatMap { $0 }, orientation: orientation)
        #expect(image.orientedSize == PixelSize(width: 3, height: 2))
        let upright = image.applyingOrientation()
        #expect(upright.orientation == .up)
        #expect(upright.size == PixelSize(width: 3, height: 2))
        #expect(upright.pixels == Self.upright.flatMap { $0 })
    }

    @Test("works for every pixel format", arguments: [PixelFormat.rgba8, .rgb8, .grayAlpha8])
    func formats(format: PixelFormat) throws {
        let n = format.bytesPerPixel
        // Stored for .right: 2 wide, 3 tall; channel c of pixel v is v*10+c.
        let rows = try #require(Self.stored[.right])
        let pixels = rows.flatMap { $0 }.flatMap { v in (0..<n).map { UInt8(Int(v) * 10 + $0) } }
        let image = try Image(width: 2, height: 3, pixelFormat: format, pixels: pixels, orientation: .right)
        let upright = image.applyingOrientation()
        #expect(upright.pixels == Self.upright.flatMap { $0 }.flatMap { v in (0..<n).map { UInt8(Int(v) * 10 + $0) } })
    }

    @Test("EXIF values outside 1–8 mean up")
    func exifValues() {
        #expect(Image.Orientation(exifValue: 6) == .right)
        #expect(Image.Orientation(exifValue: 0) == .up)
        #expect(Image.Orientation(exifValue: 9) == .up)
        #expect(Image.Orientation(exifValue: -3) == .up)
    }
}
