import Foundation
import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.Blur", .timeLimit(.minutes(1)))
struct BlurTransformerTests {
    @Test("a uniform image stays exactly uniform", arguments: [PixelFormat.rgba8, .rgb8, .grayAlpha8, .gray8])
    func uniform(format: PixelFormat) throws {
        let value: [UInt8] = Array([37, 200, 90, 180].prefix(format.channelCount - (format.hasAlpha ? 1 : 0))) + (format.hasAlpha ? [180] : [])
        let image = TransformImages.solid(width: 31, height: 17, format: format, value)
        let out = try ImageTransformers.Blur.blur(radius: 4).transform(image)
        #expect(out.pixelFormat == format && out.size == image.size)
        for (x, y) in [(0, 0), (30, 16), (15, 8), (3, 12)] { #expect(out.pixel(x: x, y: y) == value) }
    }

    @Test("a step edge follows the Gaussian's cumulative profile", arguments: [2.0, 5.0, 12.0])
    func stepEdge(sigma: Double) throws {
        // Given black on the left half, white on the right, 200 px wide
        let image = TransformImages.make(width: 200, height: 3, format: .gray8) { x, _ in [x < 100 ? 0 : 255] }
        // When blurred with standard deviation σ
        let out = try ImageTransformers.Blur(radius: sigma).transform(image)
        // Then each pixel is close to 255 · Φ((x + ½ − 100) / σ)
        for x in 40..<160 {
            let expected = 255 * 0.5 * erfc(-((Double(x) + 0.5 - 100) / sigma) / 2.0.squareRoot())
            #expect(abs(Double(out.pixel(x: x, y: 1)![0]) - expected) <= 4, "x = \(x)")
        }
        // and the blur is symmetric around the edge
        for d in 0..<20 { #expect(abs(Int(out.pixel(x: 99 - d, y: 0)![0]) + Int(out.pixel(x: 100 + d, y: 0)![0]) - 255) <= 2) }
    }

    @Test("blurs both axes by the same amount")
    func separable() throws {
        // Given a white dot on black, When blurred, Then the spot is round: same falloff across and down
        let dot = TransformImages.make(width: 41, height: 41, format: .gray8) { x, y in [x == 20 && y == 20 ? 255 : 0] }
        let out = try ImageTransformers.Blur(radius: 3).transform(TransformImages.make(width: 41, height: 41, format: .gray8) { x, y in
            [abs(x - 20) <= 4 && abs(y - 20) <= 4 ? 255 : 0]
        })
        // (±1: each pass rounds to 8 bits, and rows are blurred before columns)
        for d in 0..<12 { #expect(abs(Int(out.pixel(x: 20 + d, y: 20)![0]) - Int(out.pixel(x: 20, y: 20 + d)![0])) <= 1) }
        // The centre keeps (2Φ(1.5) − 1)² ≈ 75 % (191) of the 9×9 square's white; 10 px out almost nothing
        #expect(abs(Int(out.pixel(x: 20, y: 20)![0]) - 191) <= 3, "\(out.pixel(x: 20, y: 20)!)")
        #expect(out.pixel(x: 30, y: 20)![0] < 15, "\(out.pixel(x: 30, y: 20)!)")
        #expect(try ImageTransformers.Blur(radius: 1).transform(dot).pixel(x: 20, y: 20)![0] < 255)
    }

    @Test("transparent pixels lend no colour; faint pixels keep their hue")
    func premultiplied() throws {
        // Given opaque red on the left, transparent green on the right
        let image = TransformImages.make(width: 40, height: 4, format: .rgba8) { x, _ in x < 20 ? [255, 0, 0, 255] : [0, 255, 0, 0] }
        // When blurred
        let out = try ImageTransformers.Blur(radius: 3).transform(image)
        // Then alpha fades across the edge, but every visible pixel is pure red
        #expect(out.pixel(x: 0, y: 0) == [255, 0, 0, 255] && out.pixel(x: 39, y: 0)?[3] == 0)
        #expect(abs(Int(out.pixel(x: 20, y: 2)![3]) - 128) <= 40)
        for x in 0..<40 {
            let p = out.pixel(x: x, y: 1)!
            if p[3] > 0 { #expect(p[0] == 255 && p[1] == 0 && p[2] == 0, "x = \(x): \(p)") }
        }
    }

    @Test("radius 0 is the identity; bad radii fail")
    func radii() throws {
        let image = TransformImages.numbered(width: 8, height: 8)
        #expect(try ImageTransformers.Blur(radius: 0).transform(image).storage === image.storage)
        for radius in [-1, .nan, .infinity, ImageTransformers.Blur.maximumRadius + 1] {
            let blur = ImageTransformers.Blur(radius: radius)
            #expect(TransformImages.failureKey { try blur.transform(image) } == blur.key)
        }
        // A radius far larger than the image is fine (edges repeat): the result is the mean-ish flat colour
        let big = try ImageTransformers.Blur(radius: 500).transform(TransformImages.make(width: 4, height: 1, format: .gray8) { x, _ in [x < 2 ? 0 : 200] })
        #expect(abs(Int(big.pixel(x: 0, y: 0)![0]) - 100) <= 4 && abs(Int(big.pixel(x: 3, y: 0)![0]) - 100) <= 4)
    }

    @Test("stops when its task is cancelled")
    func cancellation() async {
        // Given a task cancelled before it blurs, Then the blur throws CancellationError instead of finishing
        let image = TransformImages.numbered(width: 64, height: 64)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try ImageTransformers.Blur(radius: 3).transform(image)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("three extended boxes have exactly the Gaussian's variance")
    func boxes() {
        for sigma in [0.3, 0.8, 1.5, 3, 10, 47.3, 1000] {
            let box = ImageTransformers.Blur.Box(sigma: sigma)
            // Variances of successive passes add up.
            #expect(abs(3 * box.variance - sigma * sigma) / (sigma * sigma) < 1e-5, "σ = \(sigma): \(box)")
            #expect(box.endWeight >= 0 && box.endWeight < 1 && box.radius >= 0)
        }
        #expect(ImageTransformers.Blur.blur(radius: 2.5).key == "blur(r=2.5)")
    }
}
