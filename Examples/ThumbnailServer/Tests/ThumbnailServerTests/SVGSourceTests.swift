import Foundation
import HTTPTypes
import Testing

/// SVG sources through the server: a hostile document is refused by its
/// structure at once (413), before any render; a normal one is rendered.
@Suite(.serialized)
struct SVGSourceTests {
    @Test("deep <use> fan-out and 2000-octave turbulence: 413 in well under a second; a normal SVG: 200")
    func hostileSources() throws {
        let harness = try ServerHarness()
        var uses = #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="400" height="400"><defs><rect id="l0" width="1" height="1"/>"#
        for level in 1...9 {
            uses += #"<g id="l\#(level)">"# + (0..<10).map { ##"<use xlink:href="#l\##(level - 1)" x="\##($0)"/>"## }.joined() + "</g>"
        }
        uses += ##"</defs><use xlink:href="#l9"/></svg>"##
        try harness.serve(Data(uses.utf8), as: "uses.svg")
        try harness.serve(Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000"><filter id="f"><feTurbulence baseFrequency="0.01" numOctaves="2000"/></filter><rect width="4000" height="4000" filter="url(#f)"/></svg>"#.utf8), as: "turbulence.svg")
        try harness.serve(Data(##"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#2050c0"/></svg>"##.utf8), as: "plain.svg")
        try harness.startOrigin()
        try harness.startServer(["--allow-unsigned"])
        for name in ["uses.svg", "turbulence.svg"] {
            let started = Date()
            let reply = try harness.get("/thumbnail?url=\(harness.origin)/\(name)&width=64&height=64")
            #expect(reply.status == 413, "\(name): \(String(decoding: reply.body, as: UTF8.self))")
            #expect(Date().timeIntervalSince(started) < 1, "\(name)")
        }
        let plain = try harness.get("/thumbnail?url=\(harness.origin)/plain.svg&width=64&height=64&format=png")
        #expect(plain.status == 200 && plain.headers[.contentType] == "image/png")
    }
}
