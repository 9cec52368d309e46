import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.Rotate", .timeLimit(.minutes(1)))
struct RotateTransformerTests {
    @Test("quarter turns move pixels exactly", arguments: [PixelFormat.rgba8, .rgb8, .grayAlpha8, .gray8])
    func quarterTurns(format: PixelFormat) throws {
        // Given a 5×3 image whose pixels encode their position
        let image = TransformImages.numbered(width: 5, height: 3, format: format, padding: 2)
        // When rotated by 90°, 180° and 270° clockwise
        let r90 = try ImageTransformers.Rotate(degrees: 90).transform(image)
        let r180 = try ImageTransformers.Rotate(degrees: 180).transform(image)
        let r270 = try ImageTransformers.Rotate(degrees: 270).transform(image)
        // Then sizes swap for odd quarter turns, the format is kept, and every pixel is where the rotation puts it
        #expect(r90.size == PixelSize(width: 3, height: 5) && r90.pixelFormat == format)
        #expect(r180.size == image.size && r270.size == PixelSize(width: 3, height: 5))
        for y in 0..<3 {
            for x in 0..<5 {
                let source = image.pixel(x: x, y: y)
                // Clockwise: the top-left corner goes to the top-right.
                #expect(r90.pixel(x: 2 - y, y: x) == source)
                #expect(r180.pixel(x: 4 - x, y: 2 - y) == source)
                #expect(r270.pixel(x: y, y: 4 - x) == source)
            }
        }
    }

    @Test("angles are normalised: -90 is 270, 450 is 90, 360 is none")
    func normalisation() throws {
        let image = TransformImages.numbered(width: 4, height: 3)
        #expect(ImageTransformers.Rotate(degrees: -90).key == ImageTransformers.Rotate(degrees: 270).key)
        #expect(ImageTransformers.Rotate(degrees: 450).degrees == 90)
        #expect(ImageTransformers.Rotate(degrees: -720).degrees == 0)
        #expect(ImageTransformers.Rotate(degrees: 90 + 1e-12).degrees == 90)
        #expect(try ImageTransformers.Rotate(degrees: 360).transform(image).storage === image.storage)
        #expect(try ImageTransformers.Rotate(degrees: -90).transform(image).hasSamePixels(as: ImageTransformers.Rotate(degrees: 270).transform(image)))
        #expect(ImageTransformers.Rotate.rotate(degrees: 30, background: .white).key == "rotate(deg=30.0,bg=#ffffffff)")
    }

    @Test("any angle expands the canvas and fills the corners with the background")
    func anyAngle() throws {
        // Given an opaque 40×40 red square
        let image = TransformImages.solid(width: 40, height: 40, format: .rgb8, [255, 0, 0])
        // When rotated by 45° on an opaque blue background
        let out = try ImageTransformers.Rotate(degrees: 45, background: ImageTransformers.Color(red: 0, green: 0, blue: 255)).transform(image)
        // Then the canvas holds the whole diamond (40·√2 ≈ 56.6 → 57), stays rgb8,
        // the corners are background, the centre is the image, and the edge is antialiased
        #expect(out.size == PixelSize(width: 57, height: 57) && out.pixelFormat == .rgb8)
        #expect(out.pixel(x: 0, y: 0) == [0, 0, 255])
        #expect(out.pixel(x: 56, y: 56) == [0, 0, 255])
        #expect(out.pixel(x: 28, y: 28) == [255, 0, 0])
        #expect(out.pixel(x: 28, y: 2) == [255, 0, 0])  // near the top vertex of the diamond
        let edge = (0..<57).compactMap { out.pixel(x: $0, y: 14) }
        #expect(edge.contains { $0[0] > 20 && $0[0] < 235 && Int($0[0]) + Int($0[2]) >= 250 && Int($0[0]) + Int($0[2]) <= 260 })
    }

    @Test("a transparent background adds alpha; a gray one keeps gray images gray")
    func formats() throws {
        let rgb = TransformImages.solid(width: 10, height: 6, format: .rgb8, [10, 200, 30])
        let clear = try ImageTransformers.Rotate(degrees: 30).transform(rgb)
        #expect(clear.pixelFormat == .rgba8)
        #expect(clear.pixel(x: 0, y: 0) == [0, 0, 0, 0])
        #expect(clear.pixel(x: clear.width / 2, y: clear.height / 2) == [10, 200, 30, 255])
        // Premultiplied sampling: partly covered edge pixels keep the image's colour, only alpha fades.
        for x in 0..<clear.width {
            for y in 0..<clear.height {
                let p = try #require(clear.pixel(x: x, y: y))
                if p[3] > 40 { #expect(abs(Int(p[1]) - 200) <= 6 && abs(Int(p[0]) - 10) <= 6) }
            }
        }
        let gray = TransformImages.solid(width: 10, height: 6, format: .gray8, [90])
        let onGray = try ImageTransformers.Rotate(degrees: 10, background: ImageTransformers.Color(white: 20)).transform(gray)
        #expect(onGray.pixelFormat == .gray8 && onGray.pixel(x: 0, y: 0) == [20])
        let onRed = try ImageTransformers.Rotate(degrees: 10, background: ImageTransformers.Color(red: 255, green: 0, blue: 0)).transform(gray)
        #expect(onRed.pixelFormat == .rgb8 && onRed.pixel(x: 0, y: 0) == [255, 0, 0])
        #expect(onRed.pixel(x: onRed.width / 2, y: onRed.height / 2) == [90, 90, 90])
    }

    @Test("a marker pixel lands where the clockwise rotation puts it")
    func marker() throws {
        // Given a 41×41 black image with a 3×3 white marker centred 14 px right of the centre
        let image = TransformImages.make(width: 41, height: 41, format: .gray8) { x, y in
            abs(x - 34) <= 1 && abs(y - 20) <= 1 ? [255] : [0]
        }
        // When rotated by 30° clockwise
        let out = try ImageTransformers.Rotate(degrees: 30, background: .black).transform(image)
        // Then the brightest pixel is 14 px from the centre at 30° below the x axis
        var best = (x: 0, y: 0, value: UInt8(0))
        for y in 0..<out.height {
            for x in 0..<out.width where out.pixel(x: x, y: y)![0] > best.value { best = (x, y, out.pixel(x: x, y: y)![0]) }
        }
        let cx = Double(out.width) / 2 - 0.5 + 14 * 0.8660254, cy = Double(out.height) / 2 - 0.5 + 14 * 0.5
        #expect(abs(Double(best.x) - cx) <= 1 && abs(Double(best.y) - cy) <= 1)
        #expect(best.value == 255)
    }

    @Test("an arbitrary-angle rotation stops when its task is cancelled")
    func cancellation() async {
        let image = TransformImages.numbered(width: 64, height: 64)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try ImageTransformers.Rotate(degrees: 20).transform(image)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("non-finite angles fail instead of trapping")
    func badAngles() {
        let image = TransformImages.numbered(width: 4, height: 4)
        for angle in [Double.nan, .infinity, -.infinity] {
            let rotate = ImageTransformers.Rotate(degrees: angle)
            #expect(TransformImages.failureKey { try rotate.transform(image) } == rotate.key)
        }
    }
}
