import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.RoundCorner", .timeLimit(.minutes(1)))
struct RoundCornerTransformerTests {
    static let image = TransformImages.numbered(width: 60, height: 40, format: .rgb8, padding: 1)

    @Test("clears the corners, antialiases the arc, leaves the rest exactly as it was")
    func corners() throws {
        // When the corners of an opaque rgb8 image are rounded by 10 px
        let out = try ImageTransformers.RoundCorner.roundCorners(radius: 10).transform(Self.image)
        // Then the result is rgba8 of the same size
        #expect(out.pixelFormat == .rgba8 && out.size == Self.image.size)
        // the corner pixels are fully transparent
        for (x, y) in [(0, 0), (59, 0), (0, 39), (59, 39), (1, 1), (2, 1)] { #expect(out.pixel(x: x, y: y)?[3] == 0) }
        // edges between the corners and the interior are untouched and opaque
        for (x, y) in [(30, 0), (0, 20), (59, 20), (30, 39), (30, 20), (10, 10), (3, 3) ] {
            #expect(out.pixel(x: x, y: y) == Self.image.pixel(x: x, y: y)! + [255])
        }
        // and somewhere along the arc alpha is partial while the colour is unchanged
        let corner = (0..<10).flatMap { y in (0..<10).compactMap { out.pixel(x: $0, y: y) } }
        #expect(corner.contains { $0[3] > 0 && $0[3] < 255 })
        for x in 0..<10 {
            for y in 0..<10 {
                let p = out.pixel(x: x, y: y)!
                if p[3] > 0 { #expect(Array(p[0..<3]) == Self.image.pixel(x: x, y: y)!) }
            }
        }
    }

    @Test("alpha along a corner follows the circle's coverage")
    func coverage() throws {
        // Given a white 21×21 image rounded with radius 10 (a disc)
        let white = TransformImages.solid(width: 21, height: 21, format: .gray8, [255])
        let out = try ImageTransformers.RoundCorner(radius: 100).transform(white)
        // Then alpha ≈ 255 × clamp(10.5 − distance from the centre + ½)
        for y in 0..<21 {
            for x in 0..<21 {
                let distance = (Double(x - 10) * Double(x - 10) + Double(y - 10) * Double(y - 10)).squareRoot()
                let expected = 255 * min(1, max(0, 10.5 - distance + 0.5))
                let p = out.pixel(x: x, y: y)!
                #expect(abs(Double(p[3]) - expected) <= 1, "(\(x), \(y))")
                if p[3] > 0 { #expect(Array(p[0..<3]) == [255, 255, 255]) }
            }
        }
    }

    @Test("rounds only the chosen corners")
    func someCorners() throws {
        let out = try ImageTransformers.RoundCorner(radius: 10, corners: [.topLeft, .bottomRight]).transform(Self.image)
        #expect(out.pixel(x: 0, y: 0)?[3] == 0 && out.pixel(x: 59, y: 39)?[3] == 0)
        #expect(out.pixel(x: 59, y: 0) == Self.image.pixel(x: 59, y: 0)! + [255])
        #expect(out.pixel(x: 0, y: 39) == Self.image.pixel(x: 0, y: 39)! + [255])
    }

    @Test("draws a border of the given width inside the edge")
    func border() throws {
        // When rounded with a 3 px opaque red border
        let red = ImageTransformers.Color(red: 255, green: 0, blue: 0)
        let out = try ImageTransformers.RoundCorner(radius: 8, borderWidth: 3, borderColor: red).transform(Self.image)
        // Then the three outer rows and columns are red, the fourth is the image
        for i in 0..<3 {
            #expect(out.pixel(x: 30, y: i) == [255, 0, 0, 255])
            #expect(out.pixel(x: i, y: 20) == [255, 0, 0, 255])
            #expect(out.pixel(x: 59 - i, y: 20) == [255, 0, 0, 255])
            #expect(out.pixel(x: 30, y: 39 - i) == [255, 0, 0, 255])
        }
        #expect(out.pixel(x: 30, y: 3) == Self.image.pixel(x: 30, y: 3)! + [255])
        #expect(out.pixel(x: 3, y: 20) == Self.image.pixel(x: 3, y: 20)! + [255])
        // and a half-transparent border blends over the image
        let half = try ImageTransformers.RoundCorner(radius: 0, borderWidth: 1, borderColor: ImageTransformers.Color(white: 255, alpha: 128)).transform(
            TransformImages.solid(width: 5, height: 5, format: .gray8, [0]))
        #expect(half.pixel(x: 2, y: 0) == [128, 128, 128, 255])
        #expect(half.pixel(x: 2, y: 2) == [0, 0, 0, 255])
    }

    @Test("radius 0 without a border only converts to rgba8; straight alpha is respected")
    func identity() throws {
        let out = try ImageTransformers.RoundCorner(radius: 0).transform(Self.image)
        #expect(out.hasSamePixels(as: Self.image.converted(to: .rgba8)))
        // A half-transparent pixel at the arc keeps its colour and loses only alpha
        let translucent = TransformImages.solid(width: 20, height: 20, format: .grayAlpha8, [200, 128])
        let rounded = try ImageTransformers.RoundCorner(radius: 10).transform(translucent)
        #expect(rounded.pixel(x: 10, y: 10) == [200, 200, 200, 128])
        let edge = try #require(rounded.pixel(x: 1, y: 4))
        #expect(edge[3] < 128 && edge[3] > 0 && edge[0] == 200)
    }

    @Test("negative or non-finite radius and border fail")
    func bad() {
        for transformer in [
            ImageTransformers.RoundCorner(radius: -1), ImageTransformers.RoundCorner(radius: .nan),
            ImageTransformers.RoundCorner(radius: 4, borderWidth: -2), ImageTransformers.RoundCorner(radius: 4, borderWidth: .infinity),
        ] {
            #expect(TransformImages.failureKey { try transformer.transform(Self.image) } == transformer.key)
        }
    }

    @Test("key encodes every parameter")
    func key() {
        #expect(ImageTransformers.RoundCorner.roundCorners(radius: 16).key == "roundCorners(r=16.0,corners=15,border=0.0,color=#000000ff)")
        #expect(ImageTransformers.RoundCorner(radius: 2.5, corners: .topLeft, borderWidth: 1, borderColor: .white).key
            == "roundCorners(r=2.5,corners=1,border=1.0,color=#ffffffff)")
    }
}
