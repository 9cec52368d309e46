import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageJXL

/// JXLCoder on `Fixtures/make-jxl-tiff-bmp-svg-fixtures.sh`'s cjxl files
/// against djxl's 8-bit output.
@Suite("JXLCoder: decoding, thumbnails, previews, encoding", .timeLimit(.minutes(1)))
struct JXLCoderTests {
    let coder = JXLCoder()

    @Test("lossless files equal djxl exactly", arguments: [
        ("lossless", PixelFormat.rgb8), ("lossless-alpha", .rgba8), ("lossless-gray", .gray8),
    ])
    func lossless(name: String, format: PixelFormat) throws {
        let image = try coder.decode(try fixture("jxl", name + ".jxl"), options: .init())
        #expect(image.pixelFormat == format)
        #expect(image.format == .jxl)
        #expect(try PAMReference("jxl", name).maximumDifference(from: image) == 0)
    }

    @Test("a lossy file equals djxl's 8-bit output (both are libjxl's render)")
    func lossy() throws {
        let image = try coder.decode(try fixture("jxl", "lossy.jxl"), options: .init())
        #expect(try PAMReference("jxl", "lossy").maximumDifference(from: image) == 0)
    }

    @Test("a thumbnail of an eighth or less is made from the DC, close to the full decode resampled")
    func dcThumbnail() throws {
        let data = try fixture("jxl", "progressive.jxl")
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 80, height: 60))
        let thumbnail = try coder.decode(data, options: options)
        #expect(thumbnail.size == PixelSize(width: 80, height: 60))
        let full = ImageResampler.resample(try coder.decode(data, options: .init()), to: thumbnail.size)
        let (worst, mean) = Self.difference(thumbnail, full)
        // The DC is each 8×8 block's average, upsampled by libjxl: close, not equal
        #expect(worst <= 32 && mean <= 2, "worst \(worst), mean \(mean)")
    }

    /// The largest and the mean channel difference of two images of one size and format.
    static func difference(_ a: Image, _ b: Image) -> (worst: Int, mean: Double) {
        let differences = zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }
        return (differences.max() ?? 0, Double(differences.reduce(0, +)) / Double(max(1, differences.count)))
    }

    @Test("a download in progress gives previews, then the final decode; nothing before the header")
    func previews() throws {
        let data = try fixture("jxl", "progressive.jxl")
        var decoder = try #require(coder.makeProgressiveDecoder(options: .init()))
        #expect(try decoder.preview(for: data.prefix(10)) == nil)
        var previews: [Image] = []
        for fraction in stride(from: 0.1, through: 0.9, by: 0.1) {
            if let preview = try decoder.preview(for: data.prefix(Int(Double(data.count) * fraction))) { previews.append(preview) }
        }
        #expect(!previews.isEmpty)
        #expect(previews.allSatisfy { $0.isPreview && $0.size == PixelSize(width: 640, height: 480) })
    }

    @Test("truncated and corrupt data: typed errors; the pixel limit before any buffer")
    func badInput() throws {
        let data = try fixture("jxl", "lossy.jxl")
        for cut in [2, 20, data.count / 2, data.count - 1] {
            #expect(throws: ImageError.self) { try coder.decode(data.prefix(cut), options: .init()) }
        }
        var bytes = [UInt8](data)
        for offset in stride(from: 40, to: bytes.count, by: 97) { bytes[offset] ^= 0x5A }
        do { _ = try coder.decode(Data(bytes), options: .init()) } catch is ImageError {}
        #expect(throws: ImageError.tooLarge(.pixels, limit: 1000, actual: 256 * 192)) {
            try coder.decode(data, options: .init(maxPixelCount: 1000))
        }
        #expect(coder.declaredSize(of: data) == PixelSize(width: 256, height: 192))
    }

    @Test("encode: lossless round trip is exact; lossy is close; orientation survives; djxl reads ours")
    func encode() throws {
        let source = try coder.decode(try fixture("jxl", "lossless-alpha.jxl"), options: .init())
        let lossless = try coder.encode(source, as: .jxl, quality: 1)
        #expect(ImageFormat.detect(lossless) == .jxl)
        #expect(try coder.decode(lossless, options: .init()).hasSamePixels(as: source))
        let lossy = try coder.decode(try coder.encode(source, as: .jxl, quality: 0.9), options: .init())
        let (_, mean) = Self.difference(lossy, source)
        #expect(lossy.pixelFormat == source.pixelFormat && mean <= 3, "mean \(mean)")
        let rotated = try coder.decode(try coder.encode(source.with(orientation: .right), as: .jxl, quality: 1), options: .init())
        #expect(rotated.orientation == .right)
        // djxl decodes what we wrote to the same pixels
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("awi-jxl-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try lossless.write(to: directory.appendingPathComponent("ours.jxl"))
        try run("/usr/bin/djxl", [directory.appendingPathComponent("ours.jxl").path, directory.appendingPathComponent("ours.png").path])
        try run("/usr/bin/convert", [directory.appendingPathComponent("ours.png").path, "-depth", "8", "-alpha", "on", "pam:" + directory.appendingPathComponent("ours.pam").path])
        #expect(try PAMReference(path: directory.appendingPathComponent("ours.pam").path).maximumDifference(from: source) == 0)
    }

    private func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(tool) failed")
    }
}
