import AsyncWebImage
import Foundation
import Testing

/// Gravity offsets (`g:%type:%x:%y`) against a real server process: the
/// answer's pixels are compared with ImageMagick's own crop of the same
/// source (`-resize WxH^ -gravity G -crop WxH+X+Y`), whose offsets mean
/// what imgproxy's do (inwards from the gravity's edges, right and down on
/// a centred axis).
@Suite(.serialized)
struct GravityOffsetTests {
    /// A 400×300 PNG whose red grows with x and green with y, so a crop
    /// moved by a few pixels has visibly other values.
    static func started() throws -> ServerHarness {
        let harness = try ServerHarness()
        try harness.serve(try TestImages.gradient(width: 400, height: 300, as: .png), as: "gradient.png")
        try harness.startOrigin()
        try harness.startServer(["--allow-unsigned"])
        return harness
    }

    /// ImageMagick's crop of the origin's file, as RGB bytes.
    static func reference(_ harness: ServerHarness, box: String, gravity: String, offsets: String) throws -> [UInt8] {
        let source = harness.root.appendingPathComponent("www/gradient.png").path
        return Array(try ServerHarness.run("/usr/bin/env", [
            "convert", source, "-resize", "\(box)^", "-gravity", gravity, "-crop", "\(box)\(offsets)", "+repage", "-depth", "8", "rgb:-",
        ], requiringSuccess: true))
    }

    /// The mean absolute difference of the red and green channels (blue is
    /// constant in the source), or infinity when the sizes differ.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty, a.count % 3 == 0 else { return .infinity }
        var sum = 0
        var count = 0
        for index in stride(from: 0, to: a.count, by: 3) {
            sum += abs(Int(a[index]) - Int(b[index])) + abs(Int(a[index + 1]) - Int(b[index + 1]))
            count += 2
        }
        return Double(sum) / Double(count)
    }

    @Test("each gravity type with offsets in pixels, fractions and dpr crops where ImageMagick does", arguments: [
        // (processing options, ImageMagick box, gravity, offsets)
        ("rs:fill:100:100/g:ea:10:0", "100x100", "East", "+10+0"),
        ("rs:fill:100:100/g:we:10", "100x100", "West", "+10+0"),
        ("rs:fill:100:100/g:ce:-12:0", "100x100", "Center", "-12+0"),
        ("rs:fill:100:50/g:no:0:8", "100x50", "North", "+0+8"),
        ("rs:fill:100:50/g:so:0:8", "100x50", "South", "+0+8"),
        ("rs:fill:100:100/g:noea:0.1:0", "100x100", "NorthEast", "+13+0"),   // 0.1 of the 133-pixel scaled width
        ("rs:fill:100:50/g:nowe:0:0.2", "100x50", "NorthWest", "+0+15"),     // 0.2 of the 75-pixel scaled height
        ("rs:fill:100:50/g:sowe:0:6", "100x50", "SouthWest", "+0+6"),
        ("rs:fill:100:50/g:soea:0:6", "100x50", "SouthEast", "+0+6"),
        ("rs:fill:50:50/dpr:2/g:ea:5:0", "100x100", "East", "+10+0"),        // pixels of the result, times dpr
        ("rs:fill-down:100:100/g:we:10:0", "100x100", "West", "+10+0"),
    ])
    func offsets(options: String, box: String, gravity: String, offsets: String) throws {
        // Given a server and an origin serving the gradient
        let harness = try Self.started()

        // When a crop with offsets is asked for, and the same crop without them
        let reply = try harness.get("/insecure/\(options)/plain/\(harness.origin)/gradient.png@png")
        let plainOptions = options.replacingOccurrences(of: #"(g:[a-z]+)(:[^/]*)?"#, with: "$1", options: .regularExpression)
        let plain = try harness.get("/insecure/\(plainOptions)/plain/\(harness.origin)/gradient.png@png")

        // Then the answer has the box's size and ImageMagick's pixels, and
        // the offsets moved it away from where the plain gravity puts it
        #expect(reply.status == 200)
        #expect(plain.status == 200)
        #expect(try ImgproxyInterfaceTests.size(of: reply.body, in: harness) == box)
        let expected = try Self.reference(harness, box: box, gravity: gravity, offsets: offsets)
        let answer = try ImgproxyInterfaceTests.rgb(of: reply.body, in: harness)
        let unmoved = try ImgproxyInterfaceTests.rgb(of: plain.body, in: harness)
        #expect(Self.difference(answer, expected) <= 2.5, "\(options): \(Self.difference(answer, expected))")
        #expect(Self.difference(unmoved, expected) >= 6, "\(options): the offsets changed nothing")
    }

    @Test("offsets past the image clamp the crop to its edge; sm takes none; bad offsets are a 400")
    func clampingAndErrors() throws {
        let harness = try Self.started()
        func pixels(_ options: String) throws -> [UInt8] {
            let reply = try harness.get("/insecure/\(options)/plain/\(harness.origin)/gradient.png@png")
            #expect(reply.status == 200, "\(options)")
            return try ImgproxyInterfaceTests.rgb(of: reply.body, in: harness)
        }
        // West moved 1000 result pixels inwards reaches the east edge, and back.
        let east = try pixels("rs:fill:100:100/g:ea")
        let west = try pixels("rs:fill:100:100/g:we")
        #expect(east != west)
        #expect(try pixels("rs:fill:100:100/g:we:1000:0") == east)
        #expect(try pixels("rs:fill:100:100/g:ea:1000:0") == west)
        #expect(try pixels("rs:fill:100:100/g:ea:-1000:0") == east)
        #expect(try pixels("rs:fill:100:50/g:no:0:1000") == (try pixels("rs:fill:100:50/g:so")))
        #expect(Self.difference(east, try Self.reference(harness, box: "100x100", gravity: "East", offsets: "+0+0")) <= 2.5)
        for bad in ["g:sm:1:1", "g:sm:0", "g:ce:abc", "g:ce:1:2:3", "g:ce:1e9:0", "g:ce:nan:0", "g:ea:inf"] {
            let reply = try harness.get("/insecure/rs:fill:100:100/\(bad)/plain/\(harness.origin)/gradient.png@png")
            #expect(reply.status == 400, "\(bad)")
        }
    }
}
