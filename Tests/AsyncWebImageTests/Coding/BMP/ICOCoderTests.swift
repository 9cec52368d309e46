import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageBMP

/// ICOCoder on ImageMagick's icon of four sizes (a 256 px PNG and 48, 32,
/// 16 px bitmaps) against ImageMagick's decode of each.
@Suite("ICOCoder: choosing the image, PNG and bitmap entries", .timeLimit(.minutes(1)))
struct ICOCoderTests {
    let coder = ICOCoder()

    @Test("the full decode is the largest image (the PNG one)")
    func largest() throws {
        let image = try coder.decode(try fixture("bmp", "icon.ico"), options: .init())
        #expect(image.format == .ico)
        #expect(try PAMReference("bmp", "icon-0").maximumDifference(from: image) == 0)
    }

    @Test("a thumbnail reads the smallest image that covers it", arguments: [
        (16, 3), (32, 2), (40, 1), (48, 1),
    ])
    func bestSize(side: Int, index: Int) throws {
        let data = try fixture("bmp", "icon.ico")
        let image = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: side, height: side)))
        #expect(image.size == PixelSize(width: side, height: side))
        let reference = try PAMReference("bmp", "icon-\(index)")
        if reference.width == side {
            #expect(reference.maximumDifference(from: image) == 0)
        } else {
            let source = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: reference.width, height: reference.width)))
            #expect(image.hasSamePixels(as: ImageResampler.resample(source, to: image.size)))
        }
    }

    @Test("a cursor (CUR) decodes as its icon does")
    func cursor() throws {
        let image = try coder.decode(try fixture("bmp", "cursor.cur"), options: .init(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
        #expect(try PAMReference("bmp", "icon-3").maximumDifference(from: image) == 0)
        #expect(ImageFormat.detect(try fixture("bmp", "cursor.cur")) == .ico)
    }

    @Test("broken directories: typed errors; a cut file keeps the images that arrived")
    func badInput() throws {
        let data = try fixture("bmp", "icon.ico")
        #expect(throws: ImageError.self) { try coder.decode(data.prefix(10), options: .init()) }
        // The PNG is stored last by ImageMagick? Whichever is cut, what remains decodes or fails typed.
        for cut in [data.count / 4, data.count / 2, data.count - 1] {
            do {
                let image = try coder.decode(data.prefix(cut), options: .init())
                #expect(image.width <= 256)
            } catch is ImageError {}
        }
        #expect(coder.declaredSize(of: data) == PixelSize(width: 256, height: 256))
    }
}
