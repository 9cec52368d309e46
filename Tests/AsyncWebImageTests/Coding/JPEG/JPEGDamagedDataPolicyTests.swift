import Foundation
import Testing
@testable import AsyncWebImage

/// JPEGCoder's damaged-data policy on `Fixtures/make-conformance-fixtures.sh`'s
/// files, against djpeg (which decodes them all, with a warning).
@Suite("JPEGCoder: damaged data policy", .timeLimit(.minutes(1)))
struct JPEGDamagedDataPolicyTests {
    @Test("a sequential file missing only its EOI decodes by default, as djpeg decodes it")
    func missingEOI() throws {
        let image = try JPEGCoder().decode(try fixture("conformance", "jpeg-no-eoi.jpg"), options: .init())
        #expect(try PAMReference("conformance", "jpeg-no-eoi").maximumDifference(from: image) == 0)
    }

    @Test("a sequential file cut inside its scan is still refused by default")
    func cutInsideScan() throws {
        let data = try fixture("conformance", "jpeg-no-eoi.jpg")
        let cut = data.prefix(data.count - 40)
        #expect(throws: ImageError.self) { try JPEGCoder().decode(Data(cut), options: .init()) }
        // And decodes with .decodeAvailable, grey below the cut, like djpeg
        let image = try JPEGCoder(damagedDataPolicy: .decodeAvailable).decode(Data(cut), options: .init())
        #expect(image.size == PixelSize(width: 40, height: 32))
        #expect(!image.isPreview)
    }

    @Test("refused by default, decoded as djpeg does with .decodeAvailable", arguments: [
        "jpeg-progressive-no-eoi", "jpeg-scan-padding",
    ])
    func policy(name: String) throws {
        let data = try fixture("conformance", name + ".jpg")
        #expect(throws: ImageError.self) { try JPEGCoder().decode(data, options: .init()) }
        let image = try JPEGCoder(damagedDataPolicy: .decodeAvailable).decode(data, options: .init())
        #expect(try PAMReference("conformance", name).maximumDifference(from: image) == 0)
        // Registered in front of the built-in coder, the policy is the loader's
        let registry = ImageCoderRegistry.builtIn.adding(JPEGCoder(damagedDataPolicy: .decodeAvailable))
        #expect(try registry.decode(data).size == image.size)
    }

    @Test(".decodeAvailable still refuses what is not a JPEG, and the pixel limit")
    func lenientStillChecks() throws {
        let coder = JPEGCoder(damagedDataPolicy: .decodeAvailable)
        #expect(throws: ImageError.self) { try coder.decode(Data([0xFF, 0xD8, 0xFF, 0xD9]), options: .init()) }
        let data = try fixture("conformance", "jpeg-no-eoi.jpg")
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100, actual: 1280)) {
            try coder.decode(data, options: .init(maxPixelCount: 100))
        }
    }
}
