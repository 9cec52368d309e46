import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.ColorControls", .timeLimit(.minutes(1)))
struct ColorControlsTransformerTests {
    static let image = try! Image(width: 3, height: 1, pixelFormat: .rgba8, pixels: [255, 0, 0, 255, 100, 150, 200, 40, 0, 0, 0, 255])

    @Test("saturation 0 gives the luma in every channel; 2 pushes colours away from it")
    func saturation() throws {
        let gray = try ImageTransformers.ColorControls(saturation: 0).transform(Self.image)
        // Rec. 709 luma of red is 54, of (100, 150, 200) 143; alpha is kept
        #expect(gray.pixel(x: 0, y: 0) == [54, 54, 54, 255])
        #expect(gray.pixel(x: 1, y: 0) == [143, 143, 143, 40])
        let vivid = try ImageTransformers.ColorControls.colorControls(saturation: 2).transform(Self.image)
        // 143 + (c − 143) × 2, clamped
        #expect(vivid.pixel(x: 1, y: 0) == [57, 157, 255, 40])
        #expect(vivid.pixel(x: 2, y: 0) == [0, 0, 0, 255])
    }

    @Test("brightness adds, contrast scales around middle gray")
    func brightnessAndContrast() throws {
        let brighter = try ImageTransformers.ColorControls(brightness: 0.2).transform(Self.image)
        #expect(brighter.pixel(x: 1, y: 0) == [151, 201, 251, 40])
        #expect(brighter.pixel(x: 0, y: 0) == [255, 51, 51, 255])
        let harder = try ImageTransformers.ColorControls(contrast: 2).transform(Self.image)
        #expect(harder.pixel(x: 1, y: 0) == [73, 173, 255, 40])
        let flat = try ImageTransformers.ColorControls(contrast: 0).transform(Self.image)
        #expect(flat.pixel(x: 0, y: 0) == [128, 128, 128, 255])
    }

    @Test("keeps the pixel format; defaults and gray saturation change nothing")
    func formats() throws {
        let gray = TransformImages.numbered(width: 4, height: 3, format: .grayAlpha8, padding: 2)
        #expect(try ImageTransformers.ColorControls(saturation: 0).transform(gray).storage === gray.storage)
        let darker = try ImageTransformers.ColorControls(brightness: -1).transform(gray)
        #expect(darker.pixelFormat == .grayAlpha8 && darker.pixel(x: 3, y: 2) == [0, gray.pixel(x: 3, y: 2)![1]])
        #expect(try ImageTransformers.ColorControls().transform(Self.image).storage === Self.image.storage)
        let rgb = TransformImages.numbered(width: 5, height: 2, format: .rgb8)
        #expect(try ImageTransformers.ColorControls(saturation: 0.5).transform(rgb).pixelFormat == .rgb8)
    }

    @Test("out-of-range parameters fail; the key names them all")
    func validation() {
        for transformer in [
            ImageTransformers.ColorControls(saturation: -1), ImageTransformers.ColorControls(brightness: 1.5),
            ImageTransformers.ColorControls(contrast: .nan), ImageTransformers.ColorControls(saturation: .infinity),
        ] {
            #expect(TransformImages.failureKey { try transformer.transform(Self.image) } == transformer.key)
        }
        #expect(ImageTransformers.ColorControls.colorControls(contrast: 1.2).key == "colorControls(s=1.0,b=0.0,c=1.2)")
    }
}
