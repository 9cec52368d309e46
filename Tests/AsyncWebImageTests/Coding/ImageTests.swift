import Testing
@testable import AsyncWebImage

@Suite("Image", .timeLimit(.minutes(1)))
struct ImageTests {
    @Test("rejects pixel buffers that do not match the dimensions")
    func validation() {
        #expect(throws: ImageError.self) { try Image(width: 2, height: 2, pixelFormat: .rgba8, pixels: [UInt8](repeating: 0, count: 15)) }
        #expect(throws: ImageError.self) { try Image(width: 0, height: 2, pixelFormat: .gray8, pixels: []) }
        #expect(throws: ImageError.self) { try Image(width: 4, height: 1, pixelFormat: .rgb8, bytesPerRow: 11, pixels: [UInt8](repeating: 0, count: 12)) }
        #expect(throws: ImageError.self) { try Image(width: Int.max / 2, height: 4, pixelFormat: .gray8, pixels: [0]) }
    }

    @Test("copies share one pixel storage; cost counts its bytes")
    func sharing() throws {
        let image = try Image(width: 3, height: 2, pixelFormat: .rgb8, pixels: Array(0..<18))
        let copy = image
        #expect(copy.storage === image.storage)
        #expect(image.cost == 18)
        #expect(image.pixel(x: 2, y: 1) == [15, 16, 17])
        #expect(image.pixel(x: 3, y: 0) == nil)
    }

    @Test("pixel equality ignores row padding but not values")
    func equality() throws {
        let packed = try Image(width: 2, height: 2, pixelFormat: .gray8, pixels: [1, 2, 3, 4])
        let padded = try Image(width: 2, height: 2, pixelFormat: .gray8, bytesPerRow: 3, pixels: [1, 2, 99, 3, 4, 99])
        let different = try Image(width: 2, height: 2, pixelFormat: .gray8, pixels: [1, 2, 3, 5])
        #expect(packed.hasSamePixels(as: padded))
        #expect(packed == padded)
        #expect(!packed.hasSamePixels(as: different))
        #expect(packed.maximumChannelDifference(from: different) == 1)
        #expect(packed != padded.with(orientation: .down))
        #expect(packed.maximumChannelDifference(from: try Image(width: 1, height: 4, pixelFormat: .gray8, pixels: [1, 2, 3, 4])) == nil)
    }
}
