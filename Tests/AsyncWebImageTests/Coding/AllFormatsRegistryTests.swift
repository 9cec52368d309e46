import Foundation
import Testing
@testable import AsyncWebImage
import AsyncWebImageAllFormats

/// `ImageCoderRegistry.allFormats` (the AsyncWebImageAllFormats product)
/// registers a coder for every format `ImageFormat` detects, and the core's
/// `builtIn` registry only JPEG's and PNG's.
@Suite("ImageCoderRegistry.allFormats: every detected format decodes", .timeLimit(.minutes(1)))
struct AllFormatsRegistryTests {
    /// A real file of one format, in `Fixtures/<folder>`.
    struct Sample: Sendable, CustomTestStringConvertible {
        let format: ImageFormat
        let folder: String
        let name: String
        var testDescription: String { "\(format) (\(folder)/\(name))" }
    }

    /// A real file of each format (`Fixtures/formats` and the format suites' fixtures).
    static let samples: [Sample] = [
        Sample(format: .jpeg, folder: "formats", name: "sample.jpg"),
        Sample(format: .png, folder: "formats", name: "sample.png"),
        Sample(format: .gif, folder: "formats", name: "sample.gif"),
        Sample(format: .webp, folder: "formats", name: "sample.webp"),
        Sample(format: .heic, folder: "formats", name: "sample.heic"),
        Sample(format: .avif, folder: "formats", name: "sample.avif"),
        Sample(format: .tiff, folder: "formats", name: "sample.tiff"),
        Sample(format: .bmp, folder: "formats", name: "sample.bmp"),
        Sample(format: .jxl, folder: "jxl", name: "lossless.jxl"),
        Sample(format: .ico, folder: "bmp", name: "icon.ico"),
        Sample(format: .svg, folder: "svg", name: "shapes.svg"),
    ]

    @Test("the samples cover every format but .unknown")
    func samplesCoverEveryFormat() {
        #expect(Set(Self.samples.map(\.format)) == Set(ImageFormat.allCases.filter { $0 != .unknown }))
    }

    @Test("each sample is detected as its format and decoded by allFormats as that format", arguments: samples)
    func decodes(sample: Sample) throws {
        let format = sample.format
        let data = try fixture(sample.folder, sample.name)
        #expect(ImageFormat.detect(data) == format)
        let image = try ImageCoderRegistry.allFormats.decode(data)
        #expect(image.format == format)
        #expect(image.size.width > 0 && image.size.height > 0)
        if format == .jpeg || format == .png {
            #expect(ImageCoderRegistry.builtIn.decoder(for: data) != nil)
        } else {
            #expect(ImageCoderRegistry.builtIn.decoder(for: data) == nil)
            #expect(throws: ImageError.unsupportedFormat(format)) { try ImageCoderRegistry.builtIn.decode(data) }
        }
    }
}
