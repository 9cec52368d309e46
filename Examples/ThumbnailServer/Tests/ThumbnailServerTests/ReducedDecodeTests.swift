import AsyncWebImage
import Foundation
import Testing

/// Crops decode at the reduced scale that still covers them (the decoder's
/// own thumbnail: DCT-scaled JPEG), against a real server process: the
/// pixels decoded are counted on /metrics, the answer is compared with
/// ImageMagick's resize-and-crop of the same 2000×1500 source.
@Suite(.serialized)
struct ReducedDecodeTests {
    /// `awi_decoded_pixels_total` (the loader's) from /metrics.
    static func decodedPixels(_ harness: ServerHarness) throws -> Double {
        try ResultWriteQueueTests.metrics(harness)["awi_decoded_pixels_total"] ?? 0
    }

    @Test("fill, fill-down, auto, force and smart crops decode about the output's pixels, not 3 megapixels, and match ImageMagick", arguments: [
        // (processing options, ImageMagick geometry, gravity or nil)
        ("rs:fill:100:100/g:ea", "100x100^", "East"),
        ("rs:fill:100:100/g:we:10:0", "100x100^", "West"),
        ("rs:fill-down:120:60/g:no", "120x60^", "North"),
        ("rs:auto:90:60/g:so", "90x60^", "South"),
        ("rs:force:100:40", "100x40!", nil),
        ("rs:fill:100:100/g:sm", nil, nil),
        ("w:100", "100x", nil),
    ] as [(String, String?, String?)])
    func reducedDecode(options: String, geometry: String?, gravity: String?) throws {
        // Given an origin serving a 2000×1500 JPEG
        let harness = try ServerHarness()
        try harness.serve(try TestImages.gradient(width: 2000, height: 1500, as: .jpeg), as: "large.jpg")
        try harness.startOrigin()
        try harness.startServer(["--allow-unsigned"])
        let before = try Self.decodedPixels(harness)

        // When a crop of it is asked for
        let reply = try harness.get("/insecure/\(options)/plain/\(harness.origin)/large.jpg@png")
        #expect(reply.status == 200)
        let size = try ImgproxyInterfaceTests.size(of: reply.body, in: harness)
        let sides = size.split(separator: "x").compactMap { Int($0) }
        let outputPixels = Double(sides.reduce(1, *))

        // Then the decode was the reduced one: at most twice the output's
        // pixels (the cover of the box), far from the source's 3 megapixels
        let decoded = try Self.decodedPixels(harness) - before
        #expect(decoded > 0)
        #expect(decoded <= 2 * outputPixels, "\(options): decoded \(decoded) pixels for a \(size) answer")

        // And the pixels are ImageMagick's resize and crop of the source
        guard let geometry else { return }
        let source = harness.root.appendingPathComponent("www/large.jpg").path
        var arguments = ["convert", source, "-resize", geometry]
        if let gravity {
            let offsets = options.contains("g:we:10:0") ? "+10+0" : "+0+0"
            arguments += ["-gravity", gravity, "-crop", "\(size)\(offsets)", "+repage"]
        }
        let expected = Array(try ServerHarness.run("/usr/bin/env", arguments + ["-depth", "8", "rgb:-"], requiringSuccess: true))
        let answer = try ImgproxyInterfaceTests.rgb(of: reply.body, in: harness)
        #expect(GravityOffsetTests.difference(answer, expected) <= 3, "\(options): \(GravityOffsetTests.difference(answer, expected))")
    }
}
