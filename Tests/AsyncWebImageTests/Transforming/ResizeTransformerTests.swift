import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.Resize", .timeLimit(.minutes(1)))
struct ResizeTransformerTests {
    /// 400×200: left quarter red, middle half green, right quarter blue.
    static let bands = TransformImages.make(width: 400, height: 200, format: .rgb8) { x, _ in
        x < 100 ? [255, 0, 0] : (x < 300 ? [0, 255, 0] : [0, 0, 255])
    }

    @Test("fit keeps the aspect ratio inside the target")
    func fit() throws {
        // When 400×200 fits into 100×100, Then it becomes 100×50 with the bands in place
        let out = try ImageTransformers.Resize.resize(width: 100, height: 100).transform(Self.bands)
        #expect(out.size == PixelSize(width: 100, height: 50) && out.pixelFormat == .rgb8)
        #expect(out.pixel(x: 10, y: 25) == [255, 0, 0])
        #expect(out.pixel(x: 50, y: 25) == [0, 255, 0])
        #expect(out.pixel(x: 90, y: 25) == [0, 0, 255])
        // A tall target: the height follows the width's scale
        #expect(try ImageTransformers.Resize.resize(width: 50, height: 1000).transform(Self.bands).size == PixelSize(width: 50, height: 25))
    }

    @Test("fill covers the target and keeps the centre")
    func fill() throws {
        // When 400×200 fills 100×100, Then the centre 200×200 (all green) is kept
        let out = try ImageTransformers.Resize.resize(width: 100, height: 100, mode: .fill).transform(Self.bands)
        #expect(out.size == PixelSize(width: 100, height: 100))
        for (x, y) in [(0, 0), (99, 0), (50, 50), (0, 99), (99, 99)] { #expect(out.pixel(x: x, y: y) == [0, 255, 0]) }
        // A wide target keeps the full width
        let wide = try ImageTransformers.Resize.resize(width: 200, height: 50, mode: .fill).transform(Self.bands)
        #expect(wide.size == PixelSize(width: 200, height: 50))
        #expect(wide.pixel(x: 0, y: 0) == [255, 0, 0] && wide.pixel(x: 199, y: 49) == [0, 0, 255])
    }

    @Test("fill resamples the centre region in place, exactly as resampling a cropped copy", arguments: [PixelFormat.rgba8, .rgb8, .grayAlpha8, .gray8])
    func fillRegion(format: PixelFormat) throws {
        // Given a 50×30 image with padded rows
        let image = TransformImages.numbered(width: 50, height: 30, format: format, padding: 3)
        // When filling 12×12 (the centre 30×30 region, shrunk)
        let out = try ImageTransformers.Resize.resize(width: 12, height: 12, mode: .fill).transform(image)
        // Then the pixels equal resampling a copy of that region
        let copy = image.cropped(to: PixelRect(x: 10, y: 0, width: 30, height: 30))
        #expect(out.hasSamePixels(as: ImageResampler.resample(copy, to: PixelSize(width: 12, height: 12))))
    }

    @Test("one side alone: the other follows the aspect ratio")
    func oneSide() throws {
        // When only a width or a height is given, Then the other side scales with it
        let byWidth = ImageTransformers.Resize.resize(width: 100)
        #expect(try byWidth.transform(Self.bands).size == PixelSize(width: 100, height: 50))
        #expect(try ImageTransformers.Resize.resize(height: 20).transform(Self.bands).size == PixelSize(width: 40, height: 20))
        // without enlarging unless asked, and with a readable key
        #expect(try ImageTransformers.Resize.resize(width: 800).transform(Self.bands).size == Self.bands.size)
        #expect(try ImageTransformers.Resize.resize(width: 800, upscale: true).transform(Self.bands).size == PixelSize(width: 800, height: 400))
        #expect(byWidth.key == "resize(w=100,h=any,mode=fit,upscale=false,filter=lanczos3)")
    }

    @Test("stretch ignores the aspect ratio")
    func stretch() throws {
        let out = try ImageTransformers.Resize.resize(width: 40, height: 80, mode: .stretch).transform(Self.bands)
        #expect(out.size == PixelSize(width: 40, height: 80))
        #expect(out.pixel(x: 2, y: 79) == [255, 0, 0] && out.pixel(x: 20, y: 0) == [0, 255, 0] && out.pixel(x: 38, y: 40) == [0, 0, 255])
    }

    @Test("never enlarges unless asked to")
    func upscale() throws {
        let small = TransformImages.numbered(width: 20, height: 10)
        // Without upscale: fit returns the image, fill crops the centre, stretch caps each axis
        #expect(try ImageTransformers.Resize.resize(width: 100, height: 100).transform(small).storage === small.storage)
        let filled = try ImageTransformers.Resize.resize(width: 8, height: 100, mode: .fill).transform(small)
        #expect(filled.size == PixelSize(width: 8, height: 10))
        #expect(filled.pixel(x: 0, y: 0) == small.pixel(x: 6, y: 0) && filled.pixel(x: 7, y: 9) == small.pixel(x: 13, y: 9))
        #expect(try ImageTransformers.Resize.resize(width: 100, height: 5, mode: .stretch).transform(small).size == PixelSize(width: 20, height: 5))
        // With upscale: the target is reached
        let big = try ImageTransformers.Resize.resize(width: 100, height: 100, upscale: true).transform(small)
        #expect(big.size == PixelSize(width: 100, height: 50))
    }

    @Test("averages when shrinking and keeps alpha straight", arguments: ImageTransformers.Resize.Filter.allCases)
    func quality(filter: ImageTransformers.Resize.Filter) throws {
        // Given a 2×2 checkerboard of black and white tiled over 64×64
        let checker = TransformImages.make(width: 64, height: 64, format: .gray8) { x, y in [(x + y) % 2 == 0 ? 0 : 255] }
        // When shrunk to 16×16, Then every pixel is mid gray (no aliasing):
        // 128 on the stored values (the default light, as ImageMagick's
        // `convert -filter Lanczos -resize 16x16` gives); in linear light,
        // half the light, sRGB 187 (ImageMagick's `convert -colorspace RGB
        // -filter Lanczos -resize 16x16 -colorspace sRGB` gives 186–187)
        for (light, mid) in [(ImageTransformers.Resize.Light.encoded, 128), (.linear, filter == .area ? 128 : 187)] {
            let out = try ImageTransformers.Resize(width: 16, height: 16, filter: filter, light: filter == .area ? .encoded : light).transform(checker)
            for y in 0..<16 {
                for x in 0..<16 { #expect(abs(Int(out.pixel(x: x, y: y)![0]) - mid) <= 2, "\(filter) \(light)") }
            }
        }
        // Given transparent green beside opaque red, When halved, Then no green bleeds in
        let alpha = TransformImages.make(width: 8, height: 8, format: .rgba8) { x, _ in x % 2 == 0 ? [0, 255, 0, 0] : [255, 0, 0, 255] }
        let half = try ImageTransformers.Resize.resize(width: 4, height: 4, filter: filter).transform(alpha)
        let p = try #require(half.pixel(x: 1, y: 1))
        // (Lanczos rings on this worst-case pattern; only the colour must be exact)
        #expect(p[0] == 255 && p[1] == 0 && abs(Int(p[3]) - 128) <= (filter == .lanczos3 ? 48 : 2), "\(p)")
    }

    @Test("sizes are in display coordinates")
    func orientation() throws {
        // Given 400×200 stored pixels displayed rotated (200×400)
        let image = Self.bands.with(orientation: .left)
        // When fitted into 100×100, Then the result is upright 50×100
        let out = try ImageTransformers.Resize.resize(width: 100, height: 100).transform(image)
        #expect(out.size == PixelSize(width: 50, height: 100) && out.orientation == .up)
    }

    @Test("empty, negative and absurd targets fail")
    func badSizes() throws {
        for (w, h) in [(0, 10), (10, -1), (-5, -5), (1_000_000, 1_000_000), (Int.max, 2)] {
            let resize = ImageTransformers.Resize.resize(width: w, height: h, mode: .stretch, upscale: true)
            #expect(TransformImages.failureKey { try resize.transform(Self.bands) } == resize.key)
        }
        // A huge target without upscaling is harmless: the result is bounded by the image
        #expect(try ImageTransformers.Resize.resize(width: .max, height: .max).transform(Self.bands).storage === Self.bands.storage)
        #expect(try ImageTransformers.Resize.resize(width: .max, height: 100, mode: .fill).transform(Self.bands).size == PixelSize(width: 400, height: 100))
    }

    @Test("key encodes every parameter")
    func key() {
        #expect(ImageTransformers.Resize.resize(width: 256, height: 128).key == "resize(w=256,h=128,mode=fit,upscale=false,filter=lanczos3)")
        #expect(ImageTransformers.Resize.resize(width: 256, height: 128, filter: .area).key == "resize(w=256,h=128,mode=fit,upscale=false,filter=area)")
        #expect(ImageTransformers.Resize(size: PixelSize(width: 1, height: 2), mode: .fill, upscale: true, filter: .lanczos3).key
            == "resize(w=1,h=2,mode=fill,upscale=true,filter=lanczos3)")
    }
}
