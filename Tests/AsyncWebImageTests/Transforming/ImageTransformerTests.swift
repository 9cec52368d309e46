import Testing
@testable import AsyncWebImage

/// The contract every built-in keeps, checked on all of them at once.
@Suite("ImageTransformer contract", .timeLimit(.minutes(2)))
struct ImageTransformerTests {
    static let builtIns: [any ImageTransformer] = [
        .resize(width: 3, height: 2), .resize(width: 7, height: 7, mode: .fill, upscale: true),
        .resize(width: 2, height: 9, mode: .stretch, upscale: true, filter: .lanczos3),
        .crop(x: 1, y: 0, width: 2, height: 2), .flip(horizontal: true, vertical: true),
        .rotate(degrees: 90), .rotate(degrees: 180), .rotate(degrees: 33, background: .white), .rotate(degrees: -45),
        .roundCorners(radius: 2, borderWidth: 1, borderColor: .white), .circle(borderWidth: 1),
        .tint(ImageTransformers.Color(red: 9, green: 8, blue: 7, alpha: 99)), .blur(radius: 0.5), .blur(radius: 30),
        .grayscale(), .grayscale(.rec601),
        .pipeline([.rotate(degrees: 10), .blur(radius: 1), .resize(width: 2, height: 2, mode: .fill)]),
        .colorControls(saturation: 1.5, brightness: 0.1, contrast: 1.2),
    ]

    @Test("every built-in handles every pixel format and tiny, thin and oriented images")
    func robustness() throws {
        let formats: [PixelFormat] = [.rgba8, .rgb8, .grayAlpha8, .gray8]
        let sizes = [(1, 1), (1, 5), (5, 1), (2, 3), (6, 4)]
        for transformer in Self.builtIns {
            for format in formats {
                for (w, h) in sizes {
                    for orientation in [Image.Orientation.up, .leftMirrored, .right] {
                        // Given a small image (maybe rotated by EXIF, with padded rows)
                        let image = TransformImages.numbered(width: w, height: h, format: format, padding: 1).with(orientation: orientation)
                        // When transformed (a crop may miss a 1-pixel-wide image: that is its error, not a trap)
                        let out: Image
                        do { out = try transformer.transform(image) } catch ImageError.transformFailed { continue }
                        // Then the result is upright, non-empty and its buffer matches its size
                        #expect(out.orientation == .up, "\(transformer.key) \(format) \(w)×\(h)")
                        #expect(out.width >= 1 && out.height >= 1)
                        #expect(out.pixels.count >= out.bytesPerRow * out.height)
                        #expect(out.bytesPerRow >= out.width * out.pixelFormat.bytesPerPixel)
                    }
                }
            }
        }
    }

    @Test("the same input gives the same pixels; keys are distinct and stable")
    func determinism() throws {
        let image = TransformImages.numbered(width: 13, height: 9)
        for transformer in Self.builtIns {
            #expect(try transformer.transform(image).hasSamePixels(as: transformer.transform(image)), "\(transformer.key)")
        }
        let keys = Self.builtIns.map(\.key)
        #expect(Set(keys).count == keys.count)
        // Keys are plain text built from the parameters alone: recreating a transformer gives the same key.
        #expect(keys == Self.builtIns.map(\.key))
        #expect(keys[7] == "rotate(deg=33.0,bg=#ffffffff)" && keys[8] == "rotate(deg=315.0,bg=#00000000)")
    }

    @Test("keep the source format and the preview flag")
    func metadata() throws {
        let preview = TransformImages.numbered(width: 8, height: 8).with(format: .jpeg, isPreview: true)
        for transformer in Self.builtIns {
            let out = try transformer.transform(preview)
            #expect(out.format == .jpeg && out.isPreview, "\(transformer.key)")
        }
    }
}
