import Foundation
import Testing
import LoopbackServer
@testable import AsyncWebImage
@testable import AsyncWebImageSVG

/// SVGCoder against rsvg-convert, and the documents it must refuse or
/// render without reaching outside their bytes.
@Suite("SVGCoder: rendering, sizes, no outside access, limits", .timeLimit(.minutes(1)))
struct SVGCoderTests {
    let coder = SVGCoder()

    @Test("at its intrinsic size and at a thumbnail size, as rsvg-convert renders them", arguments: [
        ("shapes", nil, "shapes"), ("shapes", 100, "shapes-100"), ("viewbox-only", nil, "viewbox-only"),
    ] as [(String, Int?, String)])
    func rendering(name: String, width: Int?, reference: String) throws {
        let data = try fixture("svg", name + ".svg")
        let options = ImageDecodingOptions(thumbnailPixelSize: width.map { PixelSize(width: $0, height: $0) })
        let image = try coder.decode(data, options: options)
        #expect(image.pixelFormat == .rgba8 && image.format == .svg)
        #expect(try PAMReference("svg", reference).maximumDifference(from: image) == 0)
    }

    /// Renders `svg` and returns the pixel at (2, 2) and whether it is drawn.
    private func corner(_ svg: String) throws -> [UInt8] {
        try #require(coder.decode(Data(svg.utf8), options: .init()).pixel(x: 2, y: 2))
    }

    @Test("an image href to a local file is not loaded")
    func fileHref() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("awi-svg-\(UUID()).png")
        try fixture("png", "rgba8.png").write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for href in [file.absoluteString, file.path] {
            let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="8" height="8">
            <image href="\(href)" xlink:href="\(href)" x="0" y="0" width="8" height="8"/></svg>
            """
            #expect(try corner(svg) == [0, 0, 0, 0])
        }
    }

    @Test("network hrefs, CSS @import and XInclude reach no server")
    func networkReferences() throws {
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("x").absoluteString
        let documents = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"8\"><image href=\"\(url).png\" width=\"8\" height=\"8\"/></svg>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"8\"><style>@import url(\(url).css);</style><rect width=\"8\" height=\"8\" class=\"c\"/></svg>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xi=\"http://www.w3.org/2001/XInclude\" width=\"8\" height=\"8\"><xi:include href=\"\(url).xml\" parse=\"xml\"/></svg>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"8\"><use href=\"\(url).svg#a\"/></svg>",
        ]
        for svg in documents {
            _ = try? coder.decode(Data(svg.utf8), options: .init())
        }
        #expect(server.requestLog.isEmpty)
        #expect(server.connectionsAccepted == 0)
    }

    @Test("entity declarations are refused, internal (expanding) and external (a file)", arguments: [
        "<!DOCTYPE svg [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"8\"><text>&b;</text></svg>",
        "<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"8\"><text>&x;</text></svg>",
    ])
    func entities(svg: String) throws {
        #expect(throws: ImageError.undecodable(.svg, "an entity declaration (refused: entities can expand or read files)")) {
            try coder.decode(Data(svg.utf8), options: .init())
        }
    }

    @Test("element count and nesting limits, before librsvg parses")
    func structureLimits() throws {
        let many = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"8\">" + String(repeating: "<rect width=\"1\" height=\"1\"/>", count: 200) + "</svg>"
        #expect(throws: ImageError.invalidImage("an SVG of more than 100 elements")) {
            try SVGCoder(maxElementCount: 100).decode(Data(many.utf8), options: .init())
        }
        #expect(try SVGCoder(maxElementCount: 1000).decode(Data(many.utf8), options: .init()).size == PixelSize(width: 8, height: 8))
        let deep = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"8\">" + String(repeating: "<g>", count: 300) + String(repeating: "</g>", count: 300) + "</svg>"
        #expect(throws: ImageError.invalidImage("an SVG nesting elements more than 256 deep")) {
            try coder.decode(Data(deep.utf8), options: .init())
        }
        // Quotes and comments do not fool the count
        let tricky = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"8\"><!-- <g><g><g> --><rect title=\"<g>\" width=\"8\" height=\"8\"/></svg>"
        let scan = try Data(tricky.utf8).withUnsafeBytes { try SVGStructureScan($0, maxElements: 10, maxDepth: 10) }
        #expect(scan.elementCount == 2 && scan.maximumDepth == 1)
    }

    @Test("a render over its time limit fails with a timeout")
    func timeout() throws {
        // Blurred layers: well over a millisecond of work (the abandoned render
        // finishes in the background in a fraction of a second)
        let layers = (0..<8).map { "<rect width=\"300\" height=\"300\" fill=\"#\(String(format: "%06x", $0 * 20000))\" filter=\"url(#b)\"/>" }.joined()
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"300\"><filter id=\"b\"><feGaussianBlur stdDeviation=\"20\"/></filter>\(layers)</svg>"
        do {
            _ = try SVGCoder(renderTimeout: .milliseconds(1)).decode(Data(svg.utf8), options: .init())
            Issue.record("the render finished within 1 ms")
        } catch ImageError.timeout(let message) {
            #expect(message.contains("SVG"))
        }
        // And with time enough, the same document renders
        #expect(try coder.decode(Data(svg.utf8), options: .init()).size == PixelSize(width: 300, height: 300))
    }

    @Test("sizes: a raster over the pixel limit is refused before rendering; huge declared sizes are bounded")
    func sizes() throws {
        let huge = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100000\" height=\"100000\"><rect width=\"1\" height=\"1\"/></svg>"
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 10_000_000_000)) {
            try coder.decode(Data(huge.utf8), options: .init())
        }
        // A size librsvg cannot use: refused, or the default size; never a trap or a huge raster
        let absurd = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1e300\" height=\"1\"><rect width=\"1\" height=\"1\"/></svg>"
        if let image = try? coder.decode(Data(absurd.utf8), options: .init()) {
            #expect(image.size.pixelCount <= 100_000_000)
        }
        #expect(throws: ImageError.self) { try coder.decode(Data("<svg><rect".utf8), options: .init()) }
        #expect(coder.declaredSize(of: try fixture("svg", "shapes.svg")) == PixelSize(width: 64, height: 48))
    }
}
